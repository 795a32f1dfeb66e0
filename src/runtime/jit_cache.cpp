// The JIT's on-disk cache of compiled shared objects (see jit_cache.h).
#include "runtime/jit_cache.h"

#include "runtime/compiler_invocation.h"
#include "trapeze/error.h"
#include "trapeze/version.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <sys/file.h>
#include <tuple>
#include <unistd.h>
#include <vector>
#include <xxhash.h>

namespace trapeze::runtime {

namespace fs = std::filesystem;

namespace {

constexpr const char* kMetaHeader = "trapeze-cache-entry 1";
constexpr const char* kTempPrefix = ".tmp-";
/// The longest part of a compiler's output quoted in an error message.
constexpr std::size_t kMaxQuotedOutput = 4000;

std::string environment(const char* name) {
  const char* value = std::getenv(name);
  return value ? std::string(value) : std::string();
}

std::string hex(const unsigned char* bytes, std::size_t n) {
  static const char digits[] = "0123456789abcdef";
  std::string s;
  s.reserve(2 * n);
  for (std::size_t i = 0; i < n; ++i) {
    s += digits[bytes[i] >> 4];
    s += digits[bytes[i] & 15];
  }
  return s;
}

std::string hash64_hex(const std::string& data) {
  XXH64_canonical_t canonical;
  XXH64_canonicalFromHash(&canonical, XXH3_64bits(data.data(), data.size()));
  return hex(canonical.digest, sizeof canonical.digest);
}

/// Appends a field with its length, so that no two different field lists
/// hash the same text.
void append_field(std::string& out, const std::string& field) {
  out += std::to_string(field.size());
  out += ':';
  out += field;
  out += ';';
}

void write_file(const fs::path& path, const std::string& content) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << content;
  out.close();
  if (!out)
    throw Error("cannot write '" + path.string() + "' in the JIT cache: " + std::strerror(errno) +
                " (set CompileOptions::cache_dir or $TRAPEZE_CACHE_DIR to a writable directory)");
}

/// A name no other process or thread uses: pid plus 64 random bits.
std::string unique_temp_stem() {
  thread_local std::mt19937_64 generator = [] {
    std::random_device device;
    std::seed_seq seed{
        device(), device(), static_cast<unsigned>(::getpid()),
        static_cast<unsigned>(std::chrono::steady_clock::now().time_since_epoch().count())};
    return std::mt19937_64(seed);
  }();
  const std::uint64_t r = generator();
  return std::string(kTempPrefix) + std::to_string(::getpid()) + "-" +
         hash64_hex(std::to_string(r));
}

/// An exclusive flock on one of 256 lock files of the cache, held while in
/// scope. Lock files are never deleted (deleting a lock file races with
/// processes about to lock it), which is why their number is bounded.
class KeyLock {
public:
  KeyLock(const fs::path& dir, const std::string& key) {
    const fs::path locks = dir / "locks";
    std::error_code ec;
    fs::create_directories(locks, ec);
    const fs::path path = locks / (key.substr(0, 2) + ".lock");
    fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0)
      throw Error("cannot open the JIT cache lock '" + path.string() +
                  "': " + std::strerror(errno) +
                  " (set CompileOptions::cache_dir or $TRAPEZE_CACHE_DIR to a writable directory)");
    while (::flock(fd_, LOCK_EX) != 0) {
      if (errno != EINTR) {
        const int err = errno;
        ::close(fd_);
        throw Error("cannot lock '" + path.string() + "': " + std::strerror(err));
      }
    }
  }
  KeyLock(const KeyLock&) = delete;
  KeyLock& operator=(const KeyLock&) = delete;
  ~KeyLock() { ::close(fd_); } // closing releases the flock

private:
  int fd_ = -1;
};

/// Removes a file when it goes out of scope unless released (temporaries).
class TempFile {
public:
  explicit TempFile(fs::path path) : path_(std::move(path)) {}
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  ~TempFile() {
    std::error_code ec;
    if (!path_.empty()) fs::remove(path_, ec);
  }
  const fs::path& path() const { return path_; }
  void release() { path_.clear(); }

private:
  fs::path path_;
};

std::string meta_text(const std::string& library) {
  return std::string(kMetaHeader) + "\nsize " + std::to_string(library.size()) + "\nxxh3 " +
         hash64_hex(library) + "\n";
}

void touch(const fs::path& path) {
  std::error_code ec;
  fs::last_write_time(path, fs::file_time_type::clock::now(), ec);
}

void replace_all(std::string& text, const std::string& from, const std::string& to) {
  if (from.empty()) return;
  for (std::size_t at = text.find(from); at != std::string::npos;
       at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
}

/// Keeps the source and the compiler's output of a failed compile under
/// <dir>/failed/ and throws the error that quotes them.
[[noreturn]] void report_failed_compile(const fs::path& dir, const std::string& key,
                                        const std::string& what, const std::string& source,
                                        const fs::path& temp_source, const fs::path& temp_library,
                                        const std::vector<std::string>& command,
                                        ProcessResult result) {
  const fs::path failed = dir / "failed";
  const fs::path kept_source = failed / (key + ".cpp");
  const fs::path kept_log = failed / (key + ".log");
  std::error_code ec;
  fs::create_directories(failed, ec);
  // The compiler's messages name the temporary file; point them at the kept one.
  replace_all(result.output, temp_source.string(), kept_source.string());
  // The command as the user can rerun it on the kept source.
  std::string command_line = command_text(command);
  replace_all(command_line, temp_source.string(), kept_source.string());
  replace_all(command_line, temp_library.string(), (failed / (key + ".so")).string());
  bool kept = true;
  try {
    write_file(kept_source, source);
    write_file(kept_log, command_line + "\n" + result.output);
  } catch (const Error&) {
    kept = false;
  }

  std::string quoted = result.output;
  while (!quoted.empty() && (quoted.back() == '\n' || quoted.back() == ' '))
    quoted.pop_back();
  if (quoted.size() > kMaxQuotedOutput) {
    const std::size_t more = quoted.size() - kMaxQuotedOutput;
    quoted.resize(kMaxQuotedOutput);
    quoted += "\n... (" + std::to_string(more) + " more characters";
    quoted += kept ? " in " + kept_log.string() + ")" : ")";
  }
  std::string message = "the C++ compiler failed on " + what + " (exit code " +
                        std::to_string(result.exit_code) + ")\n  command: " + command_line +
                        "\n  compiler output:\n" + quoted + "\n";
  message += kept ? "  the source is kept at " + kept_source.string()
                  : "  the source could not be kept under " + failed.string();
  message += "\n  (if the generated code is at fault, this is a bug in trapeze; please report it "
             "with the source; otherwise check CompileOptions::compiler/flags, $CXX and "
             "$TRAPEZE_CXXFLAGS)";
  throw Error(message);
}

/// Compiles into a temporary file of the cache directory, checks it, and
/// installs it with rename(). Called with the key's lock held.
void compile_and_install(const fs::path& dir, const std::string& key, const std::string& what,
                         const std::string& source, const std::vector<std::string>& compiler,
                         const std::string& flags) {
  const std::string stem = unique_temp_stem();
  TempFile temp_source(dir / (stem + ".cpp"));
  TempFile temp_library(dir / (stem + ".so"));
  TempFile temp_meta(dir / (stem + ".meta"));
  write_file(temp_source.path(), source);

  const std::vector<std::string> command =
      compile_command(compiler, flags, temp_source.path().string(), temp_library.path().string());
  ProcessResult result = run_process(command);
  if (result.exit_code != 0)
    report_failed_compile(dir, key, what, source, temp_source.path(), temp_library.path(), command,
                          std::move(result));

  std::string library;
  if (!read_file(temp_library.path(), library) || library.empty())
    throw Error("the C++ compiler reported success on " + what + " but wrote no shared object '" +
                temp_library.path().string() + "'\n  command: " + command_text(command) +
                "\n  compiler output:\n" + result.output.substr(0, kMaxQuotedOutput));
  write_file(temp_meta.path(), meta_text(library));

  // The .so first: a reader between the two renames sees a .so that does not
  // match its .meta, takes the lock, and waits for this install to finish.
  const fs::path final_library = dir / (key + ".so");
  const fs::path final_meta = dir / (key + ".meta");
  std::error_code ec;
  fs::rename(temp_library.path(), final_library, ec);
  if (!ec) fs::rename(temp_meta.path(), final_meta, ec);
  if (ec)
    throw Error("cannot install '" + final_library.string() +
                "' in the JIT cache: " + ec.message() +
                " (set CompileOptions::cache_dir or $TRAPEZE_CACHE_DIR to a writable directory)");
  temp_library.release();
  temp_meta.release();
}

} // namespace

const std::string& host_cpu() {
  static const std::string description = [] {
    std::ifstream in("/proc/cpuinfo");
    std::string line, model, flags;
    while (std::getline(in, line) && (model.empty() || flags.empty())) {
      if (model.empty() && line.rfind("model name", 0) == 0) model = line;
      if (flags.empty() && (line.rfind("flags", 0) == 0 || line.rfind("Features", 0) == 0))
        flags = line;
    }
    return model + "\n" + flags;
  }();
  return description;
}

bool read_file(const fs::path& path, std::string& out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) return false;
  out = std::move(buffer).str();
  return true;
}

bool write_atomically(const std::string& path, const std::string& text) {
  const fs::path target(path);
  std::error_code ec;
  fs::create_directories(target.parent_path(), ec);
  if (ec) return false;
  const fs::path temp = target.parent_path() /
                        (".tmp-" + std::to_string(::getpid()) + "-" + target.filename().string());
  {
    std::ofstream out(temp, std::ios::trunc);
    out << text;
    if (!out) {
      fs::remove(temp, ec);
      return false;
    }
  }
  fs::rename(temp, target, ec);
  if (ec) fs::remove(temp, ec);
  return !ec;
}

std::string resolve_cache_dir(const CompileOptions& options) {
  if (!options.cache_dir.empty()) return options.cache_dir;
  const std::string trapeze_dir = environment("TRAPEZE_CACHE_DIR");
  if (!trapeze_dir.empty()) return trapeze_dir;
  // The XDG base directory specification ignores relative paths.
  const std::string xdg = environment("XDG_CACHE_HOME");
  if (!xdg.empty() && xdg.front() == '/') return (fs::path(xdg) / "trapeze").string();
  const std::string home = environment("HOME");
  if (!home.empty()) return (fs::path(home) / ".cache" / "trapeze").string();
  throw Error("cannot choose a directory for the JIT cache: $HOME is not set; set "
              "CompileOptions::cache_dir or $TRAPEZE_CACHE_DIR");
}

std::string hash128_hex(const std::string& text) {
  XXH128_canonical_t canonical;
  XXH128_canonicalFromHash(&canonical, XXH3_128bits(text.data(), text.size()));
  return hex(canonical.digest, sizeof canonical.digest);
}

std::string cache_key(const std::string& source, const std::string& compiler_command,
                      const std::string& compiler_identity, const std::string& flags) {
  std::string text;
  text.reserve(source.size() + 512);
  append_field(text, TRAPEZE_VERSION_STRING);
  append_field(text, compiler_command);
  append_field(text, compiler_identity);
  append_field(text, flags);
  append_field(text, command_text(required_flags()));
  append_field(text, host_cpu());
  append_field(text, source);
  return hash128_hex(text);
}

bool entry_is_sound(const std::string& dir, const std::string& key) {
  std::string meta, library;
  if (!read_file(fs::path(dir) / (key + ".meta"), meta)) return false;
  if (!read_file(fs::path(dir) / (key + ".so"), library)) return false;
  return !library.empty() && meta == meta_text(library);
}

CacheEntry compile_to_cache(const std::string& source, const CompileOptions& options,
                            const std::string& what, CacheMode mode) {
  const fs::path dir = resolve_cache_dir(options);
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec)
    throw Error("cannot create the JIT cache directory '" + dir.string() + "': " + ec.message() +
                " (set CompileOptions::cache_dir or $TRAPEZE_CACHE_DIR to a writable directory)");

  const std::vector<std::string> compiler = resolve_compiler(options);
  const std::string flags = resolve_flags(options, compiler);
  CacheEntry entry;
  entry.key = cache_key(source, command_text(compiler), compiler_identity(compiler), flags);
  entry.library_path = (dir / (entry.key + ".so")).string();

  const auto hit = [&] {
    if (mode != CacheMode::UseCached || !entry_is_sound(dir.string(), entry.key)) return false;
    touch(entry.library_path);
    entry.from_cache = true;
    return true;
  };
  if (hit()) return entry;
  {
    KeyLock lock(dir, entry.key);
    // Another process may have installed it while this one waited for the lock.
    if (hit()) return entry;
    compile_and_install(dir, entry.key, what, source, compiler, flags);
  }
  evict_to_limit(dir.string(), options.cache_limit_bytes, entry.key);
  return entry;
}

void evict_to_limit(const std::string& dir, std::uint64_t limit_bytes,
                    const std::string& keep_key) {
  struct Candidate {
    fs::file_time_type used;
    std::string key;
    std::uint64_t bytes;
  };
  std::vector<Candidate> entries;
  std::uint64_t total = 0;
  const auto stale_before = fs::file_time_type::clock::now() - std::chrono::hours(1);
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const fs::path path = it->path();
    const std::string name = path.filename().string();
    std::error_code file_ec;
    if (name.rfind(kTempPrefix, 0) == 0) {
      // Left behind by a process that died while compiling.
      const auto written = fs::last_write_time(path, file_ec);
      if (!file_ec && written < stale_before) fs::remove(path, file_ec);
      continue;
    }
    if (path.extension() != ".so" || !it->is_regular_file(file_ec)) continue;
    const std::string key = path.stem().string();
    Candidate c{fs::last_write_time(path, file_ec), key, fs::file_size(path, file_ec)};
    if (file_ec) continue; // deleted meanwhile by another process
    const std::uint64_t meta = fs::file_size(fs::path(dir) / (key + ".meta"), file_ec);
    if (!file_ec) c.bytes += meta;
    total += c.bytes;
    entries.push_back(std::move(c));
  }
  if (total <= limit_bytes) return;
  std::sort(entries.begin(), entries.end(), [](const Candidate& a, const Candidate& b) {
    return std::tie(a.used, a.key) < std::tie(b.used, b.key);
  });
  for (const Candidate& c : entries) {
    if (total <= limit_bytes) break;
    if (c.key == keep_key) continue;
    std::error_code remove_ec;
    fs::remove(fs::path(dir) / (c.key + ".so"), remove_ec);
    fs::remove(fs::path(dir) / (c.key + ".meta"), remove_ec);
    total -= c.bytes;
  }
}

std::uint64_t cache_size_bytes(const std::string& dir) {
  std::uint64_t total = 0;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const fs::path path = it->path();
    if (path.filename().string().rfind(kTempPrefix, 0) == 0) continue;
    if (path.extension() != ".so" && path.extension() != ".meta") continue;
    std::error_code file_ec;
    const std::uint64_t size = fs::file_size(path, file_ec);
    if (!file_ec) total += size;
  }
  return total;
}

} // namespace trapeze::runtime
