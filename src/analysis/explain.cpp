// `trapeze explain`: the analysis of a pipeline as readable text and as JSON.
//
// Both outputs are built from one Report, so they always say the same thing.
// The JSON fields are documented in docs/explain.md.
#include "trapeze/explain.h"

#include "analysis/alignment.h"
#include "analysis/classify.h"
#include "analysis/dependence.h"
#include "trapeze/ir_visitor.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <numeric>
#include <optional>
#include <span>
#include <unordered_map>

namespace trapeze {

using namespace ir;
using namespace analysis;
// Insertion-ordered, so the document reads in the order of docs/explain.md.
using ordered_json = nlohmann::ordered_json;

namespace {

// A set of stages aligned together.
struct Group {
  std::vector<const Function*> stages; ///< topological order
  GroupAlignment alignment;
  /// When the group cannot be aligned: its parts once the edges that can never be
  /// aligned (not uniform, or touching a reduction) are cut, each aligned on its own.
  std::vector<Group> parts;
};

// Everything explain prints, computed once.
struct Report {
  std::vector<EdgeDependence> edges;
  std::vector<StageClassification> classes; ///< per stage, in p.stages() order
  /// The connected components of the stages (stage-to-stage edges).
  std::vector<Group> components;
  /// Why the whole pipeline is not one group (empty if it is one component).
  std::string whole_reason;
};

// Stages joined by edges, with the edges that run between them.
struct Component {
  std::vector<const Function*> stages;      ///< topological order
  std::vector<const EdgeDependence*> edges; ///< those between its stages, in the given order
};

// Connected components of `stages` (topological order) joined by the edges `joins` accepts,
// ordered by their first stage. Each gets the edges of `edges` between its own stages,
// whether they join or not (they matter to its alignment).
template <typename Joins>
std::vector<Component> connected_components(const std::vector<const Function*>& stages,
                                            const std::vector<const EdgeDependence*>& edges,
                                            Joins joins) {
  std::unordered_map<const Function*, std::size_t> index;
  for (std::size_t i = 0; i < stages.size(); ++i)
    index.emplace(stages[i], i);
  const auto index_of = [&](const Function* f) {
    const auto it = index.find(f);
    return it == index.end() ? stages.size() : it->second;
  };
  std::vector<std::size_t> parent(stages.size());
  std::iota(parent.begin(), parent.end(), std::size_t{0});
  const auto find = [&](std::size_t i) {
    while (parent[i] != i)
      i = parent[i] = parent[parent[i]];
    return i;
  };
  for (const EdgeDependence* e : edges) {
    if (!e->producer_stage || !joins(*e)) continue;
    const std::size_t a = index_of(e->producer_stage), b = index_of(e->consumer);
    if (a < stages.size() && b < stages.size()) parent[find(a)] = find(b);
  }
  std::vector<Component> out;
  std::unordered_map<std::size_t, std::size_t> component_of_root;
  for (std::size_t i = 0; i < stages.size(); ++i) {
    const auto [it, fresh] = component_of_root.emplace(find(i), out.size());
    if (fresh) out.emplace_back();
    out[it->second].stages.push_back(stages[i]);
  }
  for (const EdgeDependence* e : edges) {
    if (!e->producer_stage) continue;
    const std::size_t a = index_of(e->producer_stage), b = index_of(e->consumer);
    if (a < stages.size() && b < stages.size() && find(a) == find(b))
      out[component_of_root.at(find(a))].edges.push_back(e);
  }
  return out;
}

Group aligned_group(const Pipeline& p, Component component, bool split) {
  Group g;
  g.stages = std::move(component.stages);
  g.alignment = align_and_scale(p, g.stages, component.edges);
  if (g.alignment.ok || !split || g.stages.size() < 2) return g;
  const auto alignable = [](const EdgeDependence& e) {
    return e.is_uniform() && !e.consumer->definition().is_reduction() &&
           !e.producer_stage->definition().is_reduction();
  };
  auto parts = connected_components(g.stages, component.edges, alignable);
  if (parts.size() < 2) return g; // the conflict lies in how uniform edges combine
  for (auto& part : parts)
    g.parts.push_back(aligned_group(p, std::move(part), false));
  return g;
}

Report analyse(const Pipeline& p) {
  Report r;
  r.edges = dependences(p);
  // dependences() lists each consumer's edges together, consumers in p.stages() order.
  std::vector<const Function*> all;
  std::size_t first_edge = 0;
  for (const FunctionPtr& f : p.stages()) {
    std::size_t end = first_edge;
    while (end < r.edges.size() && r.edges[end].consumer == f.get())
      ++end;
    r.classes.push_back(classify_stage(
        *f, std::span<const EdgeDependence>(r.edges).subspan(first_edge, end - first_edge)));
    first_edge = end;
    all.push_back(f.get());
  }
  std::vector<const EdgeDependence*> edges;
  for (const EdgeDependence& e : r.edges)
    edges.push_back(&e);
  auto components = connected_components(all, edges, [](const EdgeDependence&) { return true; });
  if (components.size() > 1)
    r.whole_reason = "the stages form " + std::to_string(components.size()) +
                     " connected components (e.g. '" + components[0].stages.front()->name() +
                     "' and '" + components[1].stages.front()->name() +
                     "' share no producer-consumer path), so each is aligned on its own";
  for (auto& c : components)
    r.components.push_back(aligned_group(p, std::move(c), true));
  return r;
}

// ---- shared formatting ------------------------------------------------------------------------

std::string param_value_text(const ParamValue& v) {
  if (!v.is_float) return std::to_string(v.i);
  ordered_json j = v.f; // shortest round-tripping text
  return j.dump();
}

std::optional<Box> try_domain(const Function& f, const ParamValues& bound) {
  try {
    return concrete_domain(f, bound);
  } catch (const Error&) {
    return std::nullopt; // a parameter is not bound: only the symbolic domain is shown
  }
}
std::optional<Box> try_domain(const InputImage& i, const ParamValues& bound) {
  try {
    return concrete_domain(i, bound);
  } catch (const Error&) {
    return std::nullopt;
  }
}

// A bound or extent for people: "N/2 - 1" rather than the text form's "N / int64(2) - int64(1)".
std::string bound_text(const Expr& e) {
  if (std::optional<AffineIndex> f = affine_index(e)) return f->str();
  return to_string(e);
}

std::string symbolic_domain(const std::vector<std::string>& vars,
                            const std::vector<Interval>& domain) {
  std::string out;
  for (std::size_t k = 0; k < domain.size(); ++k) {
    if (k) out += ", ";
    out += vars[k] + " in [" + bound_text(domain[k].lo) + ", " + bound_text(domain[k].hi) + "]";
  }
  return out;
}

std::string joined(const std::vector<std::string>& items, const std::string& sep = ", ") {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i)
    out += (i ? sep : "") + items[i];
  return out;
}

std::string definition_kind(const Definition& d) {
  if (d.is_reduction()) return "reduction";
  return d.cases.empty() ? "pure" : "cases";
}

// "  (margins inferred: [1, 1])" after a boundary the user gave no margins.
std::string inferred_margins_note(const BoundaryOrigin& b) {
  return b.margins_inferred ? "  (margins inferred: " + margins_text(b.margins) + ")" : "";
}

std::string update_text(const Function& f, const ReductionUpdate& u) {
  std::vector<std::string> target;
  for (const Expr& t : u.target)
    target.push_back(to_string(t));
  return std::string(reduce_op_name(u.op)) + " into " + f.name() + "(" + joined(target) +
         "): " + to_string(u.value);
}

// ---- text ---------------------------------------------------------------------------------------

// Rows of cells printed with every column padded to its widest cell.
class Table {
public:
  void row(std::vector<std::string> cells) { rows_.push_back(std::move(cells)); }
  void print(std::string& out, const std::string& indent) const {
    std::vector<std::size_t> width;
    for (const auto& r : rows_)
      for (std::size_t c = 0; c < r.size(); ++c) {
        if (width.size() <= c) width.push_back(0);
        width[c] = std::max(width[c], r[c].size());
      }
    for (const auto& r : rows_) {
      std::string line = indent;
      for (std::size_t c = 0; c < r.size(); ++c) {
        line += r[c];
        if (c + 1 < r.size()) line += std::string(width[c] - r[c].size() + 2, ' ');
      }
      while (!line.empty() && line.back() == ' ')
        line.pop_back();
      out += line + "\n";
    }
  }

private:
  std::vector<std::vector<std::string>> rows_;
};

void heading(std::string& out, const std::string& title) {
  out += "\n" + title + "\n" + std::string(title.size(), '-') + "\n";
}

void text_params(std::string& out, const Pipeline& p, const ParamValues& bound) {
  heading(out, "Parameters");
  if (p.params().empty()) out += "  (none)\n";
  Table t;
  for (const ParamInfo& pi : p.params()) {
    const auto it = bound.find(pi.name);
    t.row({pi.name, std::string(type_name(pi.type)),
           it == bound.end() ? "unbound" : "= " + param_value_text(it->second),
           pi.has_default ? "(default " + param_value_text(pi.default_value) + ")" : ""});
  }
  t.print(out, "  ");
}

void text_inputs(std::string& out, const Pipeline& p, const ParamValues& bound) {
  heading(out, "Inputs");
  if (p.inputs().empty()) out += "  (none)\n";
  Table t;
  for (const InputImagePtr& in : p.inputs()) {
    std::vector<std::string> extents;
    for (const Expr& e : in->extents())
      extents.push_back(bound_text(e));
    const std::optional<Box> box = try_domain(*in, bound);
    t.row({in->name(), std::string(type_name(in->type())), "extents [" + joined(extents) + "]",
           box ? "domain " + box->str() : "domain unbound"});
  }
  t.print(out, "  ");
}

void text_stage(std::string& out, const Pipeline& p, const Function& f,
                const StageClassification& c, const ParamValues& bound) {
  out += "\n  " + f.name() + "(" + joined(f.vars()) + ")  " + std::string(type_name(f.type()));
  if (p.is_output(f)) out += "  [output]";
  out += "\n";
  Table t;
  const std::optional<Box> box = try_domain(f, bound);
  t.row({"domain", symbolic_domain(f.vars(), f.domain())});
  t.row({"", box ? "= " + box->str() : "(parameters unbound)"});
  t.row({"class", c.str()});
  for (const std::string& r : c.reasons)
    t.row({"", "- " + r});
  const Definition& d = f.definition();
  if (d.is_reduction()) {
    const Reduction& red = *d.reduction;
    t.row({"init", to_string(red.init)});
    t.row({"over", symbolic_domain(red.rvars, red.rdom)});
    for (std::size_t i = 0; i < red.updates.size(); ++i)
      t.row({"update " + std::to_string(i), update_text(f, red.updates[i])});
  } else {
    if (d.boundary)
      t.row({"boundary", boundary_text(*d.boundary) + inferred_margins_note(*d.boundary)});
    for (std::size_t i = 0; i < d.cases.size(); ++i)
      t.row({"case " + std::to_string(i),
             to_string(d.cases[i].condition) + "  :  " + to_string(d.cases[i].value)});
    t.row({d.cases.empty() ? "value" : "default", to_string(d.otherwise)});
  }
  t.print(out, "    ");
}

void text_edges(std::string& out, const Report& r) {
  heading(out, "Dependences (producer index = floor(scale*var + offset))");
  if (r.edges.empty()) out += "  (none)\n";
  for (const EdgeDependence& e : r.edges) {
    out += "\n  " + e.producer_name() + " -> " + e.consumer->name() +
           (e.producer_input ? "  (input)" : "") + (e.is_uniform() ? "" : "  [not uniform]") + "\n";
    Table acc;
    for (const AccessInfo& a : e.accesses)
      acc.row({to_string(a.access), a.context});
    acc.print(out, "    ");
    Table dims;
    for (std::size_t k = 0; k < e.dims.size(); ++k) {
      const DimDependence& d = e.dims[k];
      // The summary of an irregular dimension is its kind: show why instead.
      dims.row({"dim " + std::to_string(k), dim_dependence_kind_name(d.kind),
                d.is_uniform() || d.note.empty() ? d.str() : d.note});
    }
    dims.print(out, "    ");
  }
}

void text_group(std::string& out, const Group& g, const std::string& indent) {
  std::vector<std::string> names;
  for (const Function* f : g.stages)
    names.push_back(f->name());
  const GroupAlignment& a = g.alignment;
  out += "\n" + indent + "group {" + joined(names) + "}: ";
  if (!a.ok) {
    out += "cannot be aligned: " + a.reason + "\n";
    if (!g.parts.empty())
      out += indent + "  cut at the edges that cannot be aligned, its parts are:\n";
    for (const Group& part : g.parts)
      text_group(out, part, indent + "  ");
    return;
  }
  out += "common space (" + joined(a.common_dims) + ")\n";
  Table t;
  for (const StageAlignment& s : a.stages)
    t.row({s.stage->name(), s.str(a.common_dims)});
  t.print(out, indent + "  ");
  if (!a.dependences.empty()) out += indent + "  distances (producer point - consumer point):\n";
  Table d;
  for (const UniformDependence& u : a.dependences)
    d.row({u.producer->name() + " -> " + u.consumer->name(), u.str()});
  d.print(out, indent + "    ");
}

void text_alignment(std::string& out, const Report& r) {
  heading(out, "Alignment and scaling (common space per group)");
  if (!r.whole_reason.empty()) out += "  The pipeline is not one group: " + r.whole_reason + ".\n";
  for (const Group& g : r.components)
    text_group(out, g, "  ");
}

// ---- JSON ---------------------------------------------------------------------------------------

ordered_json box_json(const std::optional<Box>& box) {
  if (!box) return nullptr;
  return ordered_json{{"lo", box->lo}, {"hi", box->hi}};
}

ordered_json intervals_json(const std::vector<std::string>& vars,
                            const std::vector<Interval>& domain) {
  ordered_json out = ordered_json::array();
  for (std::size_t k = 0; k < domain.size(); ++k)
    out.push_back(
        {{"var", vars[k]}, {"lo", to_string(domain[k].lo)}, {"hi", to_string(domain[k].hi)}});
  return out;
}

ordered_json param_value_json(const ParamValue& v) {
  if (v.is_float) return v.f;
  return v.i;
}

ordered_json definition_json(const Function& f) {
  const Definition& d = f.definition();
  ordered_json out = {{"kind", definition_kind(d)}};
  if (d.is_reduction()) {
    const Reduction& red = *d.reduction;
    ordered_json updates = ordered_json::array();
    for (const ReductionUpdate& u : red.updates) {
      ordered_json target = ordered_json::array();
      for (const Expr& t : u.target)
        target.push_back(to_string(t));
      updates.push_back({{"op", reduce_op_name(u.op)},
                         {"target", target},
                         {"value", to_string(u.value)},
                         {"text", update_text(f, u)}});
    }
    out["reduction"] = {{"rdom", intervals_json(red.rvars, red.rdom)},
                        {"init", to_string(red.init)},
                        {"updates", updates}};
    return out;
  }
  ordered_json cases = ordered_json::array();
  for (const ir::Case& c : d.cases)
    cases.push_back({{"condition", to_string(c.condition)}, {"value", to_string(c.value)}});
  out["cases"] = cases;
  out["default"] = to_string(d.otherwise);
  if (d.boundary) out["boundary"] = boundary_text(*d.boundary);
  if (d.boundary && d.boundary->margins_inferred) {
    ordered_json margins = ordered_json::array();
    for (const Expr& m : d.boundary->margins)
      margins.push_back(to_string(m));
    out["inferred_margins"] = margins;
  }
  return out;
}

ordered_json edge_json(const EdgeDependence& e) {
  ordered_json accesses = ordered_json::array();
  for (const AccessInfo& a : e.accesses) {
    ordered_json indices = ordered_json::array();
    const auto& args = a.access.as<Access>()->args;
    for (std::size_t k = 0; k < args.size(); ++k) {
      ordered_json idx = {{"text", to_string(args[k])}, {"kind", access_kind_name(a.kinds[k])}};
      if (const auto& f = a.forms[k]) {
        ordered_json vars = ordered_json::object(), params = ordered_json::object();
        for (const auto& [n, c] : f->vars)
          vars[n] = c;
        for (const auto& [n, c] : f->params)
          params[n] = c;
        idx["form"] = {{"text", f->str()},
                       {"vars", vars},
                       {"params", params},
                       {"constant", f->constant},
                       {"divisor", f->divisor}};
      } else {
        idx["form"] = nullptr;
      }
      indices.push_back(idx);
    }
    accesses.push_back(
        {{"text", to_string(a.access)}, {"context", a.context}, {"indices", indices}});
  }
  ordered_json dims = ordered_json::array();
  for (const DimDependence& d : e.dims) {
    ordered_json j = {{"kind", dim_dependence_kind_name(d.kind)},
                      {"summary", d.str()},
                      {"uniform", d.is_uniform()},
                      {"parametric", d.parametric},
                      {"note", d.note}};
    if (d.kind == DimDependenceKind::Aligned) {
      j["consumer_var"] = d.consumer_var;
      j["consumer_dim"] = d.consumer_dim;
      j["scale"] = d.scale.str();
    }
    if (d.kind == DimDependenceKind::Aligned || d.kind == DimDependenceKind::Constant) {
      j["min_offset"] = d.min_offset.str();
      j["max_offset"] = d.max_offset.str();
      j["max_divisor"] = d.max_divisor;
    }
    dims.push_back(j);
  }
  return {{"producer", e.producer_name()},  {"producer_kind", e.producer_input ? "input" : "stage"},
          {"consumer", e.consumer->name()}, {"uniform", e.is_uniform()},
          {"accesses", accesses},           {"dims", dims}};
}

ordered_json group_json(const Group& g) {
  const GroupAlignment& a = g.alignment;
  ordered_json names = ordered_json::array();
  for (const Function* f : g.stages)
    names.push_back(f->name());
  ordered_json placements = ordered_json::array();
  for (const StageAlignment& s : a.stages)
    placements.push_back({{"stage", s.stage->name()},
                          {"common_dim", s.common_dim},
                          {"scale", s.scale},
                          {"text", s.str(a.common_dims)}});
  ordered_json deps = ordered_json::array();
  for (const UniformDependence& u : a.dependences)
    deps.push_back({{"producer", u.producer->name()},
                    {"consumer", u.consumer->name()},
                    {"lo", u.lo},
                    {"hi", u.hi},
                    {"broadcast", u.broadcast}});
  ordered_json parts = ordered_json::array();
  for (const Group& part : g.parts)
    parts.push_back(group_json(part));
  return {{"stages", names},
          {"ok", a.ok},
          {"reason", a.reason},
          {"common_dims", a.common_dims},
          {"placements", placements},
          {"dependences", deps},
          {"parts", parts}};
}

ordered_json alignment_json(const Report& r) {
  ordered_json groups = ordered_json::array();
  for (const Group& g : r.components)
    groups.push_back(group_json(g));
  return {{"whole_pipeline", r.components.size() <= 1},
          {"whole_pipeline_reason", r.whole_reason},
          {"groups", groups}};
}

} // namespace

std::string explain_text(const Pipeline& p, const ParamValues& bound) {
  const Report r = analyse(p);
  std::string out = "pipeline '" + p.name() + "': " + std::to_string(p.stages().size()) +
                    " stages, " + std::to_string(p.inputs().size()) +
                    (p.inputs().size() == 1 ? " input\n" : " inputs\n");
  text_params(out, p, bound);
  text_inputs(out, p, bound);
  heading(out, "Stages (producers first)");
  for (std::size_t i = 0; i < p.stages().size(); ++i)
    text_stage(out, p, *p.stages()[i], r.classes[i], bound);
  text_edges(out, r);
  text_alignment(out, r);
  return out;
}

std::string explain_json(const Pipeline& p, const ParamValues& bound) {
  const Report r = analyse(p);
  ordered_json params = ordered_json::array();
  for (const ParamInfo& pi : p.params()) {
    const auto it = bound.find(pi.name);
    params.push_back(
        {{"name", pi.name},
         {"type", std::string(type_name(pi.type))},
         {"value", it == bound.end() ? ordered_json(nullptr) : param_value_json(it->second)},
         {"default", pi.has_default ? param_value_json(pi.default_value) : ordered_json(nullptr)}});
  }
  ordered_json inputs = ordered_json::array();
  for (const InputImagePtr& in : p.inputs()) {
    ordered_json extents = ordered_json::array();
    for (const Expr& e : in->extents())
      extents.push_back(to_string(e));
    inputs.push_back({{"name", in->name()},
                      {"type", std::string(type_name(in->type()))},
                      {"extents", extents},
                      {"domain", box_json(try_domain(*in, bound))}});
  }
  ordered_json stages = ordered_json::array();
  for (std::size_t i = 0; i < p.stages().size(); ++i) {
    const Function& f = *p.stages()[i];
    const StageClassification& c = r.classes[i];
    ordered_json all = ordered_json::array();
    for (StageClass k : c.classes())
      all.push_back(stage_class_name(k));
    stages.push_back(
        {{"name", f.name()},
         {"type", std::string(type_name(f.type()))},
         {"vars", f.vars()},
         {"output", p.is_output(f)},
         {"declared_at", f.declared_at().str()},
         {"domain",
          {{"symbolic", intervals_json(f.vars(), f.domain())},
           {"concrete", box_json(try_domain(f, bound))}}},
         {"class",
          {{"primary", stage_class_name(c.primary)}, {"all", all}, {"reasons", c.reasons}}},
         {"definition", definition_json(f)}});
  }
  ordered_json edges = ordered_json::array();
  for (const EdgeDependence& e : r.edges)
    edges.push_back(edge_json(e));
  const ordered_json doc = {{"pipeline", p.name()}, {"params", params},
                            {"inputs", inputs},     {"stages", stages},
                            {"edges", edges},       {"alignment", alignment_json(r)}};
  return doc.dump(2) + "\n";
}

} // namespace trapeze
