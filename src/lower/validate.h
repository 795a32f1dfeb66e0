// Checks the invariants code generators rely on.
#pragma once

#include "lower/loop_ir.h"

namespace trapeze::lower {

/// Checks that every Store and Access names a buffer of an enclosing
/// Allocate with matching dimensions, and that every variable is bound by an
/// enclosing For or LetStmt. Throws trapeze::InternalError otherwise.
void validate(const Stmt& s);

} // namespace trapeze::lower
