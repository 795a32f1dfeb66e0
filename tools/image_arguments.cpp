// Binding image files to a pipeline's inputs and outputs on the command line.
#include "image_arguments.h"

#include "trapeze/image_io.h"
#include "trapeze/input_images.h"
#include "usage_error.h"

#include <fmt/core.h>

#include <algorithm>
#include <cctype>
#include <map>

namespace trapeze::cli {

namespace {

/// One `--input` or `--output` argument: NAME=FILE, or FILE with no name.
struct ImageArgument {
  std::string text; ///< as given, for messages
  std::string name; ///< empty: unnamed
  std::string path;
};

bool is_identifier(const std::string& s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  for (const char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  return true;
}

// A file name may hold '=' too: only an identifier before it makes a NAME.
ImageArgument parse_image_argument(const std::string& option, const std::string& arg) {
  const auto eq = arg.find('=');
  if (eq != std::string::npos && is_identifier(arg.substr(0, eq))) {
    if (eq + 1 == arg.size())
      throw UsageError(option + " " + arg + ": expected NAME=FILE, and the file is missing");
    return {arg, arg.substr(0, eq), arg.substr(eq + 1)};
  }
  return {arg, "", arg};
}

template <typename Named> std::string names_of(const std::vector<Named>& items) {
  std::string names;
  for (const auto& item : items)
    names += (names.empty() ? "" : ", ") + item->name();
  return names.empty() ? "none" : names;
}

/// Named arguments, each name checked against `items` (and used once unless
/// `repeat`: an output may be written to several files).
template <typename Named> void check_names(const std::string& option,
                                           const std::vector<ImageArgument>& args,
                                           const std::vector<Named>& items, const std::string& kind,
                                           const Pipeline& p, bool repeat = false) {
  std::map<std::string, int> seen;
  for (const ImageArgument& a : args) {
    if (a.name.empty()) continue;
    bool known = false;
    for (const auto& item : items)
      known = known || item->name() == a.name;
    if (!known)
      throw UsageError(option + " " + a.text + ": pipeline '" + p.name() + "' has no " + kind +
                       " named '" + a.name + "' (its " + kind + "s: " + names_of(items) + ")");
    if (seen[a.name]++ && !repeat) throw UsageError(option + " " + a.name + "=... is given twice");
  }
}

} // namespace

BoundImages bind_input_images(const PipelineSource& source, const std::vector<std::string>& args,
                              const ParamValues& given) {
  const Pipeline& p = source.pipeline;
  BoundImages bound{{}, given};
  if (args.empty()) return bound;
  std::vector<ImageArgument> parsed;
  for (const std::string& arg : args)
    parsed.push_back(parse_image_argument("--input", arg));
  const std::size_t unnamed = static_cast<std::size_t>(
      std::count_if(parsed.begin(), parsed.end(), [](const auto& a) { return a.name.empty(); }));
  if (unnamed > 0 && parsed.size() > 1)
    throw UsageError("--input " + parsed.front().text +
                     ": give one image without a name, or every image as --input NAME=FILE");
  check_names("--input", parsed, p.inputs(), "input", p);

  const ImageArgument& first = parsed.front();
  if (unnamed == 1 && source.app) {
    // An app maps one image onto its inputs itself, and knows the sizes it gives.
    try {
      const Buffer image = read_image(first.path);
      const std::int64_t rows = image.extent(image.dimensions() - 2);
      const std::int64_t cols = image.extent(image.dimensions() - 1);
      ParamValues sized = source.app->size_for_image(rows, cols);
      for (const auto& [name, v] : given)
        sized[name] = v; // explicit values win
      bound.given = sized;
      bound.inputs = source.app->inputs_from_image(p, p.bind(sized), image);
    } catch (const Error& e) { // a bad argument: exit code 2
      throw UsageError("--input " + first.text + ": " + e.what());
    }
    return bound;
  }
  if (unnamed == 1) {
    if (p.inputs().size() != 1)
      throw UsageError("--input " + first.text + ": pipeline '" + p.name() + "' has " +
                       std::to_string(p.inputs().size()) + " inputs (" + names_of(p.inputs()) +
                       "); name the one it is for with --input NAME=FILE");
    parsed.front().name = p.inputs().front()->name();
  }

  std::map<std::string, InputShape> shapes;
  for (const ImageArgument& a : parsed) {
    try {
      Buffer image = image_for_input(p, a.name, read_image(a.path), a.path);
      shapes[a.name] = InputShape{image.extents(), a.path};
      bound.inputs[a.name] = std::move(image);
    } catch (const Error& e) {
      throw UsageError("--input " + a.text + ": " + e.what());
    }
  }
  try {
    bound.given = infer_params(p, shapes, given);
  } catch (const Error& e) {
    throw UsageError(std::string("--input: ") + e.what());
  }
  return bound;
}

std::vector<std::pair<std::string, std::string>>
parse_output_arguments(const Pipeline& p, const std::vector<std::string>& args) {
  std::vector<ImageArgument> parsed;
  for (const std::string& arg : args)
    parsed.push_back(parse_image_argument("--output", arg));
  check_names("--output", parsed, p.outputs(), "output", p, /*repeat=*/true);
  std::vector<std::pair<std::string, std::string>> outputs;
  bool unnamed = false;
  for (const ImageArgument& a : parsed) {
    if (a.name.empty() && unnamed)
      throw UsageError("--output " + a.text +
                       ": only one output can go without a name (the first, '" +
                       p.outputs().front()->name() + "'); name the others with --output NAME=FILE");
    unnamed = unnamed || a.name.empty();
    try {
      format_for_path(a.path); // an unknown extension before the run, not after
    } catch (const Error& e) {
      throw UsageError("--output " + a.text + ": " + e.what());
    }
    outputs.emplace_back(a.name.empty() ? p.outputs().front()->name() : a.name, a.path);
  }
  return outputs;
}

void write_output(const std::string& name, const Buffer& out, const std::string& path) {
  const ImageFormat format = format_for_path(path);
  const bool eight_bit = format == ImageFormat::Png || format == ImageFormat::Jpeg;
  try {
    write_image(eight_bit && is_float(out.type()) ? from_float(out, ScalarType::UInt8) : out, path);
  } catch (const Error& e) {
    throw Error("output '" + name + "': " + e.what() +
                (eight_bit ? " (a .tif or .npy file holds more types and shapes)" : ""));
  }
}

} // namespace trapeze::cli
