// The calling convention shared by generated code (JIT and AOT) and the runtime.
//
// A compiled pipeline exports, with C linkage:
//
//   int <symbol>(const trapeze_param* params,   // Pipeline::params() order
//                const trapeze_buffer* inputs,   // Pipeline::inputs() order
//                const trapeze_buffer* outputs,  // Pipeline::outputs() order
//                int num_threads,                // <= 0: OpenMP's default
//                const trapeze_allocator* allocator); // NULL: aligned_alloc/free
//   const char* <symbol>_signature(void);       // see signature() below
//   const char* <symbol>_error(void);           // why the calling thread's
//                                               // last call failed ("" if not)
//
// A trapeze_buffer is a pointer to element (0, ..., 0), the extents, and the
// strides in elements (any sign, any order), the dimension count and the
// element type (cpp_arguments.h spells the C types). Input extents are the
// input's; an output's are its domain's, element 0 holding the domain's first
// point. A buffer whose last dimension has stride 1 is used in place; any
// other layout through a dense copy (made at entry for an input, copied back
// at the end for an output), so that the body's innermost loops run at unit
// stride. Outputs must not overlap inputs or each other. The function
// returns 0 on success, 1 if memory ran out, 2 if an access was outside its
// buffer (bounds-checked builds only), 3 if a parameter lies outside its
// declared range (Pipeline::set_range) or the sizes the parameters give are
// not (docs/dsl.md, "Sizes": a bound that overflows, an empty domain, one
// beyond +-max_index), 4 if a buffer is not what the parameters make of it
// (type, dimensions, extents, a null pointer, an output that overlaps);
// <symbol>_error() then says which. It keeps no global state,
// so it may run on several threads at once. Intermediate buffers (full ones, and scratchpads per
// thread) come from `allocator` when it is given: the runtime passes a pool
// per compiled pipeline (runtime/buffer_pool.h), so that repeated runs reuse
// memory instead of mapping and page-faulting fresh pages every time.
#pragma once

#include "trapeze/pipeline.h"

#include <cstddef>
#include <cstdint>
#include <string>

namespace trapeze::codegen {

/// The C type of one parameter value, spelled in generated code too.
union ParamSlot {
  std::int64_t i;
  double f;
};

/// trapeze_buffer, as generated code spells it.
struct BufferArgument {
  void* data;
  const std::int64_t* extent;
  const std::int64_t* stride;
  std::int32_t dimensions;
  std::int32_t type; ///< static_cast<int>(ScalarType)
};

/// trapeze_allocator, as generated code spells it.
struct Allocator {
  void* (*allocate)(void* context, std::size_t bytes);
  void (*release)(void* context, void* memory);
  void* context;
};

/// "trapeze_" + the pipeline name with every character outside [A-Za-z0-9_]
/// replaced by '_'.
std::string entry_symbol(const Pipeline& p);

/// A one-line description of the ABI of this pipeline (parameter names and
/// types, input and output names, types and dimensions, ABI version). The
/// generated code returns it from <symbol>_signature(), and the runtime
/// compares it on load, so a stale or foreign shared object is never called.
std::string signature(const Pipeline& p);

} // namespace trapeze::codegen
