// Stage classification from the dependence vectors of the edges into a stage.
#include "analysis/classify.h"

#include "trapeze/ir_visitor.h"

namespace trapeze::analysis {

using namespace ir;

const char* stage_class_name(StageClass c) {
  switch (c) {
  case StageClass::PointWise: return "point-wise";
  case StageClass::Stencil: return "stencil";
  case StageClass::UpSampling: return "up-sampling";
  case StageClass::DownSampling: return "down-sampling";
  case StageClass::Reduction: return "reduction";
  case StageClass::DataDependent: return "data-dependent";
  case StageClass::Irregular: return "irregular";
  }
  return "?";
}

namespace {

// Most telling first: this order picks the primary class and orders str().
constexpr StageClass kPriority[] = {StageClass::Reduction,    StageClass::DataDependent,
                                    StageClass::Irregular,    StageClass::UpSampling,
                                    StageClass::DownSampling, StageClass::Stencil,
                                    StageClass::PointWise};

void add(StageClassification& c, StageClass k) { c.flags |= 1u << static_cast<unsigned>(k); }

} // namespace

std::vector<StageClass> StageClassification::classes() const {
  std::vector<StageClass> out;
  for (StageClass k : kPriority)
    if (has(k)) out.push_back(k);
  return out;
}

std::string StageClassification::str() const {
  std::string out;
  for (StageClass k : classes())
    out += (out.empty() ? "" : ", ") + std::string(stage_class_name(k));
  return out;
}

StageClassification classify_stage(const Function& stage, std::span<const EdgeDependence> edges) {
  StageClassification c;
  const Definition& def = stage.definition();
  if (def.is_reduction()) {
    add(c, StageClass::Reduction);
    c.reasons.push_back("the definition is a reduction");
    for (std::size_t i = 0; i < def.reduction->updates.size(); ++i)
      for (const Expr& t : def.reduction->updates[i].target)
        if (reads_memory(t)) {
          add(c, StageClass::DataDependent);
          c.reasons.push_back("update " + std::to_string(i) + " target index " + to_string(t) +
                              " reads memory");
        }
  }
  for (const EdgeDependence& e : edges) {
    if (e.consumer != &stage) continue;
    for (std::size_t k = 0; k < e.dims.size(); ++k) {
      const DimDependence& d = e.dims[k];
      const std::string dim = e.producer_name() + " dimension " + std::to_string(k) + ": ";
      switch (d.kind) {
      case DimDependenceKind::DataDependent:
        add(c, StageClass::DataDependent);
        c.reasons.push_back(dim + d.note);
        break;
      case DimDependenceKind::NonAffine:
      case DimDependenceKind::MultiVariable:
      case DimDependenceKind::Mixed:
        add(c, StageClass::Irregular);
        c.reasons.push_back(dim + d.note);
        break;
      case DimDependenceKind::Aligned: {
        const std::int64_t mag = d.scale.num < 0 ? -d.scale.num : d.scale.num;
        const bool up = mag < d.scale.den;
        const bool down = mag > d.scale.den;
        const bool shifted =
            d.scale == Rational(1) && (d.min_offset.num != 0 || d.max_offset.num != 0);
        const bool taps = d.min_offset != d.max_offset;
        // A reversed dimension or an offset that depends on the size is no regular pattern.
        const bool irregular = d.scale.num < 0 || d.parametric;
        if (up) add(c, StageClass::UpSampling);
        if (down) add(c, StageClass::DownSampling);
        if (shifted || taps) add(c, StageClass::Stencil);
        if (irregular) add(c, StageClass::Irregular);
        if (up || down || shifted || taps || irregular) c.reasons.push_back(dim + d.str());
        break;
      }
      case DimDependenceKind::Constant:
        if (d.parametric) {
          add(c, StageClass::Irregular);
          c.reasons.push_back(dim + d.str());
        }
        break;
      }
    }
  }
  if (c.flags == 0) add(c, StageClass::PointWise);
  for (StageClass k : kPriority)
    if (c.has(k)) {
      c.primary = k;
      break;
    }
  return c;
}

} // namespace trapeze::analysis
