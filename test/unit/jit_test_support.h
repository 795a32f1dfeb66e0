// Helpers shared by the JIT's unit tests: a private cache directory per test
// and scoped environment variables.
#pragma once

#include "trapeze/runtime.h"

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>

namespace trapeze::test {

/// A fresh directory under the system's temporary directory, removed with
/// everything in it when the object goes out of scope (never the user's cache).
class TempDir {
public:
  TempDir() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "trapeze-jit-test-XXXXXX").string();
    if (!::mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::filesystem::path& path() const { return path_; }
  std::string str() const { return path_.string(); }

private:
  std::filesystem::path path_;
};

/// Sets (or, with nullopt, unsets) an environment variable while in scope.
class ScopedEnv {
public:
  ScopedEnv(std::string name, const std::optional<std::string>& value) : name_(std::move(name)) {
    if (const char* old = std::getenv(name_.c_str())) old_ = old;
    if (value)
      ::setenv(name_.c_str(), value->c_str(), 1);
    else
      ::unsetenv(name_.c_str());
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;
  ~ScopedEnv() {
    if (old_)
      ::setenv(name_.c_str(), old_->c_str(), 1);
    else
      ::unsetenv(name_.c_str());
  }

private:
  std::string name_;
  std::optional<std::string> old_;
};

/// Options compiling quickly into `cache` with the system's compiler.
inline CompileOptions test_options(const TempDir& cache) {
  CompileOptions options;
  options.compiler = "c++";
  options.flags = "-O1";
  options.cache_dir = cache.str();
  return options;
}

} // namespace trapeze::test
