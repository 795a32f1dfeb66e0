// Scalar types and C's usual arithmetic conversions.
#include "trapeze/type.h"

#include "trapeze/error.h"

namespace trapeze {

bool is_float(ScalarType t) { return t == ScalarType::Float32 || t == ScalarType::Float64; }

bool is_integer(ScalarType t) { return !is_float(t); }

bool is_unsigned(ScalarType t) {
  return t == ScalarType::Bool || t == ScalarType::UInt8 || t == ScalarType::UInt16;
}

int byte_size(ScalarType t) {
  switch (t) {
  case ScalarType::Bool:
  case ScalarType::UInt8: return 1;
  case ScalarType::UInt16:
  case ScalarType::Int16: return 2;
  case ScalarType::Int32:
  case ScalarType::Float32: return 4;
  case ScalarType::Int64:
  case ScalarType::Float64: return 8;
  }
  TRAPEZE_ASSERT(false, "unknown ScalarType");
}

std::string_view type_name(ScalarType t) {
  switch (t) {
  case ScalarType::Bool: return "bool";
  case ScalarType::UInt8: return "uint8";
  case ScalarType::UInt16: return "uint16";
  case ScalarType::Int16: return "int16";
  case ScalarType::Int32: return "int32";
  case ScalarType::Int64: return "int64";
  case ScalarType::Float32: return "float32";
  case ScalarType::Float64: return "float64";
  }
  TRAPEZE_ASSERT(false, "unknown ScalarType");
}

std::string_view cpp_type_name(ScalarType t) {
  switch (t) {
  case ScalarType::Bool: return "bool";
  case ScalarType::UInt8: return "uint8_t";
  case ScalarType::UInt16: return "uint16_t";
  case ScalarType::Int16: return "int16_t";
  case ScalarType::Int32: return "int32_t";
  case ScalarType::Int64: return "int64_t";
  case ScalarType::Float32: return "float";
  case ScalarType::Float64: return "double";
  }
  TRAPEZE_ASSERT(false, "unknown ScalarType");
}

std::optional<ScalarType> parse_type_name(std::string_view name) {
  for (ScalarType t :
       {ScalarType::Bool, ScalarType::UInt8, ScalarType::UInt16, ScalarType::Int16,
        ScalarType::Int32, ScalarType::Int64, ScalarType::Float32, ScalarType::Float64}) {
    if (name == type_name(t)) return t;
  }
  if (name == "float") return ScalarType::Float32;
  if (name == "double") return ScalarType::Float64;
  return std::nullopt;
}

std::int64_t wrap_integer(ScalarType t, std::int64_t v) {
  switch (t) {
  case ScalarType::Bool: return v != 0 ? 1 : 0;
  case ScalarType::UInt8: return static_cast<std::uint8_t>(v);
  case ScalarType::UInt16: return static_cast<std::uint16_t>(v);
  case ScalarType::Int16: return static_cast<std::int16_t>(v);
  case ScalarType::Int32: return static_cast<std::int32_t>(v);
  default: return v;
  }
}

ScalarType promote(ScalarType t) {
  switch (t) {
  case ScalarType::Bool:
  case ScalarType::UInt8:
  case ScalarType::UInt16:
  case ScalarType::Int16: return ScalarType::Int32;
  default: return t;
  }
}

ScalarType arithmetic_result(ScalarType a, ScalarType b) {
  // After promotion the remaining types are totally ordered by rank.
  const auto rank = [](ScalarType t) {
    switch (t) {
    case ScalarType::Int32: return 0;
    case ScalarType::Int64: return 1;
    case ScalarType::Float32: return 2;
    case ScalarType::Float64: return 3;
    default: return -1;
    }
  };
  const ScalarType pa = promote(a), pb = promote(b);
  return rank(pa) >= rank(pb) ? pa : pb;
}

} // namespace trapeze
