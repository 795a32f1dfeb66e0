// Images as a pipeline's inputs: parameters inferred from their sizes, and
// conversion to the type and rank an input declares. `trapeze run FILE
// --input NAME=photo.png` is built on these two.
#pragma once

#include "trapeze/buffer.h"
#include "trapeze/pipeline.h"

#include <map>
#include <string>
#include <vector>

namespace trapeze {

/// The extents an input is given, and where they come from (for messages).
struct InputShape {
  std::vector<std::int64_t> extents;
  std::string source; ///< "photo.png"
};

/// Parameter values that give the inputs in `shapes` (by input name) these
/// extents. Each declared extent (an int64 expression of parameters) must
/// equal its image's: an extent affine in a single parameter not yet known
/// with a nonzero coefficient (`R + 2`, `2 * R`, `C - 4`, also `R / 2` where
/// one R alone gives the size) determines that parameter; parameters already
/// known (given, or inferred from another extent) are substituted first, so
/// `R + K` gives R once K is known. Returns `given` with the inferred values
/// added. Throws trapeze::Error naming the input, the extent and the file if a
/// name is not an input of `p`, a rank differs, no integer value gives a size,
/// two images (or an image and `given`) disagree, or an extent has another
/// size; and naming a parameter that has no value, no default and no extent
/// that determines it, with why (it appears in no extent, or only in extents
/// with other unknowns or that are not affine).
ParamValues infer_params(const Pipeline& p, const std::map<std::string, InputShape>& shapes,
                         const ParamValues& given);

/// `image` (read_image's output) as a buffer for input `input` of `p`:
///  - shape: a one-channel image [rows][cols] fills an input declared
///    [1][rows][cols]; otherwise the ranks must match, and a colour image's
///    channel count ([c][rows][cols]) the input's first extent where that is
///    a constant;
///  - type: uint8 and uint16 images become float in [0, 1] (to_float) for a
///    float input; other integers keep their values for a float input; floats
///    convert to the other float type; integers keep their values for an
///    integer input when every value fits in its type. A float image for an
///    integer input is an error.
/// `source` names the image in messages ("photo.png"). Throws trapeze::Error
/// ("input 'img' of pipeline 'x' is float32[3][R + 2][C + 2]; photo.png has 4
/// channels"). The extents themselves are infer_params's to check.
Buffer image_for_input(const Pipeline& p, const std::string& input, const Buffer& image,
                       const std::string& source);

/// "float32[3][R + 2][C + 2]": an input's declaration, as messages show it.
std::string input_declaration(const ir::InputImage& input);

} // namespace trapeze
