// Loading generated code: cache, dlopen, symbol and signature checks.
#include "runtime/compiled_pipeline_impl.h"
#include "runtime/jit_cache.h"
#include "trapeze/error.h"

namespace trapeze::runtime {

namespace {

/// Why a loaded shared object cannot be used, or "" if it can.
std::string check_library(const SharedLibrary& library, const codegen::CppModule& module,
                          const std::string& expected, EntryFunction& entry, ErrorFunction& error) {
  const std::string signature_symbol = module.entry_symbol + "_signature";
  const std::string error_symbol = module.entry_symbol + "_error";
  entry = reinterpret_cast<EntryFunction>(library.symbol(module.entry_symbol));
  error = reinterpret_cast<ErrorFunction>(library.symbol(error_symbol));
  const auto signature = reinterpret_cast<SignatureFunction>(library.symbol(signature_symbol));
  if (!entry || !signature || !error)
    return "it does not define '" + module.entry_symbol + "', '" + signature_symbol + "' and '" +
           error_symbol + "'";
  const char* found = signature();
  if (!found || expected != found)
    return "its signature is '" + std::string(found ? found : "(null)") + "', expected '" +
           expected + "'";
  return {};
}

} // namespace

std::shared_ptr<const CompiledPipeline::Impl>
load_module(const Pipeline& p, const codegen::CppModule& module, const CompileOptions& options) {
  const std::string expected = codegen::signature(p);
  TRAPEZE_ASSERT(module.signature == expected,
                 "the code generator's signature '" + module.signature +
                     "' differs from the pipeline's '" + expected + "'");
  const std::string what = "pipeline '" + p.name() + "'";
  std::string problem;
  for (CacheMode mode : {CacheMode::UseCached, CacheMode::Rebuild}) {
    const CacheEntry entry = compile_to_cache(module.source, options, what, mode);
    std::shared_ptr<const SharedLibrary> library;
    try {
      library = SharedLibrary::open(entry.library_path);
    } catch (const Error&) {
      // Evicted by another process between lookup and load, or corrupt in a
      // way its hash did not show: rebuild once.
      if (entry.from_cache) continue;
      throw;
    }
    EntryFunction entry_function = nullptr;
    ErrorFunction error_function = nullptr;
    problem = check_library(*library, module, expected, entry_function, error_function);
    if (!problem.empty()) continue; // the library is closed before the rebuild reloads the path
    auto impl = std::make_shared<CompiledPipeline::Impl>(p, module.source);
    impl->reassociated_sums = module.reassociated_sums;
    impl->library_path = entry.library_path;
    impl->from_cache = entry.from_cache;
    impl->library = std::move(library);
    impl->entry = entry_function;
    impl->error = error_function;
    return impl;
  }
  throw Error("the compiled " + what + " cannot be used: " + problem +
              " (a stale copy may be loaded in this process, or the cache is shared with an "
              "incompatible trapeze; remove the JIT cache directory '" +
              resolve_cache_dir(options) + "')");
}

} // namespace trapeze::runtime
