// Passing a run's arguments to generated code (the ABI of codegen/abi.h).
#include "runtime/compiled_pipeline_impl.h"
#include "trapeze/error.h"

namespace trapeze::runtime {

namespace {

codegen::BufferArgument describe_buffer(const Buffer& b, void* data) {
  return {data, b.extents().data(), b.strides().data(), b.dimensions(),
          static_cast<std::int32_t>(b.type())};
}

} // namespace

CallArguments marshal_arguments(const Pipeline& p, const ParamValues& bound,
                                const BufferMap& inputs, BufferMap& outputs) {
  CallArguments args;
  args.params.reserve(p.params().size());
  for (const ParamInfo& info : p.params()) {
    const auto it = bound.find(info.name);
    TRAPEZE_ASSERT(it != bound.end(), "parameter '" + info.name + "' is not bound");
    codegen::ParamSlot slot{};
    if (is_float(info.type))
      slot.f = it->second.f;
    else
      slot.i = it->second.i;
    args.params.push_back(slot);
  }
  args.inputs.reserve(p.inputs().size());
  for (const auto& image : p.inputs()) {
    const auto it = inputs.find(image->name());
    TRAPEZE_ASSERT(it != inputs.end() && it->second.defined(),
                   "input '" + image->name() + "' was not checked");
    const Buffer& b = it->second;
    args.inputs.push_back(describe_buffer(b, const_cast<void*>(b.raw())));
  }
  args.outputs.reserve(p.outputs().size());
  for (const auto& stage : p.outputs()) {
    const auto it = outputs.find(stage->name());
    TRAPEZE_ASSERT(it != outputs.end() && it->second.defined(),
                   "output '" + stage->name() + "' was not checked");
    args.outputs.push_back(describe_buffer(it->second, it->second.raw()));
  }
  return args;
}

void invoke(const CompiledPipeline::Impl& impl, const CallArguments& args, int threads) {
  const BufferPool::Run run(*impl.pool);
  const int status = impl.entry(args.params.data(), args.inputs.data(), args.outputs.data(),
                                threads, impl.pool->allocator());
  if (status != 0) {
    const char* why = impl.error ? impl.error() : nullptr;
    throw Error(
        "running the compiled pipeline '" + impl.pipeline.name() + "' (" + impl.library_path +
        ") failed: " +
        (why && *why ? std::string(why) : "its entry function returned " + std::to_string(status)));
  }
}

} // namespace trapeze::runtime
