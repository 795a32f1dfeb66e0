// The calling convention shared by generated code (JIT and AOT) and the runtime.
//
// A compiled pipeline exports, with C linkage:
//
//   int <symbol>(const trapeze_param* params,   // Pipeline::params() order
//                const void* const* inputs,     // Pipeline::inputs() order
//                void* const* outputs,          // Pipeline::outputs() order
//                int num_threads);              // <= 0: OpenMP's default
//   const char* <symbol>_signature(void);       // see signature() below
//
// Buffers are dense, last dimension contiguous, with the extents the runtime
// checks (an input's extents; an output's domain extents). The function
// returns 0 on success. It keeps no global state, so it may run on several
// threads at once.
#pragma once

#include "trapeze/pipeline.h"

#include <cstdint>
#include <string>

namespace trapeze::codegen {

/// The C type of one parameter value, spelled in generated code too.
union ParamSlot {
  std::int64_t i;
  double f;
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
