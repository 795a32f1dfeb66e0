// What a command works on: an app by name or a pipeline text file, with its
// parameter values and input buffers.
#pragma once

#include "app.h"
#include "trapeze/pipeline.h"
#include "trapeze/runtime.h"

#include <optional>
#include <string>
#include <vector>

namespace trapeze::cli {

/// A pipeline to work on: an app (apps/) or a text-form file.
struct PipelineSource {
  Pipeline pipeline;
  const apps::App* app = nullptr; ///< null for a text-form file
  std::string label;              ///< the app name or the file path
};

/// An app name, or else a path to a text-form file. Throws UsageError listing
/// the apps if it is neither.
PipelineSource resolve_pipeline(const std::string& app_or_file);

/// Parses --param NAME=VALUE arguments against p's parameters: an int64
/// parameter takes an integer in its declared range, a float one any number.
/// Throws UsageError naming the argument on an unknown name, a malformed or
/// out-of-range value, or a name given twice.
ParamValues parse_param_arguments(const std::vector<std::string>& args, const Pipeline& p);

/// Synthetic inputs: the app's own, or, for a file, a deterministic synthetic
/// image per input (floats in [0, 1], integers over a 10-bit range).
BufferMap make_inputs(const PipelineSource& source, const ParamValues& bound);

} // namespace trapeze::cli
