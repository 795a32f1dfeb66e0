// The text form of a pipeline: a readable file that round-trips exactly
// (grammar in docs/text-form.md). A bug report, a fuzzer's reproducer or a
// user's experiment is one such file.
#pragma once

#include "trapeze/pipeline.h"

#include <string>

namespace trapeze {

/// The pipeline as text: parameters (with defaults), inputs, stages in
/// topological order with domains and definitions, and the outputs.
std::string to_text(const Pipeline& p);

/// Parses the text form. A malformed text throws trapeze::Error whose message
/// starts with "FILENAME:LINE:COLUMN: ".
Pipeline parse_pipeline(const std::string& text, const std::string& filename = "<text>");
/// Reads and parses a file.
Pipeline load_pipeline(const std::string& path);

} // namespace trapeze
