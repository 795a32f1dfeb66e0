// C++ code generation: loop IR to readable C++ with OpenMP.
#pragma once

#include "lower/lower.h"

#include <cstdint>
#include <set>
#include <string>

namespace trapeze::codegen {

/// A generated C++ translation unit.
struct CppModule {
  std::string source;       ///< the complete .cpp text (includes, helpers, entry function)
  std::string entry_symbol; ///< codegen::entry_symbol(p)
  std::string signature;    ///< codegen::signature(p), also returned by <entry>_signature()
  std::string header;       ///< a .h declaring the entry function (for AOT users)
  /// lower::Module::reassociated_sums: every other stage the code computes
  /// exactly as the interpreter does.
  std::set<std::string> reassociated_sums;
};

/// What the printed code does beyond computing the pipeline.
struct CodegenOptions {
  /// Every buffer and scratchpad access is checked against its allocation; the
  /// first access outside it ends the call with code 2 and a message naming
  /// the stage, the buffer, the point and the allocation's box.
  bool bounds_check = false;
  /// A nest that gathers (reads at data-dependent indices) is printed twice:
  /// the second copy sums its gathers' offsets in 32 bits (AVX2 gathers eight
  /// 32-bit offsets at a time, four 64-bit ones), and is called where every
  /// buffer it gathers from lies within +-this many elements of its element 0.
  /// Negative: one copy, 64-bit offsets only. Not with bounds_check.
  std::int64_t gather_offsets32_limit = INT32_MAX;
};

/// Prints a lowered pipeline as C++: the loops as the module has them, the
/// outermost parallel loop as an OpenMP loop (stack buffers with
/// loop-invariant extents allocated once per thread around it), the
/// innermost vectorized loops as `omp simd`, every buffer a `__restrict`
/// pointer.
CppModule print_cpp(const lower::Module& module, const CodegenOptions& options = {});

} // namespace trapeze::codegen
