// host_machine: MachineModel::host() and the figures that must be measured
// (run_bandwidth, vector_gathers, l2_window_share), measured once per machine
// and kept in the cache directory, so that schedules and compile flags do not
// move with the noise of a measurement.
//
// The entry is <cache dir>/machine/<key>.json, the whole model; the key hashes
// the CPU's model and flags, what MachineModel::host() read (cores, caches,
// vectors) and what is measured, so a machine with other caches or another
// core count, or an entry kept by earlier probes, measures again. An entry
// that does not load, or lacks a measured figure (written before that figure
// was measured), is measured again and rewritten.
#include "autoschedule/gather_probe.h"
#include "autoschedule/run_bandwidth_probe.h"
#include "autoschedule/window_probe.h"
#include "runtime/jit_cache.h"
#include "trapeze/error.h"
#include "trapeze/runtime.h"

#include <fcntl.h>
#include <filesystem>
#include <map>
#include <mutex>
#include <sys/file.h>
#include <unistd.h>

namespace trapeze {

namespace {

// Part of the entry's key: an entry measured by earlier probes (the L2
// windows were first timed over rows already in the L2, which misjudged the
// Zen 3 guests) is not read, and this machine is measured again.
const char* const measured_what = "run bandwidth, gathers and row windows measured";

std::optional<MachineModel> read_kept(const std::string& path, const MachineModel& base) {
  std::string text;
  if (!runtime::read_file(path, text)) return std::nullopt;
  // Every measured figure, or the entry predates one: the built-in default
  // would stand in for a measurement.
  for (const char* measured : {"\"run_bandwidth\"", "\"vector_gathers\"", "\"l2_window_share\""})
    if (text.find(measured) == std::string::npos) return std::nullopt;
  try {
    MachineModel m = MachineModel::from_json(text, base, path);
    m.source = base.source + " + " + measured_what + " (" + path + ")";
    return m;
  } catch (const Error&) {
    return std::nullopt; // damaged: measure again and overwrite it
  }
}

} // namespace

MachineModel host_machine(const CompileOptions& options, bool remeasure) {
  const MachineModel& base = MachineModel::host();
  std::string path; // empty: no cache directory, this process's measurement only
  try {
    path = (std::filesystem::path(runtime::resolve_cache_dir(options)) / "machine" /
            (runtime::hash128_hex(runtime::host_cpu() + base.to_json() + measured_what) + ".json"))
               .string();
  } catch (const Error&) {
    // No cache directory ($HOME unset): measured for this process only.
  }
  // Once per process and entry: every compile asks.
  static std::mutex mutex;
  static std::map<std::string, MachineModel> known;
  const std::lock_guard<std::mutex> in_process(mutex);
  if (!remeasure) {
    if (const auto found = known.find(path); found != known.end()) return found->second;
    if (std::optional<MachineModel> kept = read_kept(path, base)) return known[path] = *kept;
  }
  // One process measures; the others wait for its entry (several measuring
  // at once would each see a share of the bandwidth). Without a lock file
  // (a cache directory that cannot be written), each measures alone.
  const std::filesystem::path directory = std::filesystem::path(path).parent_path();
  std::error_code ec;
  if (!path.empty()) std::filesystem::create_directories(directory, ec);
  const int lock_file =
      path.empty() ? -1 : ::open((directory / ".lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (lock_file >= 0) ::flock(lock_file, LOCK_EX);
  struct Unlock {
    int fd;
    ~Unlock() {
      if (fd >= 0) ::close(fd); // releases the lock
    }
  } unlock{lock_file};
  if (!remeasure)
    if (std::optional<MachineModel> kept = read_kept(path, base)) return known[path] = *kept;
  MachineModel m = base;
  m.run_bandwidth = autoschedule::measure_run_bandwidth(m.cores, m.l3_bytes);
  m.vector_gathers = autoschedule::measure_vector_gathers();
  m.l2_window_share = autoschedule::measure_l2_window_share(m.cores, m.l1_bytes, m.l3_bytes);
  m.source = base.source + " + " + measured_what;
  // The whole model (what `trapeze machine --json` prints): its other
  // fields are the key's, so reading it back changes only what was measured.
  if (!path.empty() && runtime::write_atomically(path, m.to_json())) m.source += " (" + path + ")";
  return known[path] = m;
}

} // namespace trapeze
