// What AOT users include: the header of a generated pipeline, and the
// comment that documents its calling convention.
#pragma once

#include "trapeze/pipeline.h"

#include <string>

namespace trapeze::codegen {

/// The comment that documents the calling convention of `p`: its
/// parameters, inputs and outputs with their shapes, and the return codes.
std::string abi_comment(const Pipeline& p);

/// "int <symbol>(const trapeze_param* params, ...)": the entry's declaration.
std::string entry_declaration(const std::string& symbol);

/// The header of the generated code: the ABI's C types, the C entry point
/// with its signature and error functions, and, for C++, a typed function
/// `trapeze_aot::<name>(params..., inputs..., outputs...)` that takes each
/// parameter by name and type and each buffer as a `trapeze_aot::view` of
/// its element type and dimension count, so that a wrong argument does not
/// compile; extents are checked at run time by the entry (code 4).
std::string print_header(const Pipeline& p, const std::string& symbol);

} // namespace trapeze::codegen
