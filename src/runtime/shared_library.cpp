// Loading shared objects with dlopen.
#include "runtime/shared_library.h"

#include "trapeze/error.h"

#include <dlfcn.h>

namespace trapeze::runtime {

std::shared_ptr<const SharedLibrary> SharedLibrary::open(const std::string& path) {
  void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* why = ::dlerror();
    throw Error("cannot load the compiled pipeline '" + path +
                "': " + (why ? std::string(why) : std::string("unknown loader error")));
  }
  return std::shared_ptr<const SharedLibrary>(new SharedLibrary(handle, path));
}

SharedLibrary::~SharedLibrary() { ::dlclose(handle_); }

void* SharedLibrary::symbol(const std::string& name) const {
  ::dlerror(); // clear a stale error: a symbol's address may legitimately be null
  return ::dlsym(handle_, name.c_str());
}

} // namespace trapeze::runtime
