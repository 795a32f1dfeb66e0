// Dependence vectors: per edge, how each producer dimension is indexed.
#include "analysis/dependence.h"

#include "trapeze/ir_visitor.h"

#include <algorithm>

namespace trapeze::analysis {

using namespace ir;

const char* dim_dependence_kind_name(DimDependenceKind kind) {
  switch (kind) {
  case DimDependenceKind::Aligned: return "aligned";
  case DimDependenceKind::Constant: return "constant";
  case DimDependenceKind::MultiVariable: return "multi-variable";
  case DimDependenceKind::Mixed: return "mixed";
  case DimDependenceKind::DataDependent: return "data-dependent";
  case DimDependenceKind::NonAffine: return "non-affine";
  }
  return "?";
}

namespace {

std::string offset_text(const Rational& lo, const Rational& hi, bool after_term) {
  if (lo == hi) {
    if (!after_term) return lo.str();
    if (lo.num == 0) return "";
    return (lo.num < 0 ? " - " : " + ") + Rational(lo.num < 0 ? -lo.num : lo.num, lo.den).str();
  }
  const std::string range = "[" + lo.str() + ", " + hi.str() + "]";
  return after_term ? " + " + range : range;
}

std::string scaled_var(const Rational& scale, const std::string& var) {
  std::string out;
  const std::int64_t mag = scale.num < 0 ? -scale.num : scale.num;
  if (scale.num < 0) out += "-";
  if (mag != 1) out += std::to_string(mag) + "*";
  out += var;
  if (scale.den != 1) out += "/" + std::to_string(scale.den);
  return out;
}

} // namespace

std::string DimDependence::str() const {
  std::string out;
  switch (kind) {
  case DimDependenceKind::Aligned:
    out = scaled_var(scale, consumer_var) + offset_text(min_offset, max_offset, true);
    break;
  case DimDependenceKind::Constant: out = offset_text(min_offset, max_offset, false); break;
  default: return unclamped ? "clamped " + unclamped->str() : dim_dependence_kind_name(kind);
  }
  if (parametric) out += " + params";
  return out;
}

const std::string& EdgeDependence::producer_name() const {
  return producer_stage ? producer_stage->name() : producer_input->name();
}

int EdgeDependence::producer_dimensions() const {
  return producer_stage ? producer_stage->dimensions() : producer_input->dimensions();
}

bool EdgeDependence::is_uniform() const {
  return std::all_of(dims.begin(), dims.end(),
                     [](const DimDependence& d) { return d.is_uniform(); });
}

namespace {

// `index` without its clamps: min(e, b) and max(e, b), where the bound b has
// no variable (a boundary condition's clamp), give e; so does an integer cast
// of a clamp.
Expr without_clamps(const Expr& index) {
  // Between an int32 variable and an int64 bound the clamp has a widening cast.
  if (const auto* c = index.as<Cast>()) {
    const Expr inner = without_clamps(c->value);
    return inner.same_as(c->value) ? index : inner;
  }
  const auto* b = index.as<Binary>();
  if (!b || (b->op != BinaryOp::Min && b->op != BinaryOp::Max)) return index;
  const auto is_bound = [](const Expr& e) {
    const std::optional<AffineIndex> f = affine_index(e);
    return f && f->vars.empty();
  };
  if (is_bound(b->b)) return without_clamps(b->a);
  if (is_bound(b->a)) return without_clamps(b->b);
  return index;
}

// Order in which several problems in one dimension are reported: the worst wins.
int severity(DimDependenceKind k) {
  switch (k) {
  case DimDependenceKind::Aligned:
  case DimDependenceKind::Constant: return 0;
  case DimDependenceKind::Mixed: return 1;
  case DimDependenceKind::MultiVariable: return 2;
  case DimDependenceKind::NonAffine: return 3;
  case DimDependenceKind::DataDependent: return 4;
  }
  return 0;
}

class EdgeCollector {
public:
  explicit EdgeCollector(const Function& consumer) : consumer_(consumer) {}

  std::vector<EdgeDependence> collect() {
    const Definition& d = consumer_.definition();
    for (std::size_t i = 0; i < d.cases.size(); ++i) {
      scan(d.cases[i].condition, "case " + std::to_string(i) + " condition");
      scan(d.cases[i].value, "case " + std::to_string(i));
    }
    if (d.otherwise.defined()) scan(d.otherwise, d.cases.empty() ? "value" : "default");
    if (d.reduction) {
      scan(d.reduction->init, "init");
      for (std::size_t i = 0; i < d.reduction->updates.size(); ++i) {
        const ReductionUpdate& u = d.reduction->updates[i];
        for (const Expr& t : u.target)
          scan(t, "update " + std::to_string(i) + " target");
        scan(u.value, "update " + std::to_string(i));
      }
    }
    for (EdgeDependence& e : edges_)
      summarize(e);
    return std::move(edges_);
  }

private:
  const Function& consumer_;
  std::vector<EdgeDependence> edges_;

  EdgeDependence& edge_for(const Access& a) {
    for (EdgeDependence& e : edges_)
      if ((a.func && e.producer_stage == a.func.get()) ||
          (a.image && e.producer_input == a.image.get()))
        return e;
    EdgeDependence& e = edges_.emplace_back();
    e.consumer = &consumer_;
    e.producer_stage = a.func.get();
    e.producer_input = a.image.get();
    return e;
  }

  void scan(const Expr& e, const std::string& context) {
    if (!e.defined()) return;
    for_each_node(e, [&](const Expr& n) {
      const auto* a = n.as<Access>();
      if (!a) return;
      AccessInfo info;
      info.access = n;
      info.context = context;
      for (const Expr& arg : a->args) {
        std::optional<AffineIndex> f = affine_index(arg);
        if (f) {
          info.kinds.push_back(AccessKind::Affine);
          info.unclamped_forms.push_back(f);
        } else {
          info.kinds.push_back(reads_memory(arg) ? AccessKind::DataDependent
                                                 : AccessKind::NonAffine);
          info.unclamped_forms.push_back(info.kinds.back() == AccessKind::NonAffine
                                             ? affine_index(without_clamps(arg))
                                             : std::nullopt);
        }
        info.forms.push_back(std::move(f));
      }
      edge_for(*a).accesses.push_back(std::move(info));
    });
  }

  int stage_dim(const std::string& var) const {
    const auto& vars = consumer_.vars();
    const auto it = std::find(vars.begin(), vars.end(), var);
    return it == vars.end() ? -1 : static_cast<int>(it - vars.begin());
  }

  // Combines the accesses of `e` into one DimDependence per producer dimension.
  void summarize(EdgeDependence& e) const {
    const int n = e.producer_dimensions();
    e.dims.assign(static_cast<std::size_t>(n), DimDependence{});
    for (int k = 0; k < n; ++k) {
      DimDependence& dim = e.dims[static_cast<std::size_t>(k)];
      dim = summarize_dim(e, k, false);
      if (dim.kind != DimDependenceKind::NonAffine) continue;
      const auto ku = static_cast<std::size_t>(k);
      if (!std::all_of(e.accesses.begin(), e.accesses.end(),
                       [&](const AccessInfo& a) { return a.unclamped_forms[ku].has_value(); }))
        continue;
      DimDependence unclamped = summarize_dim(e, k, true);
      if (unclamped.kind == DimDependenceKind::Aligned ||
          unclamped.kind == DimDependenceKind::Constant)
        dim.unclamped = std::make_shared<const DimDependence>(std::move(unclamped));
    }
  }

  // Dimension k of `e` over all its accesses, from their forms or, with
  // `unclamped`, from their forms without clamps (every access has one).
  DimDependence summarize_dim(const EdgeDependence& e, int k, bool unclamped) const {
    const auto ku = static_cast<std::size_t>(k);
    DimDependence dim;
    bool first = true;
    for (const AccessInfo& a : e.accesses) {
      DimDependence one;
      if (!unclamped && a.kinds[ku] != AccessKind::Affine) {
        one.kind = a.kinds[ku] == AccessKind::DataDependent ? DimDependenceKind::DataDependent
                                                            : DimDependenceKind::NonAffine;
        one.note = std::string("index ") + to_string(access_arg(a, k)) + " of " + describe(a) +
                   " is " + access_kind_name(a.kinds[ku]);
      } else {
        const AffineIndex& f = unclamped ? *a.unclamped_forms[ku] : *a.forms[ku];
        one.parametric = !f.parameter_free();
        one.min_offset = one.max_offset = f.offset();
        one.max_divisor = f.divisor;
        if (f.vars.size() > 1) {
          one.kind = DimDependenceKind::MultiVariable;
          one.note = "index " + f.str() + " of " + describe(a) + " combines several variables";
        } else if (f.vars.size() == 1) {
          one.kind = DimDependenceKind::Aligned;
          one.consumer_var = f.vars[0].first;
          one.consumer_dim = stage_dim(one.consumer_var);
          one.scale = f.scale(one.consumer_var);
        } else {
          one.kind = DimDependenceKind::Constant;
        }
      }
      if (first) {
        dim = std::move(one);
        if (dim.kind == DimDependenceKind::Aligned || dim.kind == DimDependenceKind::Constant)
          dim.note.clear();
        first = false;
        continue;
      }
      merge(dim, one, a);
    }
    return dim;
  }

  static const Expr& access_arg(const AccessInfo& a, int k) {
    return a.access.as<Access>()->args[static_cast<std::size_t>(k)];
  }

  // "blurx(x, y - 1) (case 0)": an access for notes (built only when a note is made).
  static std::string describe(const AccessInfo& a) {
    return to_string(a.access) + " (" + a.context + ")";
  }

  static void merge(DimDependence& into, const DimDependence& one, const AccessInfo& a) {
    into.parametric = into.parametric || one.parametric;
    if (severity(one.kind) > severity(into.kind)) {
      const bool parametric = into.parametric;
      into = one;
      into.parametric = parametric;
      return;
    }
    if (severity(into.kind) > 0) return; // already worse than this access
    const bool same_shape =
        one.kind == into.kind && one.consumer_var == into.consumer_var && one.scale == into.scale;
    if (!same_shape) {
      const auto shape = [](const DimDependence& d) {
        return d.kind == DimDependenceKind::Constant ? std::string("a constant")
                                                     : scaled_var(d.scale, d.consumer_var);
      };
      into.note = "access " + describe(a) + " uses " + shape(one) +
                  " where an earlier access uses " + shape(into);
      into.kind = DimDependenceKind::Mixed;
      return;
    }
    if (one.min_offset < into.min_offset) into.min_offset = one.min_offset;
    if (into.max_offset < one.max_offset) into.max_offset = one.max_offset;
    into.max_divisor = std::max(into.max_divisor, one.max_divisor);
  }
};

} // namespace

std::vector<EdgeDependence> consumer_dependences(const Function& consumer) {
  return EdgeCollector(consumer).collect();
}

std::vector<EdgeDependence> dependences(const Pipeline& p) {
  std::vector<EdgeDependence> out;
  for (const FunctionPtr& f : p.stages()) {
    std::vector<EdgeDependence> edges = consumer_dependences(*f);
    std::move(edges.begin(), edges.end(), std::back_inserter(out));
  }
  return out;
}

} // namespace trapeze::analysis
