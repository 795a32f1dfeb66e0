// MachineModel: the machine a schedule is made for, read off this one
// (sysfs, else cpuid) or from JSON.
#include "frontend/strict_json.h"
#include "trapeze/autoschedule.h"
#include "trapeze/error.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sched.h>
#include <sstream>
#include <thread>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

namespace trapeze {

namespace {

using ordered_json = nlohmann::ordered_json;

// The CPUs this process may run on (a container or `taskset` may allow fewer
// than the machine has).
int usable_cores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0) {
    const int n = CPU_COUNT(&set);
    if (n > 0) return n;
  }
  const unsigned n = std::thread::hardware_concurrency();
  return n > 0 ? static_cast<int>(n) : 1;
}

std::string read_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

// "48K", "1024K", "32M" -> bytes; 0 if unreadable.
std::int64_t parse_cache_size(const std::string& text) {
  std::int64_t value = 0;
  std::size_t i = 0;
  while (i < text.size() && text[i] >= '0' && text[i] <= '9')
    value = value * 10 + (text[i++] - '0');
  if (i < text.size() && (text[i] == 'K' || text[i] == 'k')) value <<= 10;
  if (i < text.size() && (text[i] == 'M' || text[i] == 'm')) value <<= 20;
  return value;
}

// How many CPUs share a cache: the count in a list like "0-3,8-11".
int count_cpu_list(const std::string& list) {
  int count = 0;
  std::stringstream in(list);
  std::string part;
  while (std::getline(in, part, ',')) {
    const std::size_t dash = part.find('-');
    if (dash == std::string::npos) {
      count += part.empty() ? 0 : 1;
    } else {
      count += std::stoi(part.substr(dash + 1)) - std::stoi(part.substr(0, dash)) + 1;
    }
  }
  return count > 0 ? count : 1;
}

// Data and unified caches of CPU 0 from sysfs. False if sysfs has none (some
// virtual machines).
bool read_sysfs_caches(MachineModel& m) {
  bool found = false;
  for (int index = 0; index < 16; ++index) {
    const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index);
    const std::string level = read_line(dir + "/level");
    if (level.empty()) break;
    const std::string type = read_line(dir + "/type");
    if (type == "Instruction") continue;
    const std::int64_t size = parse_cache_size(read_line(dir + "/size"));
    if (size <= 0) continue;
    const std::string line = read_line(dir + "/coherency_line_size");
    if (!line.empty()) m.cache_line_bytes = std::stoi(line);
    found = true;
    if (level == "1") m.l1_bytes = size;
    // L2 per core: a cache shared by several cores counts its share.
    if (level == "2") m.l2_bytes = size / count_cpu_list(read_line(dir + "/shared_cpu_list"));
    if (level == "3") m.l3_bytes = size;
  }
  return found;
}

#if defined(__x86_64__) || defined(__i386__)
// Caches from cpuid: Intel's leaf 4, else AMD's 0x8000001D, else AMD's
// legacy leaves 0x80000005/6 (which give L1 and L2 only reliably).
bool read_cpuid_caches(MachineModel& m) {
  unsigned a = 0, b = 0, c = 0, d = 0;
  bool found = false;
  const auto deterministic_leaf = [&](unsigned leaf) {
    for (unsigned i = 0; i < 16; ++i) {
      if (!__get_cpuid_count(leaf, i, &a, &b, &c, &d)) return;
      const unsigned type = a & 31u, level = (a >> 5) & 7u;
      if (type == 0) return;
      if (type == 2) continue; // instruction cache
      const std::int64_t line = (b & 0xfffu) + 1, partitions = ((b >> 12) & 0x3ffu) + 1,
                         ways = ((b >> 22) & 0x3ffu) + 1, sets = std::int64_t{c} + 1;
      const std::int64_t size = ways * partitions * line * sets;
      const int sharing = static_cast<int>(((a >> 14) & 0xfffu) + 1);
      found = true;
      m.cache_line_bytes = static_cast<int>(line);
      if (level == 1) m.l1_bytes = size;
      if (level == 2) m.l2_bytes = size / sharing;
      if (level == 3) m.l3_bytes = size;
    }
  };
  if (__get_cpuid(0, &a, &b, &c, &d) && a >= 4) deterministic_leaf(4);
  if (!found && __get_cpuid(0x80000000u, &a, &b, &c, &d) && a >= 0x8000001Du)
    deterministic_leaf(0x8000001Du);
  if (!found && __get_cpuid(0x80000006u, &a, &b, &c, &d) && (c >> 16) > 0) {
    m.l2_bytes = std::int64_t{c >> 16} << 10;
    m.cache_line_bytes = static_cast<int>(c & 0xffu);
    if (__get_cpuid(0x80000005u, &a, &b, &c, &d) && (c >> 24) > 0)
      m.l1_bytes = std::int64_t{c >> 24} << 10;
    found = true;
  }
  return found;
}

// The widest vectors the JIT's -march=native code may use.
int cpuid_vector_bytes() {
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (__get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & (1u << 16))) return 64; // AVX-512F
  if (__get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & (1u << 5))) return 32;  // AVX2
  if (__get_cpuid(1, &a, &b, &c, &d) && (c & (1u << 28))) return 32;          // AVX
  return 16;
}
#endif

MachineModel detect() {
  MachineModel m;
  m.cores = usable_cores();
  std::vector<std::string> sources;
  if (read_sysfs_caches(m)) sources.push_back("sysfs");
#if defined(__x86_64__) || defined(__i386__)
  if (sources.empty() && read_cpuid_caches(m)) sources.push_back("cpuid");
  m.vector_bytes = cpuid_vector_bytes();
  if (sources.empty() || sources.back() != "cpuid") sources.push_back("cpuid (vectors)");
#endif
  if (sources.empty()) sources.push_back("built-in defaults");
  m.source.clear();
  for (const std::string& s : sources)
    m.source += (m.source.empty() ? "" : " + ") + s;
  return m;
}

std::int64_t integer_field(const ordered_json& doc, const char* key, std::int64_t current,
                           const std::string& what) {
  if (!doc.contains(key)) return current;
  const ordered_json& v = doc[key];
  if (!v.is_number_integer())
    throw Error(what + ": field '" + key + "' must be an integer, got " + v.dump());
  return v.get<std::int64_t>();
}

int int_field(const ordered_json& doc, const char* key, int current, const std::string& what) {
  const std::int64_t v = integer_field(doc, key, current, what);
  if (v < 0 || v > (1 << 20))
    throw Error(what + ": field '" + key + "' must be between 1 and 1048576, got " +
                std::to_string(v));
  return static_cast<int>(v);
}

// [{"bytes": 512, "read": 0.8, "write": 0.5}, ...]; validate() checks the values.
std::vector<MachineModel::RunShare> run_bandwidth_field(const ordered_json& v,
                                                        const std::string& what) {
  const auto malformed = [&]() {
    return Error(what +
                 ": field 'run_bandwidth' must be an array of objects with an integer "
                 "'bytes' and numbers 'read' and 'write', got " +
                 v.dump());
  };
  if (!v.is_array()) throw malformed();
  std::vector<MachineModel::RunShare> curve;
  for (const ordered_json& entry : v) {
    if (!entry.is_object() || entry.size() != 3 || !entry.contains("bytes") ||
        !entry["bytes"].is_number_integer() || !entry.contains("read") ||
        !entry["read"].is_number() || !entry.contains("write") || !entry["write"].is_number())
      throw malformed();
    curve.push_back({entry["bytes"].get<std::int64_t>(), entry["read"].get<double>(),
                     entry["write"].get<double>()});
  }
  return curve;
}

// The share of a run of `bytes` along `curve` (RunShare::read or ::write),
// linear in log(bytes) between the points.
double run_share(const std::vector<MachineModel::RunShare>& curve, double bytes,
                 double MachineModel::RunShare::*share) {
  if (curve.empty()) return 1;
  if (bytes <= static_cast<double>(curve.front().bytes)) return curve.front().*share;
  for (std::size_t i = 1; i < curve.size(); ++i) {
    const double hi = static_cast<double>(curve[i].bytes);
    if (bytes > hi) continue;
    const double lo = static_cast<double>(curve[i - 1].bytes);
    const double f = std::log(bytes / lo) / std::log(hi / lo);
    return curve[i - 1].*share + f * (curve[i].*share - curve[i - 1].*share);
  }
  return curve.back().*share;
}

} // namespace

double MachineModel::read_share(double run_bytes) const {
  return run_share(run_bandwidth, run_bytes, &RunShare::read);
}

double MachineModel::write_share(double run_bytes) const {
  return run_share(run_bandwidth, run_bytes, &RunShare::write);
}

const MachineModel& MachineModel::host() {
  static const MachineModel machine = detect();
  return machine;
}

void MachineModel::validate() const {
  const auto positive = [](const char* field, std::int64_t v) {
    if (v <= 0)
      throw Error("machine model: " + std::string(field) + " must be positive, got " +
                  std::to_string(v));
  };
  positive("cores", cores);
  positive("l1_bytes", l1_bytes);
  positive("l2_bytes", l2_bytes);
  positive("cache_line_bytes", cache_line_bytes);
  positive("vector_bytes", vector_bytes);
  if (!(ops_per_byte > 0) || !std::isfinite(ops_per_byte))
    throw Error("machine model: ops_per_byte must be positive, got " +
                fmt::format("{}", ops_per_byte));
  if (!(l2_window_share > 0 && l2_window_share <= 1))
    throw Error(
        fmt::format("machine model: l2_window_share must be in (0, 1], got {}", l2_window_share));
  if (l3_bytes < 0)
    throw Error("machine model: l3_bytes must be 0 (unknown) or positive, got " +
                std::to_string(l3_bytes));
  for (std::size_t i = 0; i < run_bandwidth.size(); ++i) {
    const RunShare& r = run_bandwidth[i];
    if (r.bytes <= 0 || (i > 0 && r.bytes <= run_bandwidth[i - 1].bytes))
      throw Error("machine model: run_bandwidth's bytes must be positive and ascending, got " +
                  std::to_string(r.bytes) + " at entry " + std::to_string(i));
    for (const double share : {r.read, r.write})
      if (!(share > 0 && share <= 1))
        throw Error(fmt::format("machine model: run_bandwidth's shares must be in (0, 1], got {} "
                                "at entry {}",
                                share, i));
  }
}

std::string MachineModel::to_json() const {
  ordered_json j;
  j["cores"] = cores;
  j["l1_bytes"] = l1_bytes;
  j["l2_bytes"] = l2_bytes;
  j["l3_bytes"] = l3_bytes;
  j["cache_line_bytes"] = cache_line_bytes;
  j["vector_bytes"] = vector_bytes;
  j["ops_per_byte"] = ops_per_byte;
  j["run_bandwidth"] = ordered_json::array();
  for (const RunShare& r : run_bandwidth)
    j["run_bandwidth"].push_back({{"bytes", r.bytes}, {"read", r.read}, {"write", r.write}});
  j["vector_gathers"] = vector_gathers;
  j["l2_window_share"] = l2_window_share;
  j["source"] = source;
  return j.dump(2);
}

MachineModel MachineModel::from_json(const std::string& text, const MachineModel& base,
                                     const std::string& what) {
  const ordered_json doc = frontend::parse_strict_json(text, what);
  if (!doc.is_object()) throw Error(what + ": expected a JSON object, got " + doc.dump());
  static const char* const fields[] = {
      "cores",        "l1_bytes",     "l2_bytes",      "l3_bytes",       "cache_line_bytes",
      "vector_bytes", "ops_per_byte", "run_bandwidth", "vector_gathers", "l2_window_share",
      "source"};
  for (const auto& [key, value] : doc.items())
    if (std::find(std::begin(fields), std::end(fields), key) == std::end(fields))
      throw Error(what + ": unknown field '" + key +
                  "' (fields: cores, l1_bytes, l2_bytes, l3_bytes, cache_line_bytes, "
                  "vector_bytes, ops_per_byte, run_bandwidth, vector_gathers, l2_window_share, "
                  "source)");
  MachineModel m = base;
  m.cores = int_field(doc, "cores", m.cores, what);
  m.l1_bytes = integer_field(doc, "l1_bytes", m.l1_bytes, what);
  m.l2_bytes = integer_field(doc, "l2_bytes", m.l2_bytes, what);
  m.l3_bytes = integer_field(doc, "l3_bytes", m.l3_bytes, what);
  m.cache_line_bytes = int_field(doc, "cache_line_bytes", m.cache_line_bytes, what);
  m.vector_bytes = int_field(doc, "vector_bytes", m.vector_bytes, what);
  if (doc.contains("ops_per_byte")) {
    if (!doc["ops_per_byte"].is_number())
      throw Error(what + ": field 'ops_per_byte' must be a number, got " +
                  doc["ops_per_byte"].dump());
    m.ops_per_byte = doc["ops_per_byte"].get<double>();
  }
  if (doc.contains("run_bandwidth"))
    m.run_bandwidth = run_bandwidth_field(doc["run_bandwidth"], what);
  if (doc.contains("vector_gathers")) {
    if (!doc["vector_gathers"].is_boolean())
      throw Error(what + ": field 'vector_gathers' must be true or false, got " +
                  doc["vector_gathers"].dump());
    m.vector_gathers = doc["vector_gathers"].get<bool>();
  }
  if (doc.contains("l2_window_share")) {
    if (!doc["l2_window_share"].is_number())
      throw Error(what + ": field 'l2_window_share' must be a number, got " +
                  doc["l2_window_share"].dump());
    m.l2_window_share = doc["l2_window_share"].get<double>();
  }
  m.source = what;
  if (doc.contains("source")) {
    if (!doc["source"].is_string())
      throw Error(what + ": field 'source' must be a string, got " + doc["source"].dump());
  }
  try {
    m.validate();
  } catch (const Error& e) {
    throw Error(what + ": " + std::string(e.what()).substr(15)); // drop "machine model: "
  }
  return m;
}

MachineModel MachineModel::load(const std::string& path, const MachineModel& base) {
  std::ifstream in(path);
  if (!in) throw Error("cannot read machine model '" + path + "'");
  std::stringstream text;
  text << in.rdbuf();
  return from_json(text.str(), base, path);
}

} // namespace trapeze
