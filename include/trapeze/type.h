// Scalar element types of trapeze and their conversion rules.
//
// The rules follow C's usual arithmetic conversions, so that the generated C++
// computes exactly what the reference interpreter computes:
//  * bool, uint8, uint16 and int16 operands are promoted to int32 before any
//    arithmetic (C's integer promotion);
//  * otherwise the operand of lower rank is converted to the other's type,
//    ranked int32 < int64 < float32 < float64.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace trapeze {

/// The element type of an expression, a stage or a buffer.
enum class ScalarType : std::uint8_t { Bool, UInt8, UInt16, Int16, Int32, Int64, Float32, Float64 };

/// True for float32 and float64.
bool is_float(ScalarType t);
/// True for every type that is not a float (bool included).
bool is_integer(ScalarType t);
/// True for uint8, uint16 and bool.
bool is_unsigned(ScalarType t);
/// Size of one element in bytes.
int byte_size(ScalarType t);
/// The DSL and text-form name: "bool", "uint8", ..., "float32", "float64".
std::string_view type_name(ScalarType t);
/// The C++ spelling used by code generation: "bool", "uint8_t", ..., "float", "double".
std::string_view cpp_type_name(ScalarType t);
/// Parses type_name() output (also accepts "float" and "double"); nullopt if unknown.
std::optional<ScalarType> parse_type_name(std::string_view name);

/// C's integer promotion: types narrower than int32 become int32.
ScalarType promote(ScalarType t);
/// The type of `a op b` for an arithmetic operator under the usual conversions.
ScalarType arithmetic_result(ScalarType a, ScalarType b);

/// An integer value converted to integer type `t` as C++20 converts it:
/// modulo 2^bits for the narrow types, != 0 for bool. Float types: unchanged.
std::int64_t wrap_integer(ScalarType t, std::int64_t v);

/// Maps a C++ type to its ScalarType (compile-time).
template <typename T> struct type_of_t;
template <> struct type_of_t<bool> { static constexpr ScalarType value = ScalarType::Bool; };
template <> struct type_of_t<std::uint8_t> {
  static constexpr ScalarType value = ScalarType::UInt8;
};
template <> struct type_of_t<std::uint16_t> {
  static constexpr ScalarType value = ScalarType::UInt16;
};
template <> struct type_of_t<std::int16_t> {
  static constexpr ScalarType value = ScalarType::Int16;
};
template <> struct type_of_t<std::int32_t> {
  static constexpr ScalarType value = ScalarType::Int32;
};
template <> struct type_of_t<std::int64_t> {
  static constexpr ScalarType value = ScalarType::Int64;
};
template <> struct type_of_t<float> { static constexpr ScalarType value = ScalarType::Float32; };
template <> struct type_of_t<double> { static constexpr ScalarType value = ScalarType::Float64; };
template <typename T> inline constexpr ScalarType type_of = type_of_t<T>::value;

} // namespace trapeze
