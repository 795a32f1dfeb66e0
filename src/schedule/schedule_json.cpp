// A schedule as JSON (docs/schedule.md): printing, and strict loading. Loading
// rejects unknown fields (a typo must not be silently ignored) and names the
// JSON path of anything malformed.
#include "frontend/strict_json.h"
#include "trapeze/error.h"
#include "trapeze/schedule.h"

#include <nlohmann/json.hpp>

#include <fstream>
#include <limits>
#include <set>
#include <sstream>

namespace trapeze {

namespace {

using json = nlohmann::json;

constexpr int schedule_format_version = 1;

std::string quoted(const std::string& s) { return json(s).dump(); }

std::string numbers(const std::vector<std::int64_t>& values) {
  std::string s = "[";
  for (std::size_t i = 0; i < values.size(); ++i)
    s += (i ? ", " : "") + std::to_string(values[i]);
  return s + "]";
}

std::string strings(const std::vector<std::string>& values) {
  std::string s = "[";
  for (std::size_t i = 0; i < values.size(); ++i)
    s += (i ? ", " : "") + quoted(values[i]);
  return s + "]";
}

// Tile sizes beyond 2^30 are no use (no domain is that long in 32-bit index
// code) and would overflow the tile arithmetic of the generated code.
constexpr std::int64_t max_tile_size = std::int64_t{1} << 30;

// Whether `v` is an integer in [lo, hi] (a JSON integer may be unsigned and
// beyond int64, so the type is checked before the value).
bool integer_in(const json& v, std::int64_t lo, std::int64_t hi) {
  if (v.is_number_unsigned()) {
    const std::uint64_t u = v.get<std::uint64_t>();
    return hi >= 0 && u <= static_cast<std::uint64_t>(hi) && static_cast<std::int64_t>(u) >= lo;
  }
  return v.is_number_integer() && v.get<std::int64_t>() >= lo && v.get<std::int64_t>() <= hi;
}

// Reads one JSON document; `source` ("schedule.json", "schedule JSON")
// prefixes every message.
class Reader {
public:
  explicit Reader(std::string source) : source_(std::move(source)) {}

  Schedule read(const std::string& text) const {
    const json doc = frontend::parse_strict_json(text, source_);
    expect_object(doc, "", {"version", "groups", "storage"});
    if (doc.contains("version")) {
      const json& v = doc["version"];
      if (!v.is_number_integer() || v.get<std::int64_t>() != schedule_format_version)
        fail("version", "expected " + std::to_string(schedule_format_version), v);
    }
    if (!doc.contains("groups")) fail_missing("", "groups", "an array of groups");
    const json& groups = doc["groups"];
    if (!groups.is_array()) fail("groups", "expected an array of groups", groups);
    Schedule s;
    for (std::size_t g = 0; g < groups.size(); ++g)
      s.groups.push_back(read_group(groups[g], "groups[" + std::to_string(g) + "]"));
    if (doc.contains("storage")) {
      const json& storage = doc["storage"];
      if (!storage.is_object())
        fail("storage", "expected an object mapping stage names to storage", storage);
      for (const auto& [stage, value] : storage.items()) {
        const std::string path = "storage." + stage;
        std::optional<Storage> parsed;
        if (value.is_string()) parsed = parse_storage(value.get<std::string>());
        if (!parsed) fail(path, "expected \"full\", \"scratchpad\" or \"inline\"", value);
        s.storage[stage] = *parsed;
      }
    }
    return s;
  }

private:
  GroupSchedule read_group(const json& j, const std::string& path) const {
    expect_object(j, path,
                  {"stages", "tile_sizes", "shape", "inner_tile_sizes", "parallel_tile_dims",
                   "parallel_schedule", "vectorize", "vector_bytes", "prefetch",
                   "intra_tile_fusion", "reassociate_float_sums", "reasons"});
    GroupSchedule g;
    if (!j.contains("stages")) fail_missing(path, "stages", "a non-empty array of stage names");
    g.stages = read_strings(j["stages"], path + ".stages", "stage name");
    if (g.stages.empty())
      fail(path + ".stages", "expected a non-empty array of stage names", j["stages"]);
    if (j.contains("tile_sizes")) g.tile_sizes = read_sizes(j["tile_sizes"], path + ".tile_sizes");
    if (j.contains("shape")) {
      const json& shape = j["shape"];
      std::optional<TileShape> parsed;
      if (shape.is_string()) parsed = parse_tile_shape(shape.get<std::string>());
      if (!parsed)
        fail(path + ".shape", "expected \"scalene\", \"polymage\" or \"rectangle\"", shape);
      g.shape = *parsed;
    }
    if (j.contains("inner_tile_sizes"))
      g.inner_tile_sizes = read_sizes(j["inner_tile_sizes"], path + ".inner_tile_sizes");
    if (j.contains("parallel_tile_dims")) {
      const json& v = j["parallel_tile_dims"];
      if (!integer_in(v, 0, 64))
        fail(path + ".parallel_tile_dims", "expected an integer from 0 to 64", v);
      g.parallel_tile_dims = v.get<int>();
    }
    if (j.contains("parallel_schedule")) {
      const json& v = j["parallel_schedule"];
      std::optional<ParallelSchedule> parsed;
      if (v.is_string()) parsed = parse_parallel_schedule(v.get<std::string>());
      if (!parsed)
        fail(path + ".parallel_schedule", "expected \"static\", \"dynamic\" or \"chunked\"", v);
      g.parallel_schedule = *parsed;
    }
    if (j.contains("vectorize")) {
      const json& v = j["vectorize"];
      if (!v.is_boolean()) fail(path + ".vectorize", "expected true or false", v);
      g.vectorize = v.get<bool>();
    }
    if (j.contains("vector_bytes")) {
      const json& v = j["vector_bytes"];
      if (!v.is_object())
        fail(path + ".vector_bytes", "expected an object of stage names and 16, 32 or 64", v);
      for (const auto& [stage, bytes] : v.items()) {
        if (!(bytes.is_number_integer() && (bytes == 16 || bytes == 32 || bytes == 64)))
          fail(path + ".vector_bytes." + stage, "expected 16, 32 or 64", bytes);
        g.vector_bytes[stage] = bytes.get<int>();
      }
    }
    if (j.contains("prefetch")) {
      const json& v = j["prefetch"];
      if (!v.is_object())
        fail(path + ".prefetch", "expected an object of live-in names and rows ahead (1 to 8)", v);
      for (const auto& [live_in, rows] : v.items()) {
        if (!integer_in(rows, 1, max_prefetch_rows))
          fail(path + ".prefetch." + live_in, "expected an integer from 1 to 8", rows);
        g.prefetch[live_in] = rows.get<int>();
      }
    }
    if (j.contains("intra_tile_fusion")) {
      const json& v = j["intra_tile_fusion"];
      if (!v.is_boolean()) fail(path + ".intra_tile_fusion", "expected true or false", v);
      g.intra_tile_fusion = v.get<bool>();
    }
    if (j.contains("reassociate_float_sums")) {
      const json& v = j["reassociate_float_sums"];
      if (!v.is_boolean()) fail(path + ".reassociate_float_sums", "expected true or false", v);
      g.reassociate_float_sums = v.get<bool>();
    }
    if (j.contains("reasons")) g.reasons = read_strings(j["reasons"], path + ".reasons", "string");
    return g;
  }

  std::vector<std::string> read_strings(const json& j, const std::string& path,
                                        const std::string& what) const {
    if (!j.is_array()) fail(path, "expected an array of " + what + "s", j);
    std::vector<std::string> out;
    for (std::size_t i = 0; i < j.size(); ++i) {
      if (!j[i].is_string()) fail(path + "[" + std::to_string(i) + "]", "expected a " + what, j[i]);
      out.push_back(j[i].get<std::string>());
    }
    return out;
  }

  std::vector<std::int64_t> read_sizes(const json& j, const std::string& path) const {
    if (!j.is_array()) fail(path, "expected an array of positive integers", j);
    std::vector<std::int64_t> out;
    for (std::size_t i = 0; i < j.size(); ++i) {
      const json& v = j[i];
      if (!integer_in(v, 1, max_tile_size))
        fail(path + "[" + std::to_string(i) + "]",
             "expected a positive integer (at most " + std::to_string(max_tile_size) + ")", v);
      out.push_back(v.get<std::int64_t>());
    }
    return out;
  }

  void expect_object(const json& j, const std::string& path,
                     const std::set<std::string>& fields) const {
    if (!j.is_object()) fail(path, "expected an object", j);
    for (const auto& [key, value] : j.items()) {
      if (fields.count(key)) continue;
      std::string known;
      for (const std::string& f : fields)
        known += (known.empty() ? "" : ", ") + f;
      throw Error(prefix(path) + "unknown field " + quoted(key) + " (the fields are: " + known +
                  ")");
    }
  }

  [[noreturn]] void fail_missing(const std::string& path, const std::string& field,
                                 const std::string& what) const {
    throw Error(prefix(path) + "missing field " + quoted(field) + " (" + what + ")");
  }

  [[noreturn]] void fail(const std::string& path, const std::string& expected,
                         const json& got) const {
    std::string text = got.dump();
    if (text.size() > 60) text = text.substr(0, 57) + "...";
    throw Error(prefix(path) + expected + ", got " + text);
  }

  // "schedule.json: groups[1].tile_sizes[0]: ", or "schedule.json: " at the top.
  std::string prefix(const std::string& path) const {
    return source_ + ": " + (path.empty() ? "" : path + ": ");
  }

  std::string source_;
};

} // namespace

std::string Schedule::to_json() const {
  // Printed by hand so that short arrays stay on one line: the file is meant
  // to be read and edited by people.
  std::string s = "{\n  \"version\": " + std::to_string(schedule_format_version) + ",\n";
  s += "  \"groups\": [";
  for (std::size_t g = 0; g < groups.size(); ++g) {
    const GroupSchedule& group = groups[g];
    s += g ? ",\n" : "\n";
    s += "    {\n";
    s += "      \"stages\": " + strings(group.stages) + ",\n";
    s += "      \"tile_sizes\": " + numbers(group.tile_sizes) + ",\n";
    s += "      \"shape\": " + quoted(tile_shape_name(group.shape)) + ",\n";
    s += "      \"inner_tile_sizes\": " + numbers(group.inner_tile_sizes) + ",\n";
    s += "      \"parallel_tile_dims\": " + std::to_string(group.parallel_tile_dims) + ",\n";
    if (group.parallel_schedule) // unset: the default, which follows the tiling
      s += "      \"parallel_schedule\": " +
           quoted(parallel_schedule_name(*group.parallel_schedule)) + ",\n";
    s += std::string("      \"vectorize\": ") + (group.vectorize ? "true" : "false") + ",\n";
    if (!group.vector_bytes.empty()) { // unset: the target's widest
      s += "      \"vector_bytes\": {";
      bool first_stage = true;
      for (const auto& [stage, bytes] : group.vector_bytes) {
        s += (first_stage ? "" : ", ") + quoted(stage) + ": " + std::to_string(bytes);
        first_stage = false;
      }
      s += "},\n";
    }
    if (!group.prefetch.empty()) { // unset: no software prefetch
      s += "      \"prefetch\": {";
      bool first_live_in = true;
      for (const auto& [live_in, rows] : group.prefetch) {
        s += (first_live_in ? "" : ", ") + quoted(live_in) + ": " + std::to_string(rows);
        first_live_in = false;
      }
      s += "},\n";
    }
    s += std::string("      \"intra_tile_fusion\": ") +
         (group.intra_tile_fusion ? "true" : "false") + ",\n";
    if (group.reassociate_float_sums) // unset: false, float sums in order
      s += "      \"reassociate_float_sums\": true,\n";
    s += "      \"reasons\": [";
    for (std::size_t r = 0; r < group.reasons.size(); ++r)
      s += (r ? ",\n        " : "\n        ") + quoted(group.reasons[r]);
    s += group.reasons.empty() ? "]\n" : "\n      ]\n";
    s += "    }";
  }
  s += groups.empty() ? "],\n" : "\n  ],\n";
  s += "  \"storage\": {";
  bool first = true;
  for (const auto& [stage, where] : storage) { // std::map: sorted, deterministic
    s += (first ? "\n    " : ",\n    ") + quoted(stage) + ": " + quoted(storage_name(where));
    first = false;
  }
  s += storage.empty() ? "}\n" : "\n  }\n";
  return s + "}\n";
}

Schedule Schedule::from_json(const std::string& text) { return Reader("schedule JSON").read(text); }

Schedule Schedule::load(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw Error("cannot read schedule file '" + path + "'");
  std::stringstream text;
  text << in.rdbuf();
  return Reader(path).read(text.str());
}

} // namespace trapeze
