// Reading JSON that a user wrote or may have edited (schedules, machine
// models, the auto-tuner's results): nlohmann's parser, made strict where it
// is lenient. A key given twice in one object is an error (nlohmann keeps the
// last value silently), and so is nesting deeper than the formats need (an
// adversarial document nested 100,000 deep parses, then overflows the stack
// in anything that recurses over it, such as dump()).
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace trapeze::frontend {

/// The deepest nesting a strict document may have. trapeze's own formats
/// need 3 (a schedule: object, groups array, group object, tile array).
constexpr int max_json_depth = 16;

/// Parses `text`; throws trapeze::Error beginning with `what` on malformed
/// JSON, a duplicate key (naming it and its object's path) or nesting deeper
/// than max_json_depth.
nlohmann::json parse_strict_json(const std::string& text, const std::string& what);

} // namespace trapeze::frontend
