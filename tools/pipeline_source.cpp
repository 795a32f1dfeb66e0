// Resolving the pipeline, parameters and inputs a command works on.
#include "pipeline_source.h"

#include "trapeze/image_io.h"
#include "trapeze/text_form.h"

#include <cerrno>
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
  throw Error("'" + app_or_file + "' is neither an app (" + names + ") nor a pipeline text file");
}

ParamValues parse_param_arguments(const std::vector<std::string>& args) {
  ParamValues values;
  for (const std::string& arg : args) {
    const auto eq = arg.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == arg.size())
      throw Error("--param expects NAME=VALUE, got '" + arg + "'");
    const std::string name = arg.substr(0, eq), text = arg.substr(eq + 1);
    const bool is_float = text.find_first_of(".eEnN") != std::string::npos;
    char* end = nullptr;
    errno = 0;
    if (is_float) {
      const double v = std::strtod(text.c_str(), &end);
      if (*end != '\0' || errno != 0)
        throw Error("--param " + name + ": '" + text + "' is not a number");
      values[name] = ParamValue(v);
    } else {
      const long long v = std::strtoll(text.c_str(), &end, 10);
      if (*end != '\0' || errno != 0)
        throw Error("--param " + name + ": '" + text + "' is not an integer");
      values[name] = ParamValue(static_cast<std::int64_t>(v));
    }
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
