// C++ code generation: loop IR to readable C++ with OpenMP.
#pragma once

#include "trapeze/pipeline.h"
#include "trapeze/schedule.h"

#include <string>

namespace trapeze::codegen {

/// A generated C++ translation unit.
struct CppModule {
  std::string source;       ///< the complete .cpp text (includes, helpers, entry function)
  std::string entry_symbol; ///< codegen::entry_symbol(p)
  std::string signature;    ///< codegen::signature(p), also returned by <entry>_signature()
  std::string header;       ///< a .h declaring the entry function (for AOT users)
};

/// What the printed code does beyond computing the pipeline.
struct CodegenOptions {
  /// Every buffer and scratchpad access is checked against its allocation; the
  /// first access outside it ends the call with code 2 and a message naming
  /// the stage, the buffer, the point and the allocation's box.
  bool bounds_check = false;
};

/// Lowers `p` with the default (naive) schedule and prints it as C++: every
/// stage a loop nest over its full domain into a full buffer, the outermost
/// loop parallel (OpenMP), the innermost loop over the contiguous dimension
/// free of anything that stops the compiler vectorizing it.
CppModule generate_cpp(const Pipeline& p);
/// Lowers `p` with `schedule` (already validated) and prints it as C++.
CppModule generate_cpp(const Pipeline& p, const Schedule& schedule,
                       const CodegenOptions& options = {});

} // namespace trapeze::codegen
