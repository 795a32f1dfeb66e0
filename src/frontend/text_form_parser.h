// The recursive-descent parser of the pipeline text form: tokens to a syntax
// tree. Names are resolved later, by the builder.
#pragma once

#include "frontend/text_form_lexer.h"
#include "frontend/text_form_syntax.h"

#include <string>
#include <vector>

namespace trapeze::text_form {

/// The deepest expression tree the text form accepts (deeper input is an error,
/// so that no recursion over an expression can exhaust the stack). One level
/// of parentheses costs the parser a frame per precedence level, so 1000 levels
/// overflowed an 8 MiB stack under AddressSanitizer; real pipelines nest < 50.
inline constexpr int max_expression_depth = 256;

/// Parses a whole file. Throws trapeze::Error "FILE:LINE:COLUMN: expected ..., found ..."
/// on a syntax error. `tokens` ends with an End token.
SyntaxPipeline parse_syntax(const std::vector<Token>& tokens, const std::string& filename);

} // namespace trapeze::text_form
