// The calling convention's names and signature string.
#include "codegen/abi.h"

#include <cctype>

namespace trapeze::codegen {

std::string entry_symbol(const Pipeline& p) {
  std::string s = "trapeze_";
  for (char c : p.name())
    s += std::isalnum(static_cast<unsigned char>(c)) || c == '_' ? c : '_';
  return s;
}

std::string signature(const Pipeline& p) {
  std::string s = "trapeze-abi-4;params:";
  for (const ParamInfo& q : p.params())
    s += q.name + ":" + std::string(type_name(q.type)) + ",";
  s += ";inputs:";
  for (const auto& in : p.inputs())
    s += in->name() + ":" + std::string(type_name(in->type())) + ":" +
         std::to_string(in->dimensions()) + ",";
  s += ";outputs:";
  for (const auto& out : p.outputs())
    s += out->name() + ":" + std::string(type_name(out->type())) + ":" +
         std::to_string(out->dimensions()) + ",";
  return s;
}

} // namespace trapeze::codegen
