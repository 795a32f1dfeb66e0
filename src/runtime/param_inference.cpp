// infer_params: parameter values from the sizes of a pipeline's input images.
//
// Each dimension of an input given an image is one equation
//     floor((sum_j b_j * P_j + c) / d) = n
// (analysis/affine.h's form of the declared extent, n the image's size).
// Substituting the parameters already known leaves equations in fewer
// unknowns; one left with a single unknown U is solved exactly, as the
// integers U with n*d <= b*U + c' <= n*d + d - 1: none is an error, one is
// U's value, several (`R / 2`) leave U to other equations. Repeating until
// nothing new is learned makes the order of inputs and dimensions irrelevant.
#include "trapeze/input_images.h"

#include "analysis/affine.h"
#include "trapeze/error.h"
#include "trapeze/ir_visitor.h"

#include <algorithm>
#include <optional>
#include <set>

namespace trapeze {

namespace {

// b * U + c of int64 terms cannot overflow it (__extension__: -Wpedantic knows no __int128).
__extension__ typedef __int128 Int;

Int floor_div(Int a, Int b) {
  const Int q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
Int ceil_div(Int a, Int b) { return -floor_div(-a, b); }

std::string int_text(Int v) {
  if (v >= INT64_MIN && v <= INT64_MAX) return std::to_string(static_cast<std::int64_t>(v));
  return v < 0 ? "below -2^63" : "beyond 2^63";
}

/// to_string without the parentheses around the whole expression.
std::string expr_text(const Expr& e) {
  std::string s = ir::to_string(e);
  if (s.size() < 2 || s.front() != '(' || s.back() != ')') return s;
  int depth = 0;
  for (std::size_t i = 0; i + 1 < s.size(); ++i) {
    depth += s[i] == '(' ? 1 : s[i] == ')' ? -1 : 0;
    if (depth == 0) return s; // the first parenthesis closes before the end
  }
  return s.substr(1, s.size() - 2);
}

/// One dimension of one input with an image.
struct Equation {
  const ir::InputImage* input = nullptr;
  int dim = 0;
  std::int64_t size = 0;
  const std::string* source = nullptr;
  std::optional<analysis::AffineIndex> form; ///< nullopt: not affine
  bool solved = false;
  std::string why_not; ///< why it determined nothing, once tried

  /// "extent 1 of input 'img' (C + 2) is 642 in photo.png".
  std::string text() const {
    return "extent " + std::to_string(dim) + " of input '" + input->name() + "' (" +
           expr_text(input->extents()[static_cast<std::size_t>(dim)]) + ") is " +
           std::to_string(size) + " in " + *source;
  }
};

/// A parameter's value and where it came from.
struct Known {
  std::int64_t value = 0;
  std::string origin; ///< "given" or "from extent 0 of input 'img' ..."
};

std::set<std::string> params_of(const Expr& e) {
  std::set<std::string> names;
  ir::for_each_node(e, [&](const Expr& n) {
    if (const auto* p = n.as<ir::ParamRef>()) names.insert(p->name);
  });
  return names;
}

std::string extents_text(const std::vector<std::int64_t>& extents) {
  std::string s;
  for (std::int64_t e : extents)
    s += "[" + std::to_string(e) + "]";
  return s;
}

/// The values that the equations with one unknown left allow it, where each
/// allows several (`N / 2 = 4`: 8 or 9); together they may allow one.
struct Range {
  Int lo = INT64_MIN, hi = INT64_MAX;
  std::string from; ///< the equations, for messages
};

/// Tries `eq` with what is known: solves it, checks it, or says why it
/// cannot help yet. True if it taught something new.
bool try_equation(Equation& eq, std::map<std::string, Known>& known,
                  std::map<std::string, Range>& ranges, const Pipeline& p) {
  if (!eq.form) {
    eq.why_not = eq.text() + ", which is not affine in the parameters";
    return false;
  }
  const analysis::AffineIndex& f = *eq.form;
  Int c = f.constant;
  std::vector<std::pair<std::string, std::int64_t>> unknown;
  std::string values; // "R=480 (given)"
  for (const auto& [name, b] : f.params) {
    const auto it = known.find(name);
    if (it == known.end()) {
      unknown.emplace_back(name, b);
      continue;
    }
    c += Int{b} * it->second.value;
    values += (values.empty() ? "" : ", ") + name + "=" + std::to_string(it->second.value) + " (" +
              it->second.origin + ")";
  }
  const Int d = f.divisor, n = eq.size;
  if (unknown.empty()) {
    eq.solved = true;
    const Int value = floor_div(c, d);
    if (value != n)
      throw Error("input '" + eq.input->name() + "' of pipeline '" + p.name() + "' is " +
                  input_declaration(*eq.input) + ": its extent " + std::to_string(eq.dim) + " (" +
                  expr_text(eq.input->extents()[static_cast<std::size_t>(eq.dim)]) + ") is " +
                  int_text(value) + (values.empty() ? "" : " for " + values) + ", but " +
                  *eq.source + "'s is " + std::to_string(eq.size));
    return false;
  }
  if (unknown.size() > 1) {
    std::string others;
    for (std::size_t i = 1; i < unknown.size(); ++i)
      others += (others.empty() ? "" : ", ") + unknown[i].first;
    eq.why_not = eq.text() + ", where " + unknown[0].first + " and " + others + " are all unknown";
    return false;
  }
  const auto& [name, b] = unknown.front();
  // n*d <= b*U + c <= n*d + d - 1, divided by b (flipping for b < 0).
  const Int low = n * d - c, high = n * d + d - 1 - c;
  const Int lo = b > 0 ? ceil_div(low, b) : ceil_div(high, b);
  const Int hi = b > 0 ? floor_div(high, b) : floor_div(low, b);
  if (lo > hi || lo < INT64_MIN || lo > INT64_MAX)
    throw Error(eq.text() + ": no integer " + name + " gives that size" +
                (values.empty() ? "" : " (with " + values + ")"));
  if (lo < hi) {
    eq.why_not = eq.text() + ", which every " + name + " from " + int_text(lo) + " to " +
                 int_text(hi) + " gives";
    Range& r = ranges[name];
    r.lo = std::max(r.lo, lo);
    r.hi = std::min(r.hi, hi);
    r.from += (r.from.empty() ? "" : " and ") + eq.text();
    return false;
  }
  eq.solved = true;
  known[name] = Known{static_cast<std::int64_t>(lo), "from " + eq.text()};
  return true;
}

} // namespace

std::string input_declaration(const ir::InputImage& input) {
  std::string s(type_name(input.type()));
  for (const Expr& e : input.extents())
    s += "[" + expr_text(e) + "]";
  return s;
}

ParamValues infer_params(const Pipeline& p, const std::map<std::string, InputShape>& shapes,
                         const ParamValues& given) {
  std::vector<Equation> equations;
  for (const auto& [name, shape] : shapes) {
    const ir::InputImage& input = *p.input(name);
    if (static_cast<int>(shape.extents.size()) != input.dimensions())
      throw Error("input '" + name + "' of pipeline '" + p.name() + "' is " +
                  input_declaration(input) + " (" + std::to_string(input.dimensions()) +
                  " dimensions); " + shape.source + " has " + std::to_string(shape.extents.size()) +
                  " (" + extents_text(shape.extents) + ")");
    for (int d = 0; d < input.dimensions(); ++d) {
      Equation eq;
      eq.input = &input;
      eq.dim = d;
      eq.size = shape.extents[static_cast<std::size_t>(d)];
      eq.source = &shape.source;
      eq.form = analysis::affine_index(input.extents()[static_cast<std::size_t>(d)]);
      equations.push_back(std::move(eq));
    }
  }

  std::map<std::string, Known> known;
  for (const auto& [name, v] : given)
    if (!v.is_float) known[name] = Known{v.i, "given"};
  for (bool progress = true; progress;) {
    progress = false;
    std::map<std::string, Range> ranges;
    for (Equation& eq : equations)
      if (!eq.solved) progress = try_equation(eq, known, ranges, p) || progress;
    if (progress) continue;
    for (const auto& [name, r] : ranges) {
      if (r.lo > r.hi)
        throw Error("parameter '" + name + "' of pipeline '" + p.name() +
                    "': no value satisfies all of " + r.from);
      if (r.lo == r.hi) {
        known[name] = Known{static_cast<std::int64_t>(r.lo), "from " + r.from};
        progress = true;
      }
    }
  }

  ParamValues result = given;
  for (const auto& [name, k] : known)
    result.emplace(name, ParamValue(k.value));
  for (const ParamInfo& info : p.params()) {
    if (result.count(info.name) || info.has_default) continue;
    std::string why;
    for (const Equation& eq : equations)
      if (!eq.solved &&
          params_of(eq.input->extents()[static_cast<std::size_t>(eq.dim)]).count(info.name)) {
        why = eq.why_not;
        break;
      }
    if (why.empty())
      why = shapes.empty() ? "no input image is given"
                           : "it appears in the extents of no input given an image";
    throw Error("parameter '" + info.name + "' of pipeline '" + p.name() +
                "' has no value and the input images do not determine it: " + why +
                "; give it with --param " + info.name + "=VALUE");
  }

  // Every extent against its image, now with every value (defaults too): the
  // equations that were not affine or not solved are checked here.
  const ParamValues bound = p.bind(result);
  for (const auto& [name, shape] : shapes) {
    const ir::InputImage& input = *p.input(name);
    std::vector<std::int64_t> declared;
    for (const Expr& e : input.extents())
      declared.push_back(evaluate_int(e, bound, "the extents of input '" + name + "'"));
    if (declared == shape.extents) continue;
    const std::string values = param_bindings_text(input.extents(), bound);
    throw Error("input '" + name + "' of pipeline '" + p.name() + "' is " +
                input_declaration(input) + ", which is " + extents_text(declared) +
                (values.empty() ? "" : " for " + values) + ", but " + shape.source + " is " +
                extents_text(shape.extents));
  }
  return result;
}

} // namespace trapeze
