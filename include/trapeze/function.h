// Stages and inputs of a pipeline: the contents behind the DSL's Func and Image.
//
// A Function is created when the user declares a Func (name, variables,
// domain, element type) and receives its definition exactly once. After that
// it never changes, so a Pipeline can share it; the one exception is a
// boundary condition without margins, whose domain the first pipeline that
// reads it widens, once (set_inferred_margins).
//
// Domain semantics: a stage is defined on its domain, a box whose bounds are
// inclusive and affine in the parameters. A definition is either
//  * a list of cases (condition, value), tried in order, plus a default value
//    for the points no case covers ("pure" = no cases, only the default), or
//  * a reduction: every point starts at `init`; then, for every point of the
//    reduction domain in lexicographic order (first variable outermost), each
//    update in turn combines its value into the element at its target index.
//    A target index is clamped into the stage's domain.
#pragma once

#include "trapeze/expr.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace trapeze {

/// An inclusive range [lo, hi] whose bounds are affine in the parameters.
struct Interval {
  Interval() = default;
  Interval(Expr lo_, Expr hi_) : lo(std::move(lo_)), hi(std::move(hi_)) {}
  Expr lo, hi;
};

namespace ir {

/// One case of a definition: where `condition` holds, the value is `value`.
struct Case {
  Expr condition; ///< bool
  Expr value;     ///< of the stage's type
};

enum class ReduceOp : std::uint8_t { Sum, Min, Max };
/// "sum", "min", "max".
const char* reduce_op_name(ReduceOp op);

/// One update of a reduction: stage(target) = op(stage(target), value).
struct ReductionUpdate {
  std::vector<Expr> target; ///< one index per stage dimension; clamped into the domain
  ReduceOp op = ReduceOp::Sum;
  Expr value; ///< of the stage's type
};

struct Reduction {
  std::vector<std::string> rvars; ///< reduction variables, outermost first
  std::vector<Interval> rdom;     ///< their ranges, inclusive, affine in the parameters
  Expr init;                      ///< over the stage's variables
  std::vector<ReductionUpdate> updates;
};

/// What made a definition a boundary condition (trapeze/boundary.h), so that
/// the text form can write it as the user did: `repeat_edge(img, [1, 1])`.
/// The cases say what it computes; this only names them.
struct BoundaryOrigin {
  std::string condition;     ///< "repeat_edge", ..., "constant_exterior"
  std::string source;        ///< the input or stage it extends
  std::vector<Expr> margins; ///< one per dimension (empty while inferred ones await a pipeline)
  Expr value;                ///< constant_exterior's value (of the stage's type)
  /// The user gave no margins: the first pipeline that reads the stage infers
  /// them (ir/boundary_margins.h) and records them in `margins`.
  bool margins_inferred = false;
};
/// As the text form writes it: "repeat_edge(img, [1, 1])",
/// "constant_exterior(img, 0.0f, [R / 2, 1])", "repeat_edge(img)" where the
/// margins are inferred.
std::string boundary_text(const BoundaryOrigin& b);
/// "[1, R / 2]": margins as boundary_text writes them.
std::string margins_text(const std::vector<Expr>& margins);
struct Definition {
  std::vector<Case> cases;
  Expr otherwise; ///< the default value (the whole definition when there are no cases)
  std::optional<Reduction> reduction;
  std::optional<BoundaryOrigin> boundary;
  bool is_reduction() const { return reduction.has_value(); }
};

/// Calls `fn` on every expression of a definition, in a fixed order: each
/// case's condition and value, the default (if any), and for a reduction its
/// domain bounds, its init, and each update's target indices then value.
void for_each_expr(const Definition& d, const std::function<void(const Expr&)>& fn);

/// A stage: the contents of a DSL Func.
class Function {
public:
  Function(std::string name, ScalarType type, std::vector<std::string> vars,
           std::vector<Interval> domain, SourceLocation declared_at);
  /// Releases the definition without recursing through the stages it reads
  /// (a chain of 100,000 stages would overflow the stack).
  ~Function();
  Function(const Function&) = delete;
  Function& operator=(const Function&) = delete;

  const std::string& name() const { return name_; }
  ScalarType type() const { return type_; }
  const std::vector<std::string>& vars() const { return vars_; }
  const std::vector<Interval>& domain() const { return domain_; }
  int dimensions() const { return static_cast<int>(vars_.size()); }
  SourceLocation declared_at() const { return declared_at_; }
  SourceLocation defined_at() const { return defined_at_; }

  bool has_definition() const { return defined_; }
  const Definition& definition() const;

  /// Sets the definition (once). Checks value types against the stage type
  /// (constants are converted; anything else must match exactly), that case
  /// conditions are bool, that expressions use only this stage's variables
  /// (and, for a reduction, its reduction variables), and that the definition
  /// does not read this stage back through any chain of stages (a cycle).
  /// Throws trapeze::Error naming the stage on any violation.
  void define(Definition def, SourceLocation where);

  /// "'blurx' (declared at unsharp.cpp:12)": how error messages name a stage.
  std::string describe() const;

  /// A boundary stage made without margins (trapeze/boundary.h) has its
  /// source's domain until the first pipeline that reads it infers them.
  bool awaits_margins() const;
  /// Its definition for given margins (one per dimension).
  using BoundaryRebuild = std::function<Definition(const std::vector<Expr>& margins)>;
  /// Marks a boundary stage just defined without margins as awaiting them;
  /// `rebuild` gives its definition once they are known (boundary.cpp).
  void await_margins(BoundaryRebuild rebuild);
  /// Widens such a stage's domain by `margins` (one per dimension, >= 0) on
  /// both sides and takes its definition for them (which records them in its
  /// BoundaryOrigin); called once, by the pipeline named `pipeline`
  /// (ir/boundary_margins.h).
  void set_inferred_margins(const std::vector<std::int64_t>& margins, const std::string& pipeline);
  /// The pipeline that inferred this stage's margins (empty if none did).
  const std::string& margins_inferred_by() const { return margins_inferred_by_; }

private:
  /// The stages from this one back to itself through `reads` (the stages its
  /// new definition reads), if they close a cycle ([this, s1, ..., sk], sk
  /// reading this), else empty.
  std::vector<const Function*> cycle_through_this(const std::vector<Function*>& reads) const;

  std::string name_;
  ScalarType type_;
  std::vector<std::string> vars_;
  std::vector<Interval> domain_;
  SourceLocation declared_at_;
  SourceLocation defined_at_;
  bool defined_ = false;
  Definition definition_;
  BoundaryRebuild rebuild_boundary_; ///< set while the margins await inference
  std::string margins_inferred_by_;
  // What lets define() find a cycle without walking every stage it reaches
  // (quadratic over a chain of definitions); see cycle_through_this().
  /// How many reads of this stage were defined while it had no definition.
  /// Only such a read can lead back to this stage once it is defined.
  std::size_t reads_before_definition_ = 0;
  /// True once every stage this one reads, directly or through others, was
  /// defined when it was: it then cannot reach a stage defined later, so a
  /// later definition never closes a cycle through it.
  bool reads_only_defined_ = false;
};

/// An input image of the pipeline: element type and extents (affine in the
/// parameters). Its domain is [0, extent-1] in every dimension; the last
/// dimension is contiguous in memory.
class InputImage {
public:
  InputImage(std::string name, ScalarType type, std::vector<Expr> extents,
             SourceLocation declared_at);
  const std::string& name() const { return name_; }
  ScalarType type() const { return type_; }
  const std::vector<Expr>& extents() const { return extents_; }
  int dimensions() const { return static_cast<int>(extents_.size()); }
  /// The domain as intervals [0, extent-1].
  std::vector<Interval> domain() const;
  SourceLocation declared_at() const { return declared_at_; }
  std::string describe() const;

private:
  std::string name_;
  ScalarType type_;
  std::vector<Expr> extents_;
  SourceLocation declared_at_;
};

} // namespace ir
} // namespace trapeze
