// The printer of the pipeline text form (grammar in docs/text-form.md).
// Expressions are printed by ir::to_string, which the parser reads back.
#include "trapeze/ir_visitor.h"
#include "trapeze/text_form.h"

#include <algorithm>
#include <cctype>

namespace trapeze {

namespace {

using ir::to_string;

bool is_identifier(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

// A pipeline name that is not an identifier is written as a string.
std::string quoted_name(const std::string& name) {
  if (is_identifier(name)) return name;
  std::string s = "\"";
  for (char c : name) {
    if (c == '"' || c == '\\') s += '\\';
    s += c;
  }
  return s + "\"";
}

std::string interval(const Interval& i) {
  return "[" + to_string(i.lo) + ", " + to_string(i.hi) + "]";
}

std::string default_value(const ParamInfo& p) {
  if (p.type == ScalarType::Int64) return std::to_string(p.default_value.i);
  // The literal syntax of ir::to_string: shortest digits, 'f' for float32, inf_f32, nan_f64...
  return to_string(ir::FloatConst::make(p.type, p.default_value.f));
}

void print_stage(const ir::Function& f, std::string& out) {
  // A boundary condition as the user wrote it: its cases follow from it.
  if (const auto& b = f.definition().boundary) {
    out += "stage " + f.name() + " = " + ir::boundary_text(*b) + "\n";
    return;
  }
  out += "stage " + f.name() + "(";
  for (std::size_t i = 0; i < f.vars().size(); ++i)
    out += (i ? ", " : "") + f.vars()[i];
  out += "): " + std::string(type_name(f.type())) + " on ";
  for (std::size_t i = 0; i < f.domain().size(); ++i)
    out += (i ? " x " : "") + interval(f.domain()[i]);
  out += "\n";
  const ir::Definition& d = f.definition();
  if (d.reduction) {
    const ir::Reduction& r = *d.reduction;
    out += "  init: " + to_string(r.init) + "\n";
    out += "  reduce over ";
    for (std::size_t i = 0; i < r.rvars.size(); ++i)
      out += (i ? ", " : "") + r.rvars[i] + " in " + interval(r.rdom[i]);
    out += ":\n";
    for (const ir::ReductionUpdate& u : r.updates) {
      out += "    " + f.name() + "(";
      for (std::size_t i = 0; i < u.target.size(); ++i)
        out += (i ? ", " : "") + to_string(u.target[i]);
      out += u.op == ir::ReduceOp::Sum ? ") += " : ") " + std::string(reduce_op_name(u.op)) + "= ";
      out += to_string(u.value) + "\n";
    }
    return;
  }
  if (d.cases.empty()) {
    out += "  = " + to_string(d.otherwise) + "\n";
    return;
  }
  for (const ir::Case& c : d.cases)
    out += "  case " + to_string(c.condition) + ": " + to_string(c.value) + "\n";
  out += "  default: " + to_string(d.otherwise) + "\n";
}

} // namespace

std::string to_text(const Pipeline& p) {
  std::string out = "# trapeze pipeline text form, version 1\n";
  out += "pipeline " + quoted_name(p.name()) + "\n";
  if (!p.params().empty()) out += "\n";
  for (const ParamInfo& param : p.params()) {
    out += "param " + param.name + ": " + std::string(type_name(param.type));
    if (param.min) out += " >= " + std::to_string(*param.min);
    if (param.max) out += " <= " + std::to_string(*param.max);
    if (param.has_default) out += " = " + default_value(param);
    out += "\n";
  }
  if (!p.inputs().empty()) out += "\n";
  for (const ir::InputImagePtr& in : p.inputs()) {
    out += "input " + in->name() + ": " + std::string(type_name(in->type()));
    for (const Expr& e : in->extents())
      out += "[" + to_string(e) + "]";
    out += "\n";
  }
  for (const ir::FunctionPtr& f : p.stages()) {
    out += "\n";
    print_stage(*f, out);
  }
  out += "\noutput ";
  for (std::size_t i = 0; i < p.outputs().size(); ++i)
    out += (i ? ", " : "") + p.outputs()[i]->name();
  return out + "\n";
}

} // namespace trapeze
