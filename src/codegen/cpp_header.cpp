// The header of generated code (AOT): C entry point and a typed C++ function.
#include "codegen/cpp_header.h"

#include "analysis/bounds_prover.h"
#include "codegen/abi.h"
#include "codegen/cpp_arguments.h"
#include "codegen/cpp_expr.h"

#include <algorithm>
#include <cctype>
#include <set>

namespace trapeze::codegen {

using namespace ir;

namespace {

// The C++ view types and helpers every generated header shares (guarded).
const char* const kTypedViewDefinitions = R"TZ(#ifdef __cplusplus
#ifndef TRAPEZE_AOT_VIEW_DEFINED
#define TRAPEZE_AOT_VIEW_DEFINED
#include <type_traits>
namespace trapeze_aot {

/// The caller's memory for one buffer argument of element type T (const for
/// an input) and N dimensions: element (i_0, ..., i_N-1) is
/// data[i_0 * stride[0] + ... + i_N-1 * stride[N-1]], strides in elements.
template <typename T, int N> struct view {
  T* data = nullptr;
  int64_t extent[N > 0 ? N : 1] = {};
  int64_t stride[N > 0 ? N : 1] = {};
};

/// A view of a dense array (row-major, the last dimension contiguous).
template <typename T, int N> view<T, N> dense(T* data, const int64_t (&extent)[N]) {
  view<T, N> v;
  v.data = data;
  int64_t step = 1;
  for (int d = N; d-- > 0;) {
    v.extent[d] = extent[d];
    v.stride[d] = step;
    step *= extent[d];
  }
  return v;
}

/// A call's outcome: code 0 and message "" on success, else the entry's code
/// (docs/aot.md) and why.
struct status {
  int code = 0;
  const char* message = "";
  explicit operator bool() const { return code == 0; }
};

template <typename T> struct type_code;
template <> struct type_code<bool> { static constexpr int value = TRAPEZE_BOOL; };
template <> struct type_code<uint8_t> { static constexpr int value = TRAPEZE_UINT8; };
template <> struct type_code<uint16_t> { static constexpr int value = TRAPEZE_UINT16; };
template <> struct type_code<int16_t> { static constexpr int value = TRAPEZE_INT16; };
template <> struct type_code<int32_t> { static constexpr int value = TRAPEZE_INT32; };
template <> struct type_code<int64_t> { static constexpr int value = TRAPEZE_INT64; };
template <> struct type_code<float> { static constexpr int value = TRAPEZE_FLOAT32; };
template <> struct type_code<double> { static constexpr int value = TRAPEZE_FLOAT64; };

/// The C descriptor of a view.
template <typename T, int N> trapeze_buffer buffer_of(const view<T, N>& v) {
  trapeze_buffer b;
  b.data = const_cast<void*>(static_cast<const void*>(v.data));
  b.extent = v.extent;
  b.stride = v.stride;
  b.dimensions = N;
  b.type = type_code<std::remove_const_t<T>>::value;
  return b;
}

} // namespace trapeze_aot
#endif
#endif
)TZ";

// A C++ identifier for a parameter, buffer or pipeline name (the text form
// allows names that are not): a reserved word, a name of the typed
// function's own or one of trapeze_aot's gets a trailing '_'.
std::string identifier(const std::string& name) {
  std::string s;
  for (char c : name)
    s += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) s = "_" + s;
  static const std::set<std::string> own = {"status",    "view",       "dense",
                                            "buffer_of", "type_code",  "tz_params",
                                            "tz_inputs", "tz_outputs", "tz_status"};
  if (cpp_reserved_names().count(s) || own.count(s)) s += "_";
  return s;
}

// The typed C++ function: trapeze_aot::<name>(parameters, inputs, outputs).
std::string typed_function(const Pipeline& p, const std::string& symbol) {
  const std::string name = symbol.substr(std::string("trapeze_").size());
  // The arguments' identifiers, distinct: a name that identifier() suffixes
  // ("view" -> "view_") may meet one the user wrote so ("view_"); the later
  // argument then gets another '_'.
  std::set<std::string> taken;
  const auto argument = [&taken](const std::string& user_name) {
    std::string s = identifier(user_name);
    while (!taken.insert(s).second)
      s += "_";
    return s;
  };
  std::vector<std::string> arguments, params, inputs, outputs;
  for (const ParamInfo& q : p.params()) {
    params.push_back(argument(q.name));
    arguments.push_back(std::string(cpp_type_name(q.type)) + " " + params.back());
  }
  for (const auto& in : p.inputs()) {
    const std::string arg = argument(in->name());
    arguments.push_back("view<const " + std::string(cpp_type_name(in->type())) + ", " +
                        std::to_string(in->dimensions()) + "> " + arg);
    inputs.push_back("buffer_of(" + arg + ")");
  }
  for (const auto& out : p.outputs()) {
    const std::string arg = argument(out->name());
    arguments.push_back("view<" + std::string(cpp_type_name(out->type())) + ", " +
                        std::to_string(out->dimensions()) + "> " + arg);
    outputs.push_back("buffer_of(" + arg + ")");
  }
  const auto join = [](const std::vector<std::string>& parts) {
    std::string s;
    for (const std::string& part : parts)
      s += (s.empty() ? "" : ", ") + part;
    return s;
  };
  // Arrays of at least one element: C++ has no empty arrays.
  const auto size = [](const std::vector<std::string>& v) {
    return std::to_string(std::max<std::size_t>(v.size(), 1));
  };
  std::string f = "#ifdef __cplusplus\nnamespace trapeze_aot {\n\n";
  f += "/// Runs pipeline '" + p.name() +
       "': parameters, inputs, then outputs, as the comment at\n"
       "/// the top of this file lists them. Each buffer's extents must be the ones the\n"
       "/// parameters give (else code 4 and a message naming the buffer).\n";
  f += "inline status " + identifier(name) + "(" + join(arguments) +
       (arguments.empty() ? "" : ", ") +
       "int num_threads = 0, const trapeze_allocator* allocator = nullptr) {\n";
  f += "  trapeze_param tz_params[" + size(params) + "] = {};\n";
  for (std::size_t i = 0; i < params.size(); ++i)
    f += "  tz_params[" + std::to_string(i) + "]." + (is_float(p.params()[i].type) ? "f" : "i") +
         " = " + params[i] + ";\n";
  f += "  const trapeze_buffer tz_inputs[" + size(inputs) + "] = {" + join(inputs) + "};\n";
  f += "  const trapeze_buffer tz_outputs[" + size(outputs) + "] = {" + join(outputs) + "};\n";
  f += "  status tz_status;\n";
  f += "  tz_status.code = " + symbol +
       "(tz_params, tz_inputs, tz_outputs, num_threads, allocator);\n";
  f += "  if (tz_status.code != 0) tz_status.message = " + symbol + "_error();\n";
  f += "  return tz_status;\n}\n\n} // namespace trapeze_aot\n#endif\n";
  return f;
}

} // namespace

std::string abi_comment(const Pipeline& p) {
  const analysis::BoundsProver prover = analysis::BoundsProver::for_pipeline(p);
  std::string s = "// Parameters (params[i]; int64 in .i, float32/float64 in .f):\n";
  if (p.params().empty()) s += "//   none\n";
  for (std::size_t i = 0; i < p.params().size(); ++i)
    s += "//   params[" + std::to_string(i) + "] " + p.params()[i].name + ": " +
         std::string(type_name(p.params()[i].type)) + "\n";
  s += "// Inputs (inputs[i], a trapeze_buffer of these extents; any strides):\n";
  if (p.inputs().empty()) s += "//   none\n";
  for (std::size_t i = 0; i < p.inputs().size(); ++i) {
    const auto& in = p.inputs()[i];
    std::vector<Expr> extents;
    for (const Expr& e : in->extents())
      extents.push_back(prover.simplify(e));
    s += "//   inputs[" + std::to_string(i) + "] " + in->name() + ": " +
         std::string(type_name(in->type())) + shape_text(extents) + "\n";
  }
  s += "// Outputs (outputs[i], a trapeze_buffer of these extents; any strides, no overlap):\n";
  for (std::size_t i = 0; i < p.outputs().size(); ++i) {
    const auto& f = p.outputs()[i];
    std::vector<Expr> origin;
    for (const Interval& range : f->domain())
      origin.push_back(prover.simplify(range.lo));
    const std::vector<Expr> extents = prover.extents(f->domain());
    s += "//   outputs[" + std::to_string(i) + "] " + f->name() + ": " +
         std::string(type_name(f->type())) + shape_text(extents) + ", element 0 holds the point " +
         tuple_text(origin) + "\n";
  }
  s += "// num_threads <= 0 means OpenMP's default. Returns 0 on success, 1 if memory ran out,\n"
       "// 2 if a bounds check failed (bounds-checked builds), 3 if a parameter is outside its\n"
       "// declared range or the sizes it gives are not (docs/dsl.md, \"Sizes\"), 4 if a\n"
       "// buffer is not what the parameters make of it (type, dimensions, extents, a null\n"
       "// pointer, an output overlapping another buffer); then <entry>_error() says why.\n";
  return s;
}

std::string entry_declaration(const std::string& symbol) {
  return "int " + symbol +
         "(const trapeze_param* params, const trapeze_buffer* inputs,\n"
         "    const trapeze_buffer* outputs, int num_threads, const trapeze_allocator* allocator)";
}

std::string print_header(const Pipeline& p, const std::string& symbol) {
  std::string guard = "TRAPEZE_GENERATED_";
  for (char c : symbol)
    guard += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  guard += "_H";
  std::string h = "// Generated by trapeze from pipeline '" + p.name() + "'.\n";
  h += "// Entry point " + symbol + ".\n" + abi_comment(p);
  h += "#ifndef " + guard + "\n#define " + guard +
       "\n\n#include <stddef.h>\n#include <stdint.h>\n\n";
  h += kAbiTypedefs;
  h += "\n#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n";
  h += entry_declaration(symbol) + ";\n";
  h += "/* The ABI description the runtime compares before calling (codegen::signature). */\n";
  h += "const char* " + symbol + "_signature(void);\n";
  h += "/* Why the calling thread's last call failed (\"\" after a success). */\n";
  h += "const char* " + symbol + "_error(void);\n";
  h += "\n#ifdef __cplusplus\n}\n#endif\n\n";
  h += kTypedViewDefinitions;
  h += "\n" + typed_function(p, symbol);
  h += "\n#endif\n";
  return h;
}

} // namespace trapeze::codegen
