// compile() and CompiledPipeline: generate C++, compile or find it in the
// cache, load it, and run it on checked arguments.
#include "runtime/compiled_pipeline_impl.h"
#include "runtime/generate_source.h"
#include "trapeze/error.h"
#include "trapeze/runtime.h"

#include <cstdlib>

namespace trapeze {

namespace {

codegen::CodegenOptions codegen_options(const CompileOptions& options) {
  codegen::CodegenOptions out;
  const char* env = std::getenv("TRAPEZE_BOUNDS_CHECK");
  out.bounds_check = options.bounds_check || (env && std::string(env) == "1");
  return out;
}

const CompiledPipeline::Impl& checked(const std::shared_ptr<const CompiledPipeline::Impl>& impl) {
  if (!impl)
    throw Error("this CompiledPipeline is empty: obtain one from trapeze::compile(pipeline)");
  return *impl;
}

} // namespace

CompiledPipeline compile(const Pipeline& p, const CompileOptions& options) {
  return compile(p, cached_auto_schedule(p, options), options);
}

CompiledPipeline compile(const Pipeline& p, const Schedule& schedule,
                         const CompileOptions& options) {
  return CompiledPipeline(runtime::load_module(
      p, runtime::generate_source(p, schedule, codegen_options(options)), options));
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

const std::set<std::string>& CompiledPipeline::reassociated_sums() const {
  return checked(impl_).reassociated_sums;
}

std::size_t CompiledPipeline::retained_memory_bytes() const {
  return checked(impl_).pool->bytes_retained();
}

void CompiledPipeline::release_retained_memory() const { checked(impl_).pool->release_free(); }

} // namespace trapeze
