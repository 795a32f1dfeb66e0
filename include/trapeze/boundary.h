// Boundary conditions, with Halide's names and meanings: a stage that reads
// its source inside the source's domain and, within a margin around it,
// what the condition says a point outside holds.
//
//   Image img("img", ScalarType::Float32, {R, C});
//   Func padded = boundary::repeat_edge(img, {1, 1});   // domain [-1, R] x [-1, C]
//   Func edge = boundary::repeat_edge(img);   // margins inferred from its readers
//   blur.define((padded(x - 1, y) + padded(x, y) + padded(x + 1, y)) / 3.0f);
//
// The result is an ordinary stage defined by cases: the source's own box
// reads the source directly, the rest computes the edge's index (or the
// constant). Lowering splits such a stage into the interior box and the
// border boxes (case partitioning), so only the thin border computes an index,
// and it inlines into and fuses with its consumers under any schedule.
#pragma once

#include "trapeze/dsl.h"

#include <cstdint>
#include <optional>
#include <source_location>
#include <string>
#include <vector>

namespace trapeze::boundary {

enum class Condition : std::uint8_t {
  RepeatEdge,
  RepeatImage,
  MirrorImage,
  MirrorInterior,
  ConstantExterior,
};
/// "repeat_edge", "repeat_image", "mirror_image", "mirror_interior", "constant_exterior".
const char* condition_name(Condition c);
/// The condition of that name, if any.
std::optional<Condition> condition_named(const std::string& name);

/// Where a boundary stage is made, as error messages name it: the caller's
/// line by default. A type of its own, so that braced margins such as {0, 2}
/// never read as a location.
struct MadeAt {
  consteval MadeAt(std::source_location l = std::source_location::current())
      : where{l.file_name(), static_cast<int>(l.line())} {}
  /// A location of another kind (the text form's lines).
  static MadeAt at(SourceLocation w) {
    MadeAt m;
    m.where = w;
    return m;
  }
  SourceLocation where;
};

/// `margins` has one entry per dimension of the source: how many points the
/// result extends it by on each side (0 leaves that dimension as it is),
/// affine in the parameters and non-negative. The result is named
/// "<source>_<condition>" and has the source's type.
///
/// Without margins, the first Pipeline that reads the result infers them
/// from its readers: in each dimension, as many points as the farthest index
/// read lies beyond the source's domain (the same on both sides). Each index
/// must be a sum of the reader's variables (or reduction variables) times
/// integers, parameters and constants whose lowest and highest values differ
/// from the source's bounds by constants: `x - 1`, `y + 2`, `0` (a down-sampling
/// `2 * x` over [0, W / 2 - 1] does not); anything else is an error asking for
/// the margins. Once inferred they stay: a later pipeline whose readers need
/// more is refused with the same request.

/// A point outside reads the nearest point of the edge (clamped indices).
Func repeat_edge(const Image& source, std::vector<Expr> margins, MadeAt made_at = {});
Func repeat_edge(const Func& source, std::vector<Expr> margins, MadeAt made_at = {});
Func repeat_edge(const Image& source, MadeAt made_at = {}); ///< margins inferred
Func repeat_edge(const Func& source, MadeAt made_at = {});
/// The source repeats as tiles: a point outside reads lo + (x - lo) mod extent.
Func repeat_image(const Image& source, std::vector<Expr> margins, MadeAt made_at = {});
Func repeat_image(const Func& source, std::vector<Expr> margins, MadeAt made_at = {});
Func repeat_image(const Image& source, MadeAt made_at = {}); ///< margins inferred
Func repeat_image(const Func& source, MadeAt made_at = {});
/// Reflected about the edge, the edge itself repeated: lo - 1 reads lo,
/// lo - 2 reads lo + 1 (for any margin: the reflection repeats).
Func mirror_image(const Image& source, std::vector<Expr> margins, MadeAt made_at = {});
Func mirror_image(const Func& source, std::vector<Expr> margins, MadeAt made_at = {});
Func mirror_image(const Image& source, MadeAt made_at = {}); ///< margins inferred
Func mirror_image(const Func& source, MadeAt made_at = {});
/// Reflected about the edge point: lo - 1 reads lo + 1 (a dimension of one
/// point reads it everywhere).
Func mirror_interior(const Image& source, std::vector<Expr> margins, MadeAt made_at = {});
Func mirror_interior(const Func& source, std::vector<Expr> margins, MadeAt made_at = {});
Func mirror_interior(const Image& source, MadeAt made_at = {}); ///< margins inferred
Func mirror_interior(const Func& source, MadeAt made_at = {});
/// A point outside is `value` (converted to the source's type).
Func constant_exterior(const Image& source, Expr value, std::vector<Expr> margins,
                       MadeAt made_at = {});
Func constant_exterior(const Func& source, Expr value, std::vector<Expr> margins,
                       MadeAt made_at = {});
Func constant_exterior(const Image& source, Expr value, MadeAt made_at = {}); ///< margins inferred
Func constant_exterior(const Func& source, Expr value, MadeAt made_at = {});

/// Any condition by value, as the functions above, the result named `name`
/// (empty: "<source>_<condition>"); `value` is used by ConstantExterior only,
/// and margins of nullopt are inferred. The text form builds its boundary
/// stages with these.
Func apply(Condition c, const Image& source, Expr value, std::optional<std::vector<Expr>> margins,
           const std::string& name = "", MadeAt made_at = {});
Func apply(Condition c, const Func& source, Expr value, std::optional<std::vector<Expr>> margins,
           const std::string& name = "", MadeAt made_at = {});

} // namespace trapeze::boundary
