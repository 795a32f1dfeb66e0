// Resolving the pipeline, parameters and inputs a command works on.
#include "pipeline_source.h"

#include "trapeze/image_io.h"
#include "trapeze/text_form.h"
#include "usage_error.h"

#include <fmt/core.h>

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>

namespace trapeze::cli {

PipelineSource resolve_pipeline(const std::string& app_or_file) {
  for (const apps::App& a : apps::all_apps())
    if (a.name == app_or_file) return PipelineSource{a.build(), &a, a.name};
  if (std::filesystem::is_regular_file(app_or_file))
    return PipelineSource{load_pipeline(app_or_file), nullptr, app_or_file};
  std::string names;
  for (const apps::App& a : apps::all_apps())
    names += (names.empty() ? "" : ", ") + a.name;
  throw UsageError("'" + app_or_file + "' is neither an app (" + names +
                   ") nor a pipeline text file");
}

namespace {

std::string parameter_list(const Pipeline& p) {
  std::string names;
  for (const ParamInfo& info : p.params())
    names +=
        (names.empty() ? "" : ", ") + info.name + " (" + std::string(type_name(info.type)) + ")";
  return names.empty() ? "it has none" : "its parameters: " + names;
}

// One --param value for `info`: an integer for int64, any number for a float.
ParamValue parse_param_value(const ParamInfo& info, const std::string& text) {
  const std::string what = "--param " + info.name + "=" + text;
  char* end = nullptr;
  errno = 0;
  if (info.type != ScalarType::Int64) {
    const double v = std::strtod(text.c_str(), &end);
    if (end == text.c_str() || *end != '\0')
      throw UsageError(what + ": '" + text + "' is not a number");
    if (errno == ERANGE && std::isinf(v))
      throw UsageError(what + ": '" + text + "' is out of the float64 range");
    return ParamValue(v);
  }
  const long long v = std::strtoll(text.c_str(), &end, 10);
  if (end == text.c_str() || *end != '\0')
    throw UsageError(what + ": parameter " + info.name + " is int64 and '" + text +
                     "' is not an integer");
  if (errno == ERANGE)
    throw UsageError(what + ": " + text + " is out of the int64 range [" +
                     std::to_string(INT64_MIN) + ", " + std::to_string(INT64_MAX) + "]");
  if ((info.min && v < *info.min) || (info.max && v > *info.max))
    throw UsageError(fmt::format("{}: parameter {} is declared in [{}, {}]", what, info.name,
                                 info.min ? std::to_string(*info.min) : "-inf",
                                 info.max ? std::to_string(*info.max) : "inf"));
  return ParamValue(static_cast<std::int64_t>(v));
}

} // namespace

ParamValues parse_param_arguments(const std::vector<std::string>& args, const Pipeline& p) {
  ParamValues values;
  for (const std::string& arg : args) {
    const auto eq = arg.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == arg.size())
      throw UsageError("--param expects NAME=VALUE, got '" + arg + "'");
    const std::string name = arg.substr(0, eq), text = arg.substr(eq + 1);
    const ParamInfo* info = nullptr;
    for (const ParamInfo& candidate : p.params())
      if (candidate.name == name) info = &candidate;
    if (!info)
      throw UsageError("--param " + arg + ": pipeline '" + p.name() + "' has no parameter named '" +
                       name + "' (" + parameter_list(p) + ")");
    if (values.count(name)) throw UsageError("--param " + name + " is given twice");
    values[name] = parse_param_value(*info, text);
  }
  return values;
}

BufferMap make_inputs(const PipelineSource& source, const ParamValues& bound) {
  if (source.app) return source.app->make_inputs(source.pipeline, bound);
  BufferMap inputs;
  std::uint64_t seed = 1;
  for (const auto& in : source.pipeline.inputs()) {
    SyntheticSpec spec;
    spec.type = in->type();
    spec.seed = seed++;
    for (const Expr& e : in->extents())
      spec.extents.push_back(evaluate_int(e, bound, "the extents of input " + in->describe()));
    if (is_integer(spec.type)) {
      spec.lo = 0;
      spec.hi = spec.type == ScalarType::Bool ? 1 : spec.type == ScalarType::UInt8 ? 255 : 1023;
    }
    inputs[in->name()] = synthetic_image(spec);
  }
  return inputs;
}

} // namespace trapeze::cli
