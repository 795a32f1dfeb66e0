// The caller's buffers in generated code: their C type, their checks at
// entry, and dense copies of layouts whose last dimension is not contiguous.
#include "codegen/cpp_arguments.h"

#include "analysis/bounds_prover.h"
#include "codegen/cpp_expr.h"

#include <cctype>

namespace trapeze::codegen {

using namespace ir;

// trapeze_type's values are ScalarType's (BufferArgument::type).
static_assert(static_cast<int>(ScalarType::Bool) == 0 && static_cast<int>(ScalarType::UInt8) == 1 &&
              static_cast<int>(ScalarType::UInt16) == 2 &&
              static_cast<int>(ScalarType::Int16) == 3 &&
              static_cast<int>(ScalarType::Int32) == 4 &&
              static_cast<int>(ScalarType::Int64) == 5 &&
              static_cast<int>(ScalarType::Float32) == 6 &&
              static_cast<int>(ScalarType::Float64) == 7);

const char* const kAbiTypedefs =
    "#ifndef TRAPEZE_ABI_DEFINED\n"
    "#define TRAPEZE_ABI_DEFINED\n"
    "typedef union {\n"
    "  int64_t i;\n"
    "  double f;\n"
    "} trapeze_param;\n"
    "/* Where intermediate buffers come from. allocate returns 64-byte aligned\n"
    "   memory or NULL; release gets back what allocate gave. A NULL allocator\n"
    "   means aligned_alloc and free. */\n"
    "typedef struct trapeze_allocator {\n"
    "  void* (*allocate)(void* context, size_t bytes);\n"
    "  void (*release)(void* context, void* memory);\n"
    "  void* context;\n"
    "} trapeze_allocator;\n"
    "/* Element types. */\n"
    "typedef enum trapeze_type {\n"
    "  TRAPEZE_BOOL = 0,\n"
    "  TRAPEZE_UINT8 = 1,\n"
    "  TRAPEZE_UINT16 = 2,\n"
    "  TRAPEZE_INT16 = 3,\n"
    "  TRAPEZE_INT32 = 4,\n"
    "  TRAPEZE_INT64 = 5,\n"
    "  TRAPEZE_FLOAT32 = 6,\n"
    "  TRAPEZE_FLOAT64 = 7\n"
    "} trapeze_type;\n"
    "/* A caller's buffer: element (i_0, ..., i_n-1) is data[sum(i_d * stride[d])].\n"
    "   Strides are in elements, of any sign and order; a last dimension of\n"
    "   stride 1 is read and written in place, any other layout through a dense\n"
    "   copy. Outputs must not overlap inputs or each other. */\n"
    "typedef struct trapeze_buffer {\n"
    "  void* data;            /* element (0, ..., 0) */\n"
    "  const int64_t* extent; /* dimensions entries */\n"
    "  const int64_t* stride; /* dimensions entries, in elements */\n"
    "  int32_t dimensions;\n"
    "  int32_t type; /* a trapeze_type */\n"
    "} trapeze_buffer;\n"
    "#endif\n";

const char* const kBufferArgumentDefinitions =
    R"TZ(// The caller's buffers (trapeze_buffer): checked at entry, then read and
// written in place, or through a dense copy when the last dimension is not
// contiguous, so that every loop of the body runs at unit stride.
const char* const tz_type_names[] = {"bool",  "uint8", "uint16",  "int16",
                                     "int32", "int64", "float32", "float64"};

inline void tz_shape_text(char* text, size_t size, const char* type, const int64_t* extent,
                          int dims) {
  size_t n = (size_t)snprintf(text, size, "%s", type);
  for (int d = 0; d < dims && n < size; ++d)
    n += (size_t)snprintf(text + n, size - n, "[%lld]", (long long)extent[d]);
}

// Whether the caller's buffer is what the parameters make of `what` (a
// "kind 'name'"); else the call fails with code 4, saying how it differs.
inline bool tz_check_buffer(tz_status& s, const char* what, const trapeze_buffer& b, int type,
                            const int64_t* extent, int dims) {
  bool same = b.dimensions == dims && b.type == type;
  for (int d = 0; same && d < dims; ++d)
    same = b.extent && b.stride && b.extent[d] == extent[d];
  if (!same) {
    char expected[256], given[256];
    tz_shape_text(expected, sizeof expected, tz_type_names[type], extent, dims);
    const bool known = b.type >= 0 && b.type < 8;
    if (b.dimensions < 0 || b.dimensions > 64 || (b.dimensions > 0 && !b.extent))
      snprintf(given, sizeof given, "%s with %d dimensions", known ? tz_type_names[b.type] : "?",
               (int)b.dimensions);
    else
      tz_shape_text(given, sizeof given, known ? tz_type_names[b.type] : "(unknown type)",
                    b.extent, b.dimensions);
    tz_fail(s, 4, "%s must be %s for these parameters, but the given buffer is %s", what,
            expected, given);
    return false;
  }
  if (!b.data) {
    tz_fail(s, 4, "%s: the given buffer's data pointer is null", what);
    return false;
  }
  return true;
}

// The bytes from the lowest to one past the highest element of a checked buffer.
inline void tz_byte_span(const trapeze_buffer& b, int64_t element_bytes, const char*& lo,
                         const char*& hi) {
  int64_t low = 0, high = 0;
  for (int d = 0; d < b.dimensions; ++d) {
    const int64_t step = (b.extent[d] - 1) * b.stride[d];
    (step < 0 ? low : high) += step;
  }
  lo = (const char*)b.data + low * element_bytes;
  hi = (const char*)b.data + (high + 1) * element_bytes;
}

// Fails the call (code 4) if two buffers share memory: the body writes
// outputs while it reads inputs, and its pointers promise no aliasing.
inline bool tz_check_disjoint(tz_status& s, const char* what, const trapeze_buffer& a,
                              int64_t a_bytes, const char* other, const trapeze_buffer& b,
                              int64_t b_bytes) {
  const char *a_lo, *a_hi, *b_lo, *b_hi;
  tz_byte_span(a, a_bytes, a_lo, a_hi);
  tz_byte_span(b, b_bytes, b_lo, b_hi);
  if (a_lo < b_hi && b_lo < a_hi) {
    tz_fail(s, 4, "%s and %s overlap in memory; an output needs memory of its own", what, other);
    return false;
  }
  return true;
}

// Copies every element of an N-dimensional array from one layout to another
// (strides in elements), row by row along the last dimension, the rows in
// the order of the source's memory (so that an interleaved image is read
// once, each row of pixels while it is in cache), in parallel when large.
template <typename T, int N>
void tz_copy_elements(T* to, const int64_t* to_stride, const T* from, const int64_t* from_stride,
                      const int64_t* extent, int threads) {
  if (N == 0) {
    *to = *from;
    return;
  }
  // The outer dimensions, the one whose source stride is largest first.
  int order[N > 1 ? N - 1 : 1] = {};
  int64_t rows = 1;
  for (int d = 0; d + 1 < N; ++d) {
    int k = d;
    for (; k > 0 && llabs(from_stride[order[k - 1]]) < llabs(from_stride[d]); --k)
      order[k] = order[k - 1];
    order[k] = d;
    rows *= extent[d];
  }
  const int64_t n = extent[N - 1], t = to_stride[N - 1], f = from_stride[N - 1];
  #pragma omp parallel for num_threads(threads) schedule(static) if (rows * n >= 65536)
  for (int64_t row = 0; row < rows; ++row) {
    int64_t a = 0, b = 0, rest = row;
    for (int k = N - 2; k >= 0; --k) {
      const int d = order[k];
      const int64_t i = rest % extent[d];
      rest /= extent[d];
      a += i * to_stride[d];
      b += i * from_stride[d];
    }
    T* dst = to + a;
    const T* src = from + b;
    for (int64_t i = 0; i < n; ++i)
      dst[i * t] = src[i * f];
  }
}

// A caller's buffer as the body uses it: `data` and `stride` (in elements)
// are the caller's when its last dimension is contiguous, else those of a
// dense copy that this owns.
template <typename T, int N> struct tz_argument {
  T* data = nullptr;
  int64_t stride[N > 0 ? N : 1] = {};
  void* copy = nullptr;
  const trapeze_allocator* allocator = nullptr;

  // Binds the checked buffer `b`; an input's dense copy is filled here.
  bool bind(tz_status& s, const char* what, const trapeze_buffer& b, bool input,
            const trapeze_allocator* a, int threads) {
    data = static_cast<T*>(b.data);
    for (int d = 0; d < N; ++d)
      stride[d] = b.stride[d];
    if (N == 0 || b.stride[N - 1] == 1) return true;
    int64_t count = 1;
    for (int d = N; d-- > 0;) {
      stride[d] = count;
      count *= b.extent[d];
    }
    const size_t bytes = size_t((count * int64_t(sizeof(T)) + 63) / 64 * 64);
    allocator = a;
    copy = a ? a->allocate(a->context, bytes) : aligned_alloc(64, bytes);
    if (!copy) {
      tz_fail(s, 1, "out of memory: %zu bytes for a dense copy of %s", bytes, what);
      return false;
    }
    using E = std::remove_const_t<T>;
    if (input)
      tz_copy_elements<E, N>(static_cast<E*>(copy), stride, static_cast<const E*>(b.data),
                             b.stride, b.extent, threads);
    data = static_cast<T*>(copy);
    return true;
  }

  // An output's dense copy back to the caller's layout.
  void finish(const trapeze_buffer& b, int threads) const {
    if (copy)
      tz_copy_elements<T, N>(static_cast<T*>(b.data), b.stride, data, stride, b.extent, threads);
  }

  ~tz_argument() {
    if (!copy) return;
    if (allocator)
      allocator->release(allocator->context, copy);
    else
      free(copy);
  }
};

)TZ";

std::string argument_name(bool input, int slot) {
  return std::string(input ? "tz_input" : "tz_output") + std::to_string(slot);
}

namespace {

struct Argument {
  std::string what; ///< "input 'img'"
  std::string slot; ///< "inputs[0]"
  std::string name; ///< argument_name
  ScalarType type;
  std::vector<Expr> extents;
  bool input;
};

// TRAPEZE_FLOAT32 for float32: the trapeze_type constant.
std::string type_constant(ScalarType type) {
  std::string s = "TRAPEZE_";
  for (char c : type_name(type))
    s += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

} // namespace

BufferArgumentCode bind_buffer_arguments(const Pipeline& p,
                                         const std::function<std::string(const Expr&)>& extent,
                                         const std::string& threads) {
  const analysis::BoundsProver prover = analysis::BoundsProver::for_pipeline(p);
  std::vector<Argument> arguments;
  for (std::size_t k = 0; k < p.inputs().size(); ++k) {
    const auto& in = p.inputs()[k];
    arguments.push_back({"input '" + in->name() + "'", "inputs[" + std::to_string(k) + "]",
                         argument_name(true, static_cast<int>(k)), in->type(), in->extents(),
                         true});
  }
  for (std::size_t k = 0; k < p.outputs().size(); ++k) {
    const auto& f = p.outputs()[k];
    arguments.push_back({"output '" + f->name() + "'", "outputs[" + std::to_string(k) + "]",
                         argument_name(false, static_cast<int>(k)), f->type(),
                         prover.extents(f->domain()), false});
  }

  BufferArgumentCode code;
  std::string& s = code.bind;
  s = "  // The caller's buffers: checked against the parameters, then bound (through a dense\n"
      "  // copy where the last dimension is not contiguous).\n";
  for (const Argument& a : arguments) {
    const std::size_t dims = a.extents.size();
    std::string extents = "nullptr";
    if (dims > 0) {
      std::string list;
      for (const Expr& e : a.extents)
        list += (list.empty() ? "" : ", ") + extent(e);
      s += "  const int64_t " + a.name + "_extent[] = {" + list + "};\n";
      extents = a.name + "_extent";
    }
    s += "  if (!tz_check_buffer(tz_status_, " + c_string_literal(a.what) + ", " + a.slot + ", " +
         type_constant(a.type) + ", " + extents + ", " + std::to_string(dims) +
         "))\n    return tz_finish(tz_status_);\n";
  }
  const auto bytes = [](const Argument& a) { return std::to_string(byte_size(a.type)); };
  for (std::size_t i = 0; i < arguments.size(); ++i) {
    if (arguments[i].input) continue;
    for (std::size_t j = 0; j < i; ++j)
      s += "  if (!tz_check_disjoint(tz_status_, " + c_string_literal(arguments[i].what) + ", " +
           arguments[i].slot + ", " + bytes(arguments[i]) + ", " +
           c_string_literal(arguments[j].what) + ", " + arguments[j].slot + ", " +
           bytes(arguments[j]) + "))\n    return tz_finish(tz_status_);\n";
  }
  for (const Argument& a : arguments) {
    const std::string type =
        std::string(a.input ? "const " : "") + std::string(cpp_type_name(a.type));
    s += "  tz_argument<" + type + ", " + std::to_string(a.extents.size()) + "> " + a.name + ";\n";
    s += "  if (!" + a.name + ".bind(tz_status_, " + c_string_literal(a.what) + ", " + a.slot +
         ", " + (a.input ? "true" : "false") + ", allocator, " + threads +
         "))\n    return tz_finish(tz_status_);\n";
    if (!a.input) code.finish += "    " + a.name + ".finish(" + a.slot + ", " + threads + ");\n";
  }
  if (!code.finish.empty())
    code.finish = "  // Outputs computed in dense copies go to the caller's layout.\n"
                  "  if (tz_status_.code == 0) {\n" +
                  code.finish + "  }\n";
  return code;
}

} // namespace trapeze::codegen
