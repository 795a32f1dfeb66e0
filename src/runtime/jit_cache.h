// The JIT's on-disk cache of compiled shared objects.
//
// An entry is <dir>/<key>.so and <dir>/<key>.meta; the key is a 128-bit XXH3
// hash of everything that decides the shared object's contents (the source,
// the compiler command and its identity, the flags, the host CPU, trapeze's
// version), and the .meta file records the size and hash of the .so, so a
// truncated or corrupt entry is detected and rebuilt.
//
// Concurrency: a compile happens under an exclusive flock on one of 256 lock
// files (chosen by the key), into a temporary file of the cache directory,
// and is installed with rename(), so readers see either no entry, the old
// one, or the new one; a reader that sees a .so and .meta that do not match
// takes the lock and looks again. Eviction deletes least recently used entries
// (hits touch the .so) after an install, never the entry just installed. A
// process that has loaded a .so keeps its mapping when the file is replaced
// or deleted.
#pragma once

#include "trapeze/runtime.h"

#include <cstdint>
#include <filesystem>
#include <string>

namespace trapeze::runtime {

/// CompileOptions::cache_dir, else $TRAPEZE_CACHE_DIR, else
/// $XDG_CACHE_HOME/trapeze, else $HOME/.cache/trapeze.
std::string resolve_cache_dir(const CompileOptions& options);

/// The CPU model and feature flags of this machine: -march=native code built
/// on one machine must not be loaded on another from a shared cache.
const std::string& host_cpu();

/// The whole of a file in `out`; false where it cannot be read (a cache
/// entry that is not there).
bool read_file(const std::filesystem::path& path, std::string& out);

/// Writes `text` to a temporary file beside `path` and renames it into place
/// (creating the directory), so that a reader sees all of it or none; false
/// where that failed (the caches are an optimization: not an error).
bool write_atomically(const std::string& path, const std::string& text);

/// 32 hex digits: the XXH3-128 hash of `text` (the key of every cache's
/// entries: compiled code, schedules, auto-tuning results).
std::string hash128_hex(const std::string& text);

/// 32 hex digits: the XXH3-128 hash of the source, the compiler command, its
/// identity, the flags, the host CPU, and trapeze's version.
std::string cache_key(const std::string& source, const std::string& compiler_command,
                      const std::string& compiler_identity, const std::string& flags);

/// A shared object in the cache.
struct CacheEntry {
  std::string key;
  std::string library_path; ///< <dir>/<key>.so
  bool from_cache = false;  ///< true if found, false if compiled by this call
};

/// Whether a lookup may use an existing entry.
enum class CacheMode {
  UseCached, ///< use a sound entry if there is one
  Rebuild,   ///< compile even if there is one (it was found unusable after loading)
};

/// Finds `source` in the cache or compiles it there (see the top of this
/// file). `what` names the code in messages ("pipeline 'blur'"). A failed
/// compile throws trapeze::Error with the compiler's output (trimmed) and the
/// path of the source, kept under <dir>/failed/.
CacheEntry compile_to_cache(const std::string& source, const CompileOptions& options,
                            const std::string& what = "the generated code",
                            CacheMode mode = CacheMode::UseCached);

/// True if <dir>/<key>.so exists and matches the size and hash in <key>.meta.
bool entry_is_sound(const std::string& dir, const std::string& key);

/// Deletes least recently used entries (by the .so's modification time)
/// until the entries take at most `limit_bytes`, never `keep_key`; also
/// deletes temporary files more than an hour old. Never throws.
void evict_to_limit(const std::string& dir, std::uint64_t limit_bytes, const std::string& keep_key);

/// Total size in bytes of the entries (.so and .meta files) in `dir`.
std::uint64_t cache_size_bytes(const std::string& dir);

} // namespace trapeze::runtime
