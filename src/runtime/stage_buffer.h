// A whole buffer for one stage's domain, allocated by the runtime (outputs,
// and every stage in the interpreter).
#pragma once

#include "trapeze/buffer.h"
#include "trapeze/function.h"
#include "trapeze/pipeline.h"

namespace trapeze {

/// A zeroed buffer of f's type over `box` (non-empty). Throws trapeze::Error
/// naming the stage, its box and the bytes when the size is out of range or
/// memory runs out.
Buffer allocate_stage_buffer(const ir::Function& f, const Box& box);

} // namespace trapeze
