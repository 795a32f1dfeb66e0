// The caller's side of generated code: the ABI's C types (codegen/abi.h), and
// the entry's binding of the caller's buffers (checks, dense copies).
#pragma once

#include "analysis/bounds_prover.h"
#include "trapeze/pipeline.h"

#include <functional>
#include <string>
#include <vector>

namespace trapeze::codegen {

/// The C declarations of trapeze_param, trapeze_allocator, trapeze_type and
/// trapeze_buffer, guarded so that several generated headers can be included
/// together. Spelled in generated sources and headers alike.
extern const char* const kAbiTypedefs;

/// The generated source's helpers that bind_buffer_arguments' code calls.
extern const char* const kBufferArgumentDefinitions;

/// The name of the variable through which the body reaches the caller's
/// input (or output) number `slot`: a tz_argument with `data` and `stride`.
std::string argument_name(bool input, int slot);

/// The entry's code around the body for the caller's buffers.
struct BufferArgumentCode {
  /// Before the body: each buffer checked against the pipeline (type,
  /// dimensions, extents for the parameters, memory) and bound to its
  /// tz_argument; a buffer whose last dimension is not contiguous is copied
  /// to dense memory. Outputs must not overlap inputs or each other.
  std::string bind;
  /// After the body, on success: the dense copies of outputs copied back.
  std::string finish;
};

/// `extent` prints an int64 expression of the parameters (which the entry's
/// size checks have already proven not to overflow); `threads` is the
/// expression of the number of threads that make the dense copies.
BufferArgumentCode bind_buffer_arguments(const Pipeline& p,
                                         const std::function<std::string(const Expr&)>& extent,
                                         const std::string& threads);

} // namespace trapeze::codegen
