// `trapeze explain`: what the analysis knows about a pipeline, for people and tools.
#pragma once

#include "trapeze/pipeline.h"

#include <string>

namespace trapeze {

/// A readable report: per stage its domain (symbolic and, for the bound
/// parameters, concrete), type, classification and definition; per
/// producer-consumer edge the accesses and dependence vectors; the alignment
/// and scaling of the stages into a common space.
std::string explain_text(const Pipeline& p, const ParamValues& bound);
/// The same report as one JSON document (field names in docs/explain.md).
std::string explain_json(const Pipeline& p, const ParamValues& bound);

} // namespace trapeze
