// What a CompiledPipeline holds, how generated code is loaded into one, and
// how a run's arguments are passed to the entry function (codegen/abi.h).
#pragma once

#include "codegen/abi.h"
#include "codegen/cpp_codegen.h"
#include "runtime/buffer_pool.h"
#include "runtime/shared_library.h"
#include "trapeze/runtime.h"

#include <memory>
#include <set>
#include <string>
#include <vector>

namespace trapeze {

namespace runtime {
/// The entry function of generated code (codegen/abi.h).
using EntryFunction = int (*)(const codegen::ParamSlot* params,
                              const codegen::BufferArgument* inputs,
                              const codegen::BufferArgument* outputs, int num_threads,
                              const codegen::Allocator* allocator);
/// <entry>_signature() and <entry>_error().
using SignatureFunction = const char* (*)();
using ErrorFunction = const char* (*)();
} // namespace runtime

/// Immutable once built, so copies of a CompiledPipeline share it and may run
/// on several threads at once.
struct CompiledPipeline::Impl {
  Impl(Pipeline p, std::string src) : pipeline(std::move(p)), source(std::move(src)) {}

  Pipeline pipeline;
  std::string source;
  std::set<std::string> reassociated_sums; ///< codegen::CppModule's
  std::string library_path;
  bool from_cache = false;
  /// Keeps the shared object loaded as long as a copy of the pipeline lives.
  std::shared_ptr<const runtime::SharedLibrary> library;
  runtime::EntryFunction entry = nullptr;
  /// Why the calling thread's last call of `entry` failed.
  runtime::ErrorFunction error = nullptr;
  /// Intermediate buffers kept between runs (shared by concurrent runs; the
  /// pool is thread-safe, hence usable through a const Impl).
  std::shared_ptr<runtime::BufferPool> pool = std::make_shared<runtime::BufferPool>();
};

namespace runtime {

/// Compiles `module` (or finds it in the cache), loads it and checks that its
/// signature is codegen::signature(p). A shared object that cannot be loaded
/// or whose signature differs is rebuilt once; if it still fails, throws.
std::shared_ptr<const CompiledPipeline::Impl>
load_module(const Pipeline& p, const codegen::CppModule& module, const CompileOptions& options);

/// The argument arrays of one call of the entry function. The buffer
/// descriptors point into the Buffers they were made from, which must
/// outlive the call.
struct CallArguments {
  std::vector<codegen::ParamSlot> params;       ///< Pipeline::params() order
  std::vector<codegen::BufferArgument> inputs;  ///< Pipeline::inputs() order
  std::vector<codegen::BufferArgument> outputs; ///< Pipeline::outputs() order
};

/// Lays out bound parameters and buffers for the entry function. The buffers
/// must have been checked (check_arguments): a missing one is a bug.
CallArguments marshal_arguments(const Pipeline& p, const ParamValues& bound,
                                const BufferMap& inputs, BufferMap& outputs);

/// Calls the entry function; a nonzero return throws trapeze::Error.
void invoke(const CompiledPipeline::Impl& impl, const CallArguments& args, int threads);

} // namespace runtime
} // namespace trapeze
