// A pipeline: the DAG of stages reachable from its outputs.
#pragma once

#include "trapeze/function.h"

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace trapeze {

class Func; // dsl.h: a Pipeline is built from the DSL's stages

/// A run-time value of one parameter.
struct ParamValue {
  ParamValue() = default;
  ParamValue(int v) : is_float(false), i(v), f(v) {}
  ParamValue(std::int64_t v) : is_float(false), i(v), f(static_cast<double>(v)) {}
  // i is v truncated where int64 holds it, else 0 (the cast would be undefined).
  ParamValue(double v)
      : is_float(true), i(v > -9.3e18 && v < 9.3e18 ? static_cast<std::int64_t>(v) : 0), f(v) {}
  bool is_float = false;
  std::int64_t i = 0;
  double f = 0;
};
using ParamValues = std::map<std::string, ParamValue>;

/// A declared parameter of a pipeline.
struct ParamInfo {
  std::string name;
  ScalarType type = ScalarType::Int64;
  bool has_default = false;
  ParamValue default_value;
  /// The values an int64 parameter may take (inclusive; nullopt: unbounded).
  /// bind() rejects others, and the compiler relies on them: a multigrid
  /// pipeline declares its coarsest size n >= 1, and its boundary cases are
  /// then ordered for every n it accepts.
  std::optional<std::int64_t> min, max;
};

class Pipeline {
public:
  /// Collects every stage and input reachable from `outputs`, checks that
  /// every stage is defined and that names are unique, and orders the stages
  /// topologically (producers first; deterministic). Throws trapeze::Error.
  explicit Pipeline(const std::vector<Func>& outputs, std::string name = "pipeline");
  Pipeline(const std::vector<ir::FunctionPtr>& outputs, std::string name);

  const std::string& name() const { return name_; }
  /// All stages, producers before consumers.
  const std::vector<ir::FunctionPtr>& stages() const { return stages_; }
  const std::vector<ir::FunctionPtr>& outputs() const { return outputs_; }
  /// Input images in order of first use.
  const std::vector<ir::InputImagePtr>& inputs() const { return inputs_; }
  /// Parameters, sorted by name.
  const std::vector<ParamInfo>& params() const { return params_; }

  bool is_output(const ir::Function& f) const;
  /// The position of `f` in stages(), or nullopt if it is not a stage of the pipeline.
  std::optional<std::size_t> stage_index(const ir::Function& f) const;
  bool has_stage(std::string_view name) const;
  /// The stage with this name; throws trapeze::Error if there is none.
  const ir::FunctionPtr& stage(std::string_view name) const;
  const ir::InputImagePtr& input(std::string_view name) const;
  /// The stages that read `f` (in topological order).
  std::vector<ir::FunctionPtr> consumers(const ir::Function& f) const;
  /// The stages and images `f` reads, each once, in order of first access.
  std::vector<ir::FunctionPtr> producer_stages(const ir::Function& f) const;
  std::vector<ir::InputImagePtr> producer_inputs(const ir::Function& f) const;

  /// Default parameter values (used by `trapeze run` when a value is not given).
  void set_default(const std::string& param, ParamValue value);
  /// The range of an int64 parameter (see ParamInfo::min). Throws
  /// trapeze::Error for an unknown or float parameter, min > max, or a default
  /// outside the range.
  void set_range(const std::string& param, std::optional<std::int64_t> min,
                 std::optional<std::int64_t> max);
  /// `given` completed with the defaults; throws if a parameter has neither,
  /// if a value of the wrong kind (float for an int64 parameter) is given, or
  /// if a value lies outside its parameter's range.
  ParamValues bind(const ParamValues& given) const;
  /// Whether every parameter has a value in `given` or a default, so that
  /// bind(given) finds no parameter missing.
  bool gives_every_param(const ParamValues& given) const;

private:
  /// Fills the look-ups below from stages_, inputs_ and outputs_.
  void index_stages();

  std::string name_;
  std::vector<ir::FunctionPtr> stages_;
  std::vector<ir::FunctionPtr> outputs_;
  std::vector<ir::InputImagePtr> inputs_;
  std::vector<ParamInfo> params_;
  // Look-ups computed once, so that the questions above cost O(1) each
  // (asked once per stage, they would otherwise make a pass quadratic).
  std::unordered_map<const ir::Function*, std::size_t> stage_index_;
  std::unordered_map<std::string, std::size_t> stage_by_name_;
  std::unordered_map<std::string, std::size_t> input_by_name_;
  std::unordered_set<const ir::Function*> output_set_;
  std::vector<std::vector<std::size_t>> consumers_; ///< per stage, its readers' indices
};

/// Evaluates an int64 expression of parameters and constants (a bound or an
/// extent); throws trapeze::Error naming `what` if a parameter is missing or
/// the expression refers to a variable.
std::int64_t evaluate_int(const Expr& e, const ParamValues& params, std::string_view what = {});

/// The largest magnitude of an index: every domain bound and input extent
/// lies in [-max_index, max_index]. The generated code counts its loops in 32
/// bits, and the margin to 2^31 covers the offsets and tile arithmetic around
/// a bound; a run with parameter values beyond it is an error, never a loop
/// that wraps (docs/dsl.md, "Sizes").
constexpr std::int64_t max_index = std::int64_t{1} << 30;

/// The largest buffer, in bytes, whose size trapeze computes: beyond it a byte
/// count could overflow int64, so it is an error before anything is allocated.
constexpr std::int64_t max_buffer_bytes = std::int64_t{1} << 56;

/// The bytes of a buffer of `type` with these (non-negative) extents, or
/// nullopt when they exceed max_buffer_bytes. The one byte count that the
/// size checks, the interpreter and Buffer share.
std::optional<std::int64_t> buffer_bytes(ScalarType type, std::span<const std::int64_t> extents);

/// "R=3, C=10": the parameters that `exprs` read, in order of first
/// appearance, with their values in `bound` ("?" where unbound); empty when
/// the expressions read no parameter. Error messages name sizes with it.
std::string param_bindings_text(const std::vector<Expr>& exprs, const ParamValues& bound);

/// A box of concrete inclusive bounds, one [lo, hi] per dimension.
struct Box {
  std::vector<std::int64_t> lo, hi;
  int dimensions() const { return static_cast<int>(lo.size()); }
  bool empty() const;
  std::int64_t extent(int d) const {
    return hi[static_cast<std::size_t>(d)] - lo[static_cast<std::size_t>(d)] + 1;
  }
  /// "[0, 2] x [2, 65]".
  std::string str() const;
};

/// The concrete domain of a stage or an input for bound parameter values.
Box concrete_domain(const ir::Function& f, const ParamValues& params);
Box concrete_domain(const ir::InputImage& image, const ParamValues& params);

/// A box of symbolic bounds (a reduction domain, a demanded box, a case's
/// box) for bound parameter values; evaluate_int's error names `what`.
Box concrete_box(const std::vector<Interval>& box, const ParamValues& params,
                 std::string_view what);

} // namespace trapeze
