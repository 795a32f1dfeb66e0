// Turns the syntax tree of a pipeline text form into a Pipeline, through the
// same factories the DSL uses, so that every check of the DSL applies.
#pragma once

#include "frontend/text_form_syntax.h"
#include "trapeze/pipeline.h"

#include <string>

namespace trapeze::text_form {

/// Resolves names, builds every parameter, input and stage, defines the stages
/// and assembles the pipeline from its outputs. Throws trapeze::Error
/// "FILE:LINE:COLUMN: ..." naming the construct at fault (an error of the DSL
/// is prefixed with the position of the construct that raised it).
Pipeline build_pipeline(const SyntaxPipeline& syntax, const std::string& filename);

} // namespace trapeze::text_form
