// Loading shared objects with dlopen.
#include "runtime/shared_library.h"

#include "trapeze/error.h"

#include <dlfcn.h>
#include <link.h>
#include <string_view>

namespace trapeze::runtime {

namespace {

/// True for the OpenMP runtimes (GCC's, LLVM's, Intel's): they keep a pool of
/// worker threads alive after a parallel region, so unloading one while its
/// threads wait crashes the process.
bool is_openmp_runtime(std::string_view path) {
  const std::string_view name = path.substr(path.find_last_of('/') + 1);
  for (std::string_view prefix : {"libgomp.", "libomp.", "libiomp"})
    if (name.substr(0, prefix.size()) == prefix) return true;
  return false;
}

/// Marks every loaded OpenMP runtime RTLD_NODELETE, so that closing a
/// generated library (which brought it in) leaves the runtime loaded.
void pin_openmp_runtimes(void* handle) {
  link_map* map = nullptr;
  if (::dlinfo(handle, RTLD_DI_LINKMAP, &map) != 0 || !map) return;
  while (map->l_prev)
    map = map->l_prev;
  for (; map; map = map->l_next) {
    if (!map->l_name || !is_openmp_runtime(map->l_name)) continue;
    // RTLD_NOLOAD only changes the flags of the loaded object; the handle is
    // deliberately never closed.
    (void)::dlopen(map->l_name, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
  }
}

} // namespace

std::shared_ptr<const SharedLibrary> SharedLibrary::open(const std::string& path) {
  void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* why = ::dlerror();
    throw Error("cannot load the compiled pipeline '" + path +
                "': " + (why ? std::string(why) : std::string("unknown loader error")));
  }
  pin_openmp_runtimes(handle);
  return std::shared_ptr<const SharedLibrary>(new SharedLibrary(handle, path));
}

SharedLibrary::~SharedLibrary() { ::dlclose(handle_); }

void* SharedLibrary::symbol(const std::string& name) const {
  ::dlerror(); // clear a stale error: a symbol's address may legitimately be null
  return ::dlsym(handle_, name.c_str());
}

} // namespace trapeze::runtime
