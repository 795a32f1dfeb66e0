// Running a pipeline: argument checking, the reference interpreter, and the
// JIT (generated C++ compiled by the system compiler and loaded with dlopen).
#pragma once

#include "trapeze/autoschedule.h"
#include "trapeze/buffer.h"
#include "trapeze/pipeline.h"
#include "trapeze/schedule.h"

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace trapeze {

/// Buffers by input or output name.
using BufferMap = std::map<std::string, Buffer>;

/// Checks that the bound parameter values give every input, stage and
/// reduction a non-empty domain within +-max_index whose whole box fits in
/// max_buffer_bytes, evaluating every bound without overflow. Every run,
/// allocate_outputs and the interpreter check this first; call it before
/// making inputs of the pipeline's sizes. Throws trapeze::Error naming the
/// input or stage, the dimension, the bounds and the parameter values.
void check_sizes(const Pipeline& p, const ParamValues& bound);

/// The buffer an output stage is written to: its extents are those of the
/// stage's domain, and element (i0, i1, ...) holds the point (lo0+i0, lo1+i1, ...).
Buffer allocate_output(const Pipeline& p, const ir::Function& output, const ParamValues& bound);
BufferMap allocate_outputs(const Pipeline& p, const ParamValues& bound);

/// Checks a run's arguments: every parameter bound, every domain non-empty,
/// every input and output present with the right element type and extents,
/// and every affine access inside its producer's domain. Throws trapeze::Error
/// naming the parameter, buffer, or stage and access.
void check_arguments(const Pipeline& p, const ParamValues& bound, const BufferMap& inputs,
                     const BufferMap& outputs);

/// The reference interpreter: evaluates every stage over its full domain, in
/// topological order, exactly as expr.h and function.h define. The oracle of
/// every correctness test.
BufferMap interpret(const Pipeline& p, const ParamValues& params, const BufferMap& inputs);

/// The first difference found by compare_buffers, and a summary of all.
struct BufferMismatch {
  std::vector<std::int64_t> index; ///< buffer index of the first differing element
  double expected = 0, actual = 0;
  std::int64_t count = 0; ///< number of differing elements
  double max_error = 0;   ///< largest error, relative to the buffer's largest magnitude
  /// "element [1][20][33]: expected 0.5, got 0.49 (3 elements differ, largest error 0.02)".
  std::string str() const;
};

/// Compares two buffers of the same type and extents. Integers compare
/// exactly. Floats with tolerance 0 compare bit for bit, except that every
/// NaN equals every NaN (and +0 equals -0); with a tolerance > 0, each value
/// within tolerance * the largest |expected| of the buffer (the error bound of
/// a float reduction, whose rounding scales with the magnitudes it adds), equal
/// infinities equal. nullopt if they agree. Throws trapeze::Error if the types
/// or extents differ.
std::optional<BufferMismatch> compare_buffers(const Buffer& expected, const Buffer& actual,
                                              double tolerance);

/// The tolerance that compare_buffers must use for `output` of `p` compiled
/// with the JIT's default flags, where the code adds the float sums
/// `reassociated` (CompiledPipeline::reassociated_sums()) in another order
/// than their definitions: 0 (bit for bit) unless one of them feeds `output`;
/// then `tolerance`. Everything else the generated code computes exactly as
/// the interpreter: no contraction into fused multiply-adds, the same order
/// of operations, sqrt, floor, ceil and abs exact, and exp, log, sin, cos and
/// pow the C library's own calls, never folded by the compiler (docs/dsl.md,
/// "Float results").
double output_tolerance(const Pipeline& p, const ir::Function& output,
                        const std::set<std::string>& reassociated, double tolerance);

/// Compares every output of `p`, each with output_tolerance: the first
/// output that differs and how, or nullopt.
std::optional<std::pair<std::string, BufferMismatch>>
compare_outputs(const Pipeline& p, const BufferMap& expected, const BufferMap& actual,
                const std::set<std::string>& reassociated, double reduction_tolerance);

/// How the JIT compiles. Empty fields take the defaults shown.
struct CompileOptions {
  std::string compiler; ///< $CXX, else "c++"
  /// $TRAPEZE_CXXFLAGS, else "-O3 -march=native -fopenmp -ffp-contract=off -fno-trapping-math"
  /// and, where MachineModel::vector_gathers is false, GCC's flag against gathers (docs/jit.md).
  /// Without contraction into fused multiply-adds, float32 code rounds after every operation
  /// exactly as the interpreter does, so a comparison such as unsharp's threshold cannot flip
  /// between the two. Flags that allow contraction (-ffp-contract=fast) are faster on compute-bound
  /// stages and match the interpreter within the stated tolerance, except at such discontinuities.
  /// -fno-trapping-math changes no value (trapeze does not read floating-point exception flags) but
  /// lets GCC compute both values of a select and blend them, which a loop must do to vectorize.
  std::string flags;
  std::string
      cache_dir; ///< $TRAPEZE_CACHE_DIR, else $XDG_CACHE_HOME/trapeze, else ~/.cache/trapeze
  std::uint64_t cache_limit_bytes = 512ull << 20; ///< least recently used entries go first
  /// A bounds-checked build (also on when $TRAPEZE_BOUNDS_CHECK is 1): every
  /// buffer and scratchpad access of the generated code is checked against its
  /// allocation, and the first one outside it makes run() throw a
  /// trapeze::Error naming the stage, the buffer, the point and the allocation.
  /// For tests and debugging: the checks stop most loops from vectorizing.
  bool bounds_check = false;
  /// How compile(p) and emit_aot(p, dir) choose a schedule when none is given:
  /// the dp scheduler by default (docs/autoschedule.md), with its estimates.
  AutoScheduleOptions scheduling;
};

/// A compiled pipeline. Cheap to copy; run() is thread-safe and may be called
/// from several threads at once.
class CompiledPipeline {
public:
  struct Impl;
  CompiledPipeline() = default;
  explicit CompiledPipeline(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}

  /// Runs on the given buffers (checked with check_arguments first).
  /// threads <= 0 means OpenMP's default.
  void run(const ParamValues& params, const BufferMap& inputs, BufferMap& outputs,
           int threads = 0) const;
  /// Allocates the outputs, runs, and returns them.
  BufferMap run(const ParamValues& params, const BufferMap& inputs, int threads = 0) const;

  /// The generated C++ source.
  const std::string& source() const;
  /// Path of the loaded shared object (in the cache).
  const std::string& library_path() const;
  /// True if the shared object came from the cache without compiling.
  bool from_cache() const;
  /// The float sums (reductions) whose additions the code runs in another
  /// order than their definitions, to run them in parallel: the stages whose
  /// values may differ from the interpreter's (output_tolerance).
  const std::set<std::string>& reassociated_sums() const;

  /// Intermediate buffers are kept between runs (and shared by copies), so
  /// that repeated runs do not map and page-fault fresh memory each time;
  /// when no run is in progress, the blocks the last run did not use are
  /// returned to the system. The bytes kept now:
  std::size_t retained_memory_bytes() const;
  /// Returns the kept memory to the system (runs in progress are unaffected).
  void release_retained_memory() const;

private:
  std::shared_ptr<const Impl> impl_;
};

/// The machine the automatic schedulers plan for when none is given
/// (AutoScheduleOptions::machine unset): MachineModel::host() with its
/// run_bandwidth measured on this machine (about half a second) the first
/// time and kept in the cache directory (<cache dir>/machine/, as
/// CompileOptions::cache_dir resolves), so that every process schedules for
/// the same figures. `remeasure` measures again and replaces what was kept
/// (`trapeze machine --measure`). A cache directory that cannot be written
/// keeps the measurement for this process only.
MachineModel host_machine(const CompileOptions& options = {}, bool remeasure = false);

/// auto_schedule(p, options.scheduling) through a cache beside the JIT's
/// (<cache dir>/schedules/): the same pipeline, scheduler options and machine
/// give the same schedule, so a second call reads it instead of searching
/// again. `from_cache` (if given) says whether it did. An unset machine is
/// host_machine(options).
Schedule cached_auto_schedule(const Pipeline& p, const CompileOptions& options = {},
                              bool* from_cache = nullptr);

/// Generates C++ for the pipeline under the schedule options.scheduling
/// chooses (cached_auto_schedule: dp by default), compiles (or finds it in
/// the cache), loads it. A failed compile throws trapeze::Error with the
/// compiler's message and the path of the kept source.
CompiledPipeline compile(const Pipeline& p, const CompileOptions& options = {});
/// The same with a given schedule (validated first).
CompiledPipeline compile(const Pipeline& p, const Schedule& schedule,
                         const CompileOptions& options = {});

/// Ahead-of-time output: writes DIR/<name>.h and DIR/<name>.cpp, which a user
/// compiles into their own program (with OpenMP). The header declares the
/// entry function with the same calling convention as the JIT's (see
/// docs/aot.md). Returns the two paths. The schedule is the one
/// cached_auto_schedule(p, options) chooses.
std::vector<std::string> emit_aot(const Pipeline& p, const std::string& dir,
                                  const CompileOptions& options = {});
/// The same with a schedule (validated first).
std::vector<std::string> emit_aot(const Pipeline& p, const Schedule& schedule,
                                  const std::string& dir);

} // namespace trapeze
