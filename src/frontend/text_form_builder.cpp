// The builder of the pipeline text form: resolves the names of a syntax tree
// and rebuilds the pipeline through the DSL's factories. All ir::Function
// objects are created before any is defined, so that a stage may be read
// before the line that defines it.
#include "frontend/text_form_builder.h"

#include "frontend/text_form_parser.h"
#include "trapeze/boundary.h"
#include "trapeze/ir_visitor.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <mutex>
#include <set>

namespace trapeze::text_form {

namespace {

using ir::BinaryOp;
using ir::UnaryOp;
using Kind = SyntaxExpr::Kind;

// A SourceLocation keeps a `const char*`: file names live as long as the process.
const char* lasting_file_name(const std::string& filename) {
  static std::mutex mutex;
  static std::set<std::string> names;
  const std::lock_guard<std::mutex> lock(mutex);
  return names.insert(filename).first->c_str();
}

std::string type_str(ScalarType t) { return std::string(type_name(t)); }

std::string all_type_names() {
  std::string s;
  for (ScalarType t :
       {ScalarType::Bool, ScalarType::UInt8, ScalarType::UInt16, ScalarType::Int16,
        ScalarType::Int32, ScalarType::Int64, ScalarType::Float32, ScalarType::Float64})
    s += (s.empty() ? "" : ", ") + type_str(t);
  return s;
}

// A type name spelled exactly as type_name() prints it (casts are written so).
std::optional<ScalarType> exact_type_name(const std::string& name) {
  const auto t = parse_type_name(name);
  if (t && type_name(*t) == name) return t;
  return std::nullopt;
}

const std::map<std::string, UnaryOp>& unary_builtins() {
  static const std::map<std::string, UnaryOp> m = {
      {"abs", UnaryOp::Abs}, {"sqrt", UnaryOp::Sqrt},   {"exp", UnaryOp::Exp},
      {"log", UnaryOp::Log}, {"floor", UnaryOp::Floor}, {"ceil", UnaryOp::Ceil},
      {"sin", UnaryOp::Sin}, {"cos", UnaryOp::Cos}};
  return m;
}

const std::map<std::string, BinaryOp>& binary_builtins() {
  static const std::map<std::string, BinaryOp> m = {{"min", BinaryOp::Min},
                                                    {"max", BinaryOp::Max},
                                                    {"pow", BinaryOp::Pow},
                                                    {"trunc_div", BinaryOp::TruncDiv},
                                                    {"trunc_mod", BinaryOp::TruncMod}};
  return m;
}

// Names that stand for constants: they cannot name a variable or a parameter.
std::optional<Expr> literal_name(const std::string& name) {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  if (name == "true") return ir::IntConst::make(ScalarType::Bool, 1);
  if (name == "false") return ir::IntConst::make(ScalarType::Bool, 0);
  if (name == "inf_f32") return ir::FloatConst::make(ScalarType::Float32, inf);
  if (name == "nan_f32") return ir::FloatConst::make(ScalarType::Float32, nan);
  if (name == "inf_f64") return ir::FloatConst::make(ScalarType::Float64, inf);
  if (name == "nan_f64") return ir::FloatConst::make(ScalarType::Float64, nan);
  return std::nullopt;
}

// Names followed by '(' that mean a built-in: they cannot name a stage or an input.
bool is_builtin_call(const std::string& name) {
  return name == "select" || exact_type_name(name) || unary_builtins().count(name) ||
         binary_builtins().count(name);
}

std::string joined(const std::vector<std::string>& names) {
  std::string s;
  for (const std::string& n : names)
    s += (s.empty() ? "" : ", ") + n;
  return s;
}

// Where an expression is built: the variables visible there and how to say so.
struct Scope {
  std::vector<std::string> vars;
  std::string rule; ///< completes "unknown name 'z': ..."
};

class Builder {
public:
  Builder(const SyntaxPipeline& syntax, const std::string& filename)
      : syntax_(syntax), filename_(filename), file_(lasting_file_name(filename)) {}

  Pipeline run() {
    for (const SyntaxParam& p : syntax_.params)
      declare_param(p);
    for (const SyntaxInput& in : syntax_.inputs)
      declare_input(in);
    for (const SyntaxStage& s : syntax_.stages)
      declare_stage(s);
    for (const SyntaxStage& s : syntax_.stages)
      define_stage(s);
    return assemble();
  }

private:
  struct ParamEntry {
    ScalarType type;
    const SyntaxParam* syntax;
    std::optional<ParamValue> default_value;
    std::optional<std::int64_t> min, max;
  };

  const SyntaxPipeline& syntax_;
  const std::string& filename_;
  const char* file_;
  std::map<std::string, ParamEntry> params_;
  std::map<std::string, ir::InputImagePtr> inputs_;
  std::map<std::string, ir::FunctionPtr> stages_;
  std::map<std::string, TextPosition> producer_names_; // stages and inputs share one namespace

  [[noreturn]] void fail(TextPosition where, const std::string& message) const {
    fail_at(filename_, where, message);
  }
  // Runs a DSL factory; its error gets the position of the construct.
  template <typename F> auto at(TextPosition where, F&& make) const -> decltype(make()) {
    try {
      return make();
    } catch (const Error& e) {
      fail(where, e.what());
    }
  }
  SourceLocation location(TextPosition where) const { return SourceLocation{file_, where.line}; }

  ScalarType element_type(const SyntaxName& type) const {
    const auto t = parse_type_name(type.name);
    if (!t) fail(type.where, "unknown type '" + type.name + "'; the types are " + all_type_names());
    return *t;
  }

  void check_variable_name(const SyntaxName& v, const std::string& what) const {
    if (literal_name(v.name))
      fail(v.where, "'" + v.name + "' is a literal and cannot name " + what + "; rename it");
    if (auto it = params_.find(v.name); it != params_.end())
      fail(v.where, what + " '" + v.name + "' has the name of the parameter declared at line " +
                        std::to_string(it->second.syntax->name.where.line) +
                        "; rename one of them");
  }

  void claim_producer_name(const SyntaxName& n, const std::string& what) {
    if (is_builtin_call(n.name))
      fail(n.where,
           "'" + n.name + "' is a built-in function and cannot name " + what + "; rename it");
    auto [it, fresh] = producer_names_.emplace(n.name, n.where);
    if (!fresh)
      fail(n.where, "duplicate name: '" + n.name + "' is already declared at line " +
                        std::to_string(it->second.line) + ", column " +
                        std::to_string(it->second.column) +
                        "; stages and inputs need distinct names");
  }

  void declare_param(const SyntaxParam& p) {
    const ScalarType type = element_type(p.type);
    at(p.type.where, [&] { return ir::ParamRef::make(p.name.name, type); });
    if (literal_name(p.name.name))
      fail(p.name.where, "'" + p.name.name + "' is a literal and cannot name a parameter");
    std::optional<ParamValue> value;
    if (p.has_default) value = default_value(p, type);
    std::optional<std::int64_t> min, max;
    if (p.min.present) min = integer_value(p.min.value.text, p.min.negative, p.min.value.where);
    if (p.max.present) max = integer_value(p.max.value.text, p.max.negative, p.max.value.where);
    auto [it, fresh] = params_.emplace(p.name.name, ParamEntry{type, &p, value, min, max});
    if (!fresh)
      fail(p.name.where, "parameter '" + p.name.name + "' is declared twice (first at line " +
                             std::to_string(it->second.syntax->name.where.line) + ")");
  }

  void declare_input(const SyntaxInput& in) {
    claim_producer_name(in.name, "an input");
    const ScalarType type = element_type(in.type);
    const Scope scope{{},
                      "an extent of input '" + in.name.name +
                          "' may use only declared parameters and constants"};
    std::vector<Expr> extents;
    for (const SyntaxExpr& e : in.extents)
      extents.push_back(build(e, scope));
    inputs_[in.name.name] = at(in.name.where, [&] {
      return std::make_shared<ir::InputImage>(in.name.name, type, extents, location(in.name.where));
    });
  }

  std::vector<Interval> intervals(const std::vector<SyntaxInterval>& syntax,
                                  const std::string& rule) {
    const Scope scope{{}, rule};
    std::vector<Interval> out;
    for (const SyntaxInterval& i : syntax)
      out.emplace_back(build(i.lo, scope), build(i.hi, scope));
    return out;
  }

  void declare_stage(const SyntaxStage& s) {
    claim_producer_name(s.name, "a stage");
    if (s.boundary) return declare_boundary(s.name, *s.boundary);
    std::vector<std::string> vars;
    for (const SyntaxName& v : s.vars) {
      check_variable_name(v, "the variable");
      vars.push_back(v.name);
    }
    const ScalarType type = element_type(s.type);
    const std::vector<Interval> domain =
        intervals(s.domain, "a bound of the domain of stage '" + s.name.name +
                                "' may use only declared parameters and constants");
    stages_[s.name.name] = at(s.name.where, [&] {
      return std::make_shared<ir::Function>(s.name.name, type, vars, domain,
                                            location(s.name.where));
    });
  }

  // A boundary condition is declared and defined at once, from its source,
  // which must be declared above it (its domain gives the stage's).
  void declare_boundary(const SyntaxName& name, const SyntaxBoundary& b) {
    const std::optional<boundary::Condition> condition =
        boundary::condition_named(b.condition.name);
    if (!condition)
      fail(b.condition.where, "unknown boundary condition '" + b.condition.name +
                                  "'; the conditions are repeat_edge, repeat_image, "
                                  "mirror_image, mirror_interior and constant_exterior");
    const bool takes_value = *condition == boundary::Condition::ConstantExterior;
    if (takes_value != b.value.has_value())
      fail(b.value ? b.value->start : b.margins_where,
           takes_value ? "constant_exterior needs the value of the points outside: "
                         "constant_exterior(" +
                             b.source.name + ", 0.0f, [1, 1])"
                       : b.condition.name + " takes no value: " + b.condition.name + "(" +
                             b.source.name + ", [1, 1])");
    const Scope scope{
        {}, "a margin of stage '" + name.name + "' may use only declared parameters and constants"};
    std::optional<std::vector<Expr>> margins;
    if (!b.margins.empty()) margins.emplace();
    for (const SyntaxExpr& m : b.margins)
      margins->push_back(build(m, scope));
    const Expr value = b.value ? build(*b.value, scope) : Expr();
    const auto input = inputs_.find(b.source.name);
    const auto stage = stages_.find(b.source.name);
    if (input == inputs_.end() && stage == stages_.end())
      fail(b.source.where, "unknown source '" + b.source.name + "' of stage '" + name.name +
                               "': a boundary condition extends an input or a stage declared "
                               "above it");
    const boundary::MadeAt made_at = boundary::MadeAt::at(location(name.where));
    const Func made = at(name.where, [&] {
      return input != inputs_.end() ? boundary::apply(*condition, Image(input->second), value,
                                                      margins, name.name, made_at)
                                    : boundary::apply(*condition, Func(stage->second), value,
                                                      margins, name.name, made_at);
    });
    stages_[name.name] = made.contents();
  }

  // A value must have the stage's type (constants convert), as Function::define
  // requires; checked here too so that the error points at the value itself.
  void check_value_type(const ir::Function& f, const Expr& value, const SyntaxExpr& syntax,
                        const std::string& which) const {
    if (value.type() == f.type() || value.as<ir::IntConst>() || value.as<ir::FloatConst>()) return;
    fail(syntax.start, "mismatched types: " + which + " of stage '" + f.name() + "' is " +
                           type_str(value.type()) + " (" + ir::to_string(value) +
                           ") but the stage is " + type_str(f.type()) +
                           "; every case and the default must have the stage's type (cast the "
                           "value, e.g. " +
                           type_str(f.type()) + "(...))");
  }

  void define_stage(const SyntaxStage& s) {
    if (s.boundary) return; // defined with its declaration
    const ir::FunctionPtr& f = stages_.at(s.name.name);
    const Scope scope{f->vars(), "it is neither a variable of stage '" + s.name.name + "' (" +
                                     joined(f->vars()) + ") nor a declared parameter"};
    ir::Definition def;
    for (std::size_t i = 0; i < s.cases.size(); ++i) {
      const SyntaxCase& c = s.cases[i];
      ir::Case built{build(c.condition, scope), build(c.value, scope)};
      if (built.condition.type() != ScalarType::Bool)
        fail(c.condition.start, "the condition of case " + std::to_string(i + 1) + " of stage '" +
                                    s.name.name + "' is " + type_str(built.condition.type()) +
                                    " (" + ir::to_string(built.condition) +
                                    "); a condition must be bool (a comparison, say)");
      check_value_type(*f, built.value, c.value, "the value of case " + std::to_string(i + 1));
      def.cases.push_back(std::move(built));
    }
    if (s.otherwise) {
      def.otherwise = build(*s.otherwise, scope);
      check_value_type(*f, def.otherwise, *s.otherwise,
                       s.cases.empty() ? "the definition" : "the default value");
    }
    if (s.reduction) def.reduction = reduction(s, *f, scope);
    at(s.body_where, [&] {
      f->define(std::move(def), location(s.body_where));
      return 0;
    });
  }

  ir::Reduction reduction(const SyntaxStage& s, const ir::Function& f, const Scope& scope) {
    const SyntaxReduction& r = *s.reduction;
    ir::Reduction out;
    out.init = build(r.init, scope);
    check_value_type(f, out.init, r.init, "the initial value");
    for (const SyntaxName& v : r.rvars) {
      check_variable_name(v, "the reduction variable");
      out.rvars.push_back(v.name);
    }
    out.rdom = intervals(r.ranges, "a range of a reduction variable of stage '" + s.name.name +
                                       "' may use only declared parameters and constants");
    const Scope update_scope{out.rvars, "it is neither a reduction variable of stage '" +
                                            s.name.name + "' (" + joined(out.rvars) +
                                            ") nor a declared parameter (an update sees only "
                                            "the reduction variables, not the stage's own)"};
    for (const SyntaxUpdate& u : r.updates) {
      if (u.target.name != s.name.name)
        fail(u.target.where, "an update of stage '" + s.name.name + "' must write '" + s.name.name +
                                 "' itself, found '" + u.target.name + "'");
      if (u.indices.size() != f.vars().size())
        fail(u.target.where, "wrong number of arguments: the target of an update of stage '" +
                                 s.name.name + "' has " + std::to_string(u.indices.size()) +
                                 " indices but the stage has " + std::to_string(f.dimensions()) +
                                 " dimension" + (f.dimensions() == 1 ? "" : "s") + " (" +
                                 joined(f.vars()) + ")");
      ir::ReductionUpdate built;
      built.op = u.op;
      for (const SyntaxExpr& i : u.indices)
        built.target.push_back(build(i, update_scope));
      built.value = build(u.value, update_scope);
      check_value_type(f, built.value, u.value, "the value of an update");
      out.updates.push_back(std::move(built));
    }
    return out;
  }

  Pipeline assemble() {
    if (syntax_.outputs.empty())
      fail(syntax_.end,
           "missing 'output' line: name the stages the pipeline computes, e.g. "
           "'output " +
               (syntax_.stages.empty() ? std::string("result") : syntax_.stages.back().name.name) +
               "'");
    std::vector<ir::FunctionPtr> outputs;
    for (const SyntaxName& o : syntax_.outputs) {
      auto it = stages_.find(o.name);
      if (it == stages_.end())
        fail(o.where, inputs_.count(o.name)
                          ? "'" + o.name + "' is an input; only a stage can be an output"
                          : "unknown stage '" + o.name + "' in the 'output' line");
      outputs.push_back(it->second);
    }
    const std::string name = syntax_.name ? syntax_.name->name : "pipeline";
    Pipeline p = at(syntax_.outputs.front().where, [&] { return Pipeline(outputs, name); });
    // Parameters that no reachable stage uses are not part of the pipeline.
    for (const ParamInfo& info : std::vector<ParamInfo>(p.params())) {
      const ParamEntry& entry = params_.at(info.name);
      if (entry.min || entry.max)
        at(entry.syntax->name.where, [&] {
          p.set_range(info.name, entry.min, entry.max);
          return 0;
        });
      if (!entry.default_value) continue;
      at(entry.syntax->default_where, [&] {
        p.set_default(info.name, *entry.default_value);
        return 0;
      });
    }
    return p;
  }

  ParamValue default_value(const SyntaxParam& p, ScalarType type) const {
    const Token& v = p.default_value;
    const double sign = p.default_negative ? -1.0 : 1.0;
    if (v.kind == TokenKind::Integer) {
      const std::int64_t i = integer_value(v.text, p.default_negative, v.where);
      if (type == ScalarType::Int64) return ParamValue(i);
      return ParamValue(static_cast<double>(i));
    }
    if (type == ScalarType::Int64)
      fail(p.default_where, "parameter '" + p.name.name +
                                "' is int64, so its default must be an "
                                "integer, found " +
                                v.describe());
    if (v.kind == TokenKind::Float)
      return ParamValue(
          sign * float_value(v.text,
                             (p.default_negative ? "-" : "") + v.text + (v.float32 ? "f" : ""),
                             type, v.where));
    if (const auto e = literal_name(v.text); e && e->as<ir::FloatConst>())
      return ParamValue(sign * e->as<ir::FloatConst>()->value);
    fail(v.where, "expected a number as the default of parameter '" + p.name.name + "', found " +
                      v.describe());
  }

  // An integer literal (with its sign) as int64.
  std::int64_t integer_value(const std::string& digits, bool negative, TextPosition where) const {
    std::uint64_t magnitude = 0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), magnitude);
    const std::uint64_t limit =
        static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) + (negative ? 1 : 0);
    if (ec != std::errc() || end != digits.data() + digits.size() || magnitude > limit)
      fail(where,
           "the integer " + std::string(negative ? "-" : "") + digits + " does not fit in int64");
    if (negative) return static_cast<std::int64_t>(0 - magnitude);
    return static_cast<std::int64_t>(magnitude);
  }

  // A float literal (`written` as in the file) as a value of `type`: read as
  // float64, then rounded to float32 for a float32, as the printer expects. A
  // literal that would become infinity, or 0 though it is not 0, is an error
  // (in float32 as in float64) rather than silently another number.
  double float_value(const std::string& text, const std::string& written, ScalarType type,
                     TextPosition where) const {
    double v = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    const bool in_float64 = ec == std::errc() && end == text.data() + text.size();
    // Halfway between float32's largest finite value and 2^128: the least
    // magnitude that rounds to infinity.
    constexpr double float32_overflow = 0x1.ffffffp+127;
    const bool overflow = std::fabs(v) >= float32_overflow;
    const bool underflow = v != 0 && static_cast<float>(v) == 0.0f;
    if (type == ScalarType::Float32 && (!in_float64 || overflow || underflow))
      fail(where, "the number " + written +
                      " is out of the range of float32 (largest finite magnitude about 3.4e38, "
                      "smallest nonzero about 1.4e-45)" +
                      (overflow    ? ": it would be infinity (write inf_f32 for infinity)"
                       : underflow ? ": it would be 0 (write 0.0f for 0)"
                                   : ""));
    if (!in_float64)
      fail(where, "the number " + written +
                      " is out of the range of float64 (largest finite magnitude about 1.8e308, "
                      "smallest nonzero about 4.9e-324)");
    return v;
  }

  // An int32 literal, possibly negated ("-2147483648" is one literal).
  Expr int32_literal(const SyntaxExpr& digits, bool negative, TextPosition where) const {
    const std::int64_t v = integer_value(digits.text, negative, where);
    if (v < std::numeric_limits<std::int32_t>::min() ||
        v > std::numeric_limits<std::int32_t>::max())
      fail(where, "the integer " + std::string(negative ? "-" : "") + digits.text +
                      " does not fit in int32; write int64(" + (negative ? "-" : "") + digits.text +
                      ") for a 64-bit constant");
    return Expr(static_cast<int>(v));
  }

  Expr build(const SyntaxExpr& e, const Scope& scope) {
    switch (e.kind) {
    case Kind::Integer: return int32_literal(e, false, e.where);
    case Kind::Float: {
      const ScalarType type = e.float32 ? ScalarType::Float32 : ScalarType::Float64;
      return ir::FloatConst::make(
          type, float_value(e.text, e.text + (e.float32 ? "f" : ""), type, e.where));
    }
    case Kind::Name: return name(e, scope);
    case Kind::Call: return call(e, scope);
    case Kind::Unary: {
      const SyntaxExpr& operand = e.operands[0];
      if (e.unary_op == UnaryOp::Neg && operand.kind == Kind::Integer)
        return int32_literal(operand, true, e.where);
      Expr v = build(operand, scope);
      return at(e.where, [&] { return ir::Unary::make(e.unary_op, v); });
    }
    case Kind::Binary: {
      Expr a = build(e.operands[0], scope);
      Expr b = build(e.operands[1], scope);
      return at(e.where, [&] { return ir::Binary::make_as_written(e.binary_op, a, b); });
    }
    }
    TRAPEZE_ASSERT(false, "unknown syntax kind");
  }

  Expr name(const SyntaxExpr& e, const Scope& scope) const {
    if (auto literal = literal_name(e.text)) return *literal;
    for (const std::string& v : scope.vars)
      if (v == e.text) return ir::VarRef::make(v);
    if (auto it = params_.find(e.text); it != params_.end())
      return ir::ParamRef::make(e.text, it->second.type);
    if (stages_.count(e.text) || inputs_.count(e.text))
      fail(e.where, "'" + e.text + "' is " + (stages_.count(e.text) ? "a stage" : "an input") +
                        ": read it at a point, e.g. " + e.text + "(...)");
    fail(e.where, "unknown name '" + e.text + "': " + scope.rule);
  }

  Expr call(const SyntaxExpr& e, const Scope& scope) {
    const std::size_t n = e.operands.size();
    const auto arity = [&](std::size_t wanted) {
      if (n != wanted)
        fail(e.where, "wrong number of arguments: '" + e.text + "' takes " +
                          std::to_string(wanted) + " argument" + (wanted == 1 ? "" : "s") +
                          ", found " + std::to_string(n));
    };
    std::vector<Expr> args;
    const auto build_args = [&] {
      for (const SyntaxExpr& a : e.operands)
        args.push_back(build(a, scope));
    };
    if (auto f = stages_.find(e.text); f != stages_.end()) {
      build_args();
      return at(e.where, [&] { return ir::Access::make(f->second, args, location(e.where)); });
    }
    if (auto i = inputs_.find(e.text); i != inputs_.end()) {
      build_args();
      return at(e.where, [&] { return ir::Access::make(i->second, args, location(e.where)); });
    }
    if (const auto type = exact_type_name(e.text)) {
      arity(1);
      return cast(*type, e.operands[0], scope, e.where);
    }
    if (e.text == "select") {
      arity(3);
      build_args();
      return at(e.where, [&] { return ir::Select::make(args[0], args[1], args[2]); });
    }
    if (auto u = unary_builtins().find(e.text); u != unary_builtins().end()) {
      arity(1);
      build_args();
      return at(e.where, [&] { return ir::Unary::make(u->second, args[0]); });
    }
    if (auto b = binary_builtins().find(e.text); b != binary_builtins().end()) {
      arity(2);
      build_args();
      return at(e.where, [&] { return ir::Binary::make_as_written(b->second, args[0], args[1]); });
    }
    if (params_.count(e.text) ||
        std::find(scope.vars.begin(), scope.vars.end(), e.text) != scope.vars.end())
      fail(e.where, "'" + e.text + "' is " +
                        (params_.count(e.text) ? "a parameter" : "a variable") +
                        ", not a stage or an input, so it cannot be read with '('");
    fail(e.where, "unknown stage or input '" + e.text + "': declare it with 'stage " + e.text +
                      "(...)' or 'input " + e.text + ": TYPE[...]'");
  }

  // `int64(5)` is a 64-bit constant, not a cast of an int32 (whose range it may exceed).
  Expr cast(ScalarType type, const SyntaxExpr& operand, const Scope& scope, TextPosition where) {
    const bool negated_digits = operand.kind == Kind::Unary && operand.unary_op == UnaryOp::Neg &&
                                operand.operands[0].kind == Kind::Integer;
    if (operand.kind == Kind::Integer || negated_digits) {
      const SyntaxExpr& digits = negated_digits ? operand.operands[0] : operand;
      const std::int64_t v = integer_value(digits.text, negated_digits, operand.start);
      if (is_float(type)) return ir::FloatConst::make(type, static_cast<double>(v));
      return ir::IntConst::make(type, v);
    }
    Expr v = build(operand, scope);
    return at(where, [&] { return ir::Cast::make(type, v); });
  }
};

} // namespace

Pipeline build_pipeline(const SyntaxPipeline& syntax, const std::string& filename) {
  return Builder(syntax, filename).run();
}

} // namespace trapeze::text_form
