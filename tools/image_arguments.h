// `--input [NAME=]FILE` and `--output [NAME=]FILE` of `trapeze run`: images
// bound to a pipeline's inputs (their sizes giving parameter values) and its
// outputs written as image files.
#pragma once

#include "pipeline_source.h"

#include <string>
#include <vector>

namespace trapeze::cli {

/// The inputs read from image files, and the parameter values their sizes give.
struct BoundImages {
  BufferMap inputs;  ///< by input name; the inputs without an image are not here
  ParamValues given; ///< the --param values with those the images determine
};

/// Reads the `--input` arguments of `source`: NAME=FILE for input NAME of an
/// app or a file, or a single FILE (an app's image, sized and mapped by the app
/// as before; for a file, its only input). Each image is converted to its
/// input's type (image_for_input) and the parameters are inferred from their
/// sizes (infer_params), the --param values in `given` winning where they
/// agree. Throws UsageError (exit code 2), one line, for a malformed argument,
/// an unknown or repeated input, a bad file or an image that does not fit.
BoundImages bind_input_images(const PipelineSource& source, const std::vector<std::string>& args,
                              const ParamValues& given);

/// The output each `--output` argument names and its file: NAME=FILE, or FILE
/// for the first output. Throws UsageError for an unknown or repeated output
/// or a file extension that is no image format.
std::vector<std::pair<std::string, std::string>>
parse_output_arguments(const Pipeline& p, const std::vector<std::string>& args);

/// Writes an output by its file's extension: float values in [0, 1] as 8-bit
/// for PNG and JPEG, every type as it is for TIFF and .npy.
void write_output(const std::string& name, const Buffer& out, const std::string& path);

} // namespace trapeze::cli
