// Boundary conditions, with Halide's names and meanings: a stage that reads
// its source inside the source's domain and, within a margin around it,
// what the condition says a point outside holds.
//
//   Image img("img", ScalarType::Float32, {R, C});
//   Func padded = boundary::repeat_edge(img, {1, 1});   // domain [-1, R] x [-1, C]
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

/// `margins` has one entry per dimension of the source: how many points the
/// result extends it by on each side (0 leaves that dimension as it is),
/// affine in the parameters and non-negative. The result is named
/// "<source>_<condition>" and has the source's type.

/// A point outside reads the nearest point of the edge (clamped indices).
Func repeat_edge(const Image& source, std::vector<Expr> margins);
Func repeat_edge(const Func& source, std::vector<Expr> margins);
/// The source repeats as tiles: a point outside reads lo + (x - lo) mod extent.
Func repeat_image(const Image& source, std::vector<Expr> margins);
Func repeat_image(const Func& source, std::vector<Expr> margins);
/// Reflected about the edge, the edge itself repeated: lo - 1 reads lo,
/// lo - 2 reads lo + 1 (for any margin: the reflection repeats).
Func mirror_image(const Image& source, std::vector<Expr> margins);
Func mirror_image(const Func& source, std::vector<Expr> margins);
/// Reflected about the edge point: lo - 1 reads lo + 1 (a dimension of one
/// point reads it everywhere).
Func mirror_interior(const Image& source, std::vector<Expr> margins);
Func mirror_interior(const Func& source, std::vector<Expr> margins);
/// A point outside is `value` (converted to the source's type).
Func constant_exterior(const Image& source, Expr value, std::vector<Expr> margins);
Func constant_exterior(const Func& source, Expr value, std::vector<Expr> margins);

/// Any condition by value, as the functions above, the result named `name`
/// (empty: "<source>_<condition>"); `value` is used by ConstantExterior only.
/// The text form builds its boundary stages with these.
Func apply(Condition c, const Image& source, Expr value, std::vector<Expr> margins,
           const std::string& name = "");
Func apply(Condition c, const Func& source, Expr value, std::vector<Expr> margins,
           const std::string& name = "");

} // namespace trapeze::boundary
