// Checking a run's arguments and allocating its outputs.
#include "trapeze/runtime.h"

#include "analysis/bounds_check.h"
#include "analysis/domain_check.h"
#include "analysis/region_text.h"
#include "runtime/stage_buffer.h"

#include <algorithm>
#include <cstdlib>

namespace trapeze {

using namespace ir;

namespace {

// "float32[3][68][84]": the buffer a producer of this type and box needs.
std::string expected_text(ScalarType type, const Box& box) {
  std::string s(type_name(type));
  for (int d = 0; d < box.dimensions(); ++d)
    s += "[" + std::to_string(box.extent(d)) + "]";
  return s;
}

std::vector<std::int64_t> extents_of(const Box& box) {
  std::vector<std::int64_t> out;
  for (int d = 0; d < box.dimensions(); ++d)
    out.push_back(box.extent(d));
  return out;
}

std::string names_of(const std::vector<std::string>& names) {
  std::string s;
  for (const std::string& n : names)
    s += (s.empty() ? "'" : ", '") + n + "'";
  return s.empty() ? "none" : s;
}

std::vector<Expr> domain_exprs(const Function& f) {
  std::vector<Expr> out;
  for (const Interval& i : f.domain())
    out.push_back(i.lo), out.push_back(i.hi);
  return out;
}

// Checks one given buffer against what the pipeline expects.
void check_buffer(const BufferMap& given, const std::string& kind, const std::string& name,
                  const std::string& described, ScalarType type, const Box& box,
                  const std::string& for_params, const std::string& pipeline) {
  const std::string expected = expected_text(type, box);
  auto it = given.find(name);
  if (it == given.end())
    throw Error("missing " + kind + " buffer: " + kind + " " + described + " of pipeline '" +
                pipeline + "' was not given; pass a " + expected + " buffer named '" + name + "'" +
                for_params);
  const Buffer& b = it->second;
  if (!b.defined())
    throw Error(kind + " '" + name + "' must be " + expected + for_params +
                ", but the given buffer is empty (never allocated)");
  if (b.type() != type || b.extents() != extents_of(box))
    throw Error(kind + " '" + name + "' must be " + expected + for_params +
                ", but the given buffer is " + b.describe());
}

// Whether no two elements of `b` share memory, by the sufficient test that
// each stride (by size) steps past every element the smaller ones reach:
// dense, padded, interleaved, transposed and flipped layouts all pass.
bool elements_are_distinct(const Buffer& b) {
  std::vector<std::pair<std::int64_t, std::int64_t>> steps; // |stride|, extent
  for (int d = 0; d < b.dimensions(); ++d)
    if (b.extent(d) > 1) steps.emplace_back(std::abs(b.stride(d)), b.extent(d));
  std::sort(steps.begin(), steps.end());
  std::int64_t reach = 0; // the largest offset the smaller strides make
  for (const auto& [stride, extent] : steps) {
    if (stride <= reach) return false;
    reach += stride * (extent - 1);
  }
  return true;
}

// An output must be writable memory of its own: the generated code writes it
// while it reads the inputs, through pointers that promise no aliasing.
void check_output_memory(const BufferMap& inputs, const BufferMap& outputs,
                         const std::string& pipeline) {
  for (auto it = outputs.begin(); it != outputs.end(); ++it) {
    const auto& [name, b] = *it;
    const std::string what = "output '" + name + "' of pipeline '" + pipeline + "'";
    if (!b.writable())
      throw Error(what + " is a read-only view (of const memory), " + b.describe() +
                  "; pass a buffer that can be written");
    if (!elements_are_distinct(b))
      throw Error(what + " has a layout in which two elements share memory (" + b.describe() +
                  "); an output needs one element of memory per point");
    const auto [lo, hi] = b.byte_span();
    const auto overlaps = [&](const Buffer& other) {
      const auto [other_lo, other_hi] = other.byte_span();
      return lo < other_hi && other_lo < hi;
    };
    for (const auto& [input, ib] : inputs)
      if (ib.defined() && overlaps(ib))
        throw Error(what + " overlaps input '" + input + "' in memory; an output needs " +
                    "memory of its own (the code reads inputs while it writes outputs)");
    for (auto other = outputs.begin(); other != it; ++other)
      if (other->second.defined() && overlaps(other->second))
        throw Error(what + " overlaps output '" + other->first + "' in memory; each output " +
                    "needs memory of its own");
  }
}

void reject_unknown(const BufferMap& given, const std::vector<std::string>& known,
                    const std::string& kind, const std::string& pipeline) {
  for (const auto& [name, buffer] : given) {
    if (std::find(known.begin(), known.end(), name) != known.end()) continue;
    throw Error("unknown " + kind + " buffer '" + name + "': pipeline '" + pipeline + "' has no " +
                kind + " of that name (its " + kind + "s are " + names_of(known) + ")");
  }
}

} // namespace

Buffer allocate_output(const Pipeline& p, const Function& output, const ParamValues& bound) {
  if (!p.is_output(output))
    throw Error("stage " + output.describe() + " is not an output of pipeline '" + p.name() +
                "'; only outputs get buffers");
  const Box box = concrete_domain(output, bound);
  if (box.empty())
    throw Error("empty domain: output stage " + output.describe() + " has domain " + box.str() +
                analysis::for_params_text(domain_exprs(output), bound) +
                ". Check the parameter values, or the stage's domain bounds.");
  return allocate_stage_buffer(output, box);
}

Buffer allocate_stage_buffer(const Function& f, const Box& box) {
  try {
    return Buffer(f.type(), extents_of(box));
  } catch (const Error& e) {
    throw Error("stage " + f.describe() + " on " + box.str() + ": " + e.what());
  }
}

void check_sizes(const Pipeline& p, const ParamValues& bound) {
  analysis::check_domains(p, p.bind(bound));
}

BufferMap allocate_outputs(const Pipeline& p, const ParamValues& bound) {
  check_sizes(p, bound);
  BufferMap out;
  for (const FunctionPtr& f : p.outputs())
    out[f->name()] = allocate_output(p, *f, bound);
  return out;
}

void check_arguments(const Pipeline& p, const ParamValues& bound, const BufferMap& inputs,
                     const BufferMap& outputs) {
  // Missing parameters, values of the wrong kind and unknown names, as bind() reports them.
  const ParamValues values = p.bind(bound);
  analysis::check_access_bounds(p, values);

  std::vector<std::string> input_names, output_names;
  for (const InputImagePtr& image : p.inputs()) {
    input_names.push_back(image->name());
    check_buffer(inputs, "input", image->name(), image->describe(), image->type(),
                 concrete_domain(*image, values),
                 analysis::for_params_text(image->extents(), values), p.name());
  }
  for (const FunctionPtr& f : p.outputs()) {
    output_names.push_back(f->name());
    check_buffer(outputs, "output", f->name(), "stage " + f->describe(), f->type(),
                 concrete_domain(*f, values), analysis::for_params_text(domain_exprs(*f), values),
                 p.name());
  }
  reject_unknown(inputs, input_names, "input", p.name());
  reject_unknown(outputs, output_names, "output", p.name());
  check_output_memory(inputs, outputs, p.name());
}

} // namespace trapeze
