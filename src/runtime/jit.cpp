// compile() and CompiledPipeline: generate C++, compile or find it in the
// cache, load it, and run it on checked arguments.
#include "codegen/cpp_codegen.h"
#include "runtime/compiled_pipeline_impl.h"
#include "trapeze/error.h"
#include "trapeze/runtime.h"

namespace trapeze {

namespace {

const CompiledPipeline::Impl& checked(const std::shared_ptr<const CompiledPipeline::Impl>& impl) {
  if (!impl)
    throw Error("this CompiledPipeline is empty: obtain one from trapeze::compile(pipeline)");
  return *impl;
}

// Every stage alone in an untiled group, stored in a full buffer: what the
// naive code computes (shape, parallelism and vectorization aside).
bool is_naive(const Pipeline& p, const Schedule& schedule) {
  for (const GroupSchedule& g : schedule.groups)
    if (g.stages.size() != 1 || !g.tile_sizes.empty() || !g.inner_tile_sizes.empty()) return false;
  for (const auto& stage : p.stages())
    if (schedule.storage_of(p, stage->name()) != Storage::Full) return false;
  return true;
}

} // namespace

CompiledPipeline compile(const Pipeline& p, const CompileOptions& options) {
  return CompiledPipeline(runtime::load_module(p, codegen::generate_cpp(p), options));
}

CompiledPipeline compile(const Pipeline& p, const Schedule& schedule,
                         const CompileOptions& options) {
  schedule.validate(p);
  // Placeholder until tiled lowering lands: only the naive schedule compiles.
  if (!is_naive(p, schedule)) throw Error("tiled schedules are not supported by this build yet");
  return compile(p, options);
}

void CompiledPipeline::run(const ParamValues& params, const BufferMap& inputs, BufferMap& outputs,
                           int threads) const {
  const Impl& impl = checked(impl_);
  const ParamValues bound = impl.pipeline.bind(params);
  check_arguments(impl.pipeline, bound, inputs, outputs);
  runtime::invoke(impl, runtime::marshal_arguments(impl.pipeline, bound, inputs, outputs), threads);
}

BufferMap CompiledPipeline::run(const ParamValues& params, const BufferMap& inputs,
                                int threads) const {
  const Impl& impl = checked(impl_);
  const ParamValues bound = impl.pipeline.bind(params);
  BufferMap outputs = allocate_outputs(impl.pipeline, bound);
  check_arguments(impl.pipeline, bound, inputs, outputs);
  runtime::invoke(impl, runtime::marshal_arguments(impl.pipeline, bound, inputs, outputs), threads);
  return outputs;
}

const std::string& CompiledPipeline::source() const { return checked(impl_).source; }

const std::string& CompiledPipeline::library_path() const { return checked(impl_).library_path; }

bool CompiledPipeline::from_cache() const { return checked(impl_).from_cache; }

} // namespace trapeze
