// Strict JSON reading: duplicate keys and deep nesting are errors.
#include "frontend/strict_json.h"

#include "trapeze/error.h"

#include <set>
#include <vector>

namespace trapeze::frontend {

namespace {

// Where the parser is: one frame per open object or array, so that an error
// can name the path ("groups[2]") of the object it is in.
class Nesting {
public:
  explicit Nesting(const std::string& what) : what_(what) {}

  bool on_event(nlohmann::json::parse_event_t event, const nlohmann::json& parsed) {
    using Event = nlohmann::json::parse_event_t;
    switch (event) {
    case Event::object_start:
    case Event::array_start:
      if (static_cast<int>(frames_.size()) >= max_json_depth)
        throw Error(what_ + ": " + path() + " nests deeper than " + std::to_string(max_json_depth) +
                    " levels");
      frames_.push_back(Frame{event == Event::object_start, {}, {}, 0});
      break;
    case Event::key: {
      Frame& top = frames_.back();
      top.key = parsed.get<std::string>();
      if (!top.keys.insert(top.key).second)
        throw Error(what_ + ": the key \"" + top.key + "\" appears twice in " + object_path());
      break;
    }
    case Event::object_end:
    case Event::array_end:
      frames_.pop_back();
      element_done();
      break;
    case Event::value: element_done(); break;
    }
    return true; // keep everything
  }

private:
  struct Frame {
    bool object;
    std::set<std::string> keys;
    std::string key;       // an object's current key
    std::size_t index = 0; // an array's current element
  };

  void element_done() {
    if (!frames_.empty() && !frames_.back().object) ++frames_.back().index;
  }

  // The path of the innermost open value: "groups[2].tile_sizes".
  std::string path() const {
    std::string s;
    for (const Frame& f : frames_)
      s += f.object ? (s.empty() ? "" : ".") + f.key : "[" + std::to_string(f.index) + "]";
    return s.empty() ? "the document" : s;
  }

  // The path of the innermost open object (where a duplicate key is).
  std::string object_path() const {
    std::string s;
    for (std::size_t i = 0; i + 1 < frames_.size(); ++i) {
      const Frame& f = frames_[i];
      s += f.object ? (s.empty() ? "" : ".") + f.key : "[" + std::to_string(f.index) + "]";
    }
    return s.empty() ? "the top-level object" : "the object at " + s;
  }

  const std::string& what_;
  std::vector<Frame> frames_;
};

} // namespace

nlohmann::json parse_strict_json(const std::string& text, const std::string& what) {
  Nesting nesting(what);
  try {
    return nlohmann::json::parse(
        text, [&](int, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
          return nesting.on_event(event, parsed);
        });
  } catch (const nlohmann::json::parse_error& e) {
    throw Error(what + ": not valid JSON: " + e.what());
  }
}

} // namespace trapeze::frontend
