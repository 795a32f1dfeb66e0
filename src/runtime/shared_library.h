// A loaded shared object (dlopen), closed when the last owner lets go.
#pragma once

#include <memory>
#include <string>

namespace trapeze::runtime {

/// A shared object opened with RTLD_NOW | RTLD_LOCAL.
class SharedLibrary {
public:
  /// Opens `path`; throws trapeze::Error with the loader's message.
  static std::shared_ptr<const SharedLibrary> open(const std::string& path);

  SharedLibrary(const SharedLibrary&) = delete;
  SharedLibrary& operator=(const SharedLibrary&) = delete;
  ~SharedLibrary();

  /// The address of `name`, or nullptr if the object does not define it.
  void* symbol(const std::string& name) const;
  const std::string& path() const { return path_; }

private:
  SharedLibrary(void* handle, std::string path) : handle_(handle), path_(std::move(path)) {}
  void* handle_;
  std::string path_;
};

} // namespace trapeze::runtime
