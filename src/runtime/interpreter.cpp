// The reference interpreter: every stage evaluated over its full domain, in
// topological order, into full buffers, exactly as expr.h and function.h
// define. It is the oracle of every correctness test, so it favours being
// obviously right; speed comes from evaluating a stretch of a row per
// expression node (runtime/row_program.h) and from splitting the rows of a
// stage among threads (every point of a non-reduction stage is independent,
// so the result does not depend on the number of threads).
#include "trapeze/runtime.h"

#include "runtime/row_program.h"
#include "runtime/stage_buffer.h"

#include <algorithm>
#include <exception>
#include <map>
#include <mutex>
#include <thread>

namespace trapeze {

using namespace ir;
using runtime::Column;
using runtime::kMaxLanes;
using runtime::RowProgram;
using runtime::StoredArray;

namespace {

std::vector<std::int64_t> strides_of(const Box& box) {
  std::vector<std::int64_t> s(static_cast<std::size_t>(box.dimensions()), 1);
  for (int d = box.dimensions() - 2; d >= 0; --d) {
    const auto u = static_cast<std::size_t>(d);
    s[u] = s[u + 1] * box.extent(d + 1);
  }
  return s;
}

StoredArray stored(const void* data, ScalarType type, const Box& box) {
  return StoredArray{data, type, box, strides_of(box)};
}

// The arrays computed so far and the inputs, for the accesses.
class Arrays {
public:
  void add(const Function& f, const Buffer& b, const Box& box) {
    stages_[&f] = stored(b.raw(), f.type(), box);
  }
  // An input is read in the caller's layout, any strides.
  void add(const InputImage& image, const Buffer& b, const Box& box) {
    inputs_[&image] = StoredArray{b.raw(), image.type(), box, b.strides()};
  }
  const StoredArray& lookup(const Access& a) const {
    if (a.func) {
      auto it = stages_.find(a.func.get());
      TRAPEZE_ASSERT(it != stages_.end(), "stage '" + a.func->name() + "' read before computed");
      return it->second;
    }
    auto it = inputs_.find(a.image.get());
    TRAPEZE_ASSERT(it != inputs_.end(), "input '" + a.image->name() + "' has no buffer");
    return it->second;
  }

private:
  // Looked up only, never iterated: pointer keys are fine.
  std::map<const Function*, StoredArray> stages_;
  std::map<const InputImage*, StoredArray> inputs_;
};

// Runs fn(first, last) over [0, items) split among threads when the work is large.
void parallel_for(std::int64_t items, std::int64_t points_per_item,
                  const std::function<void(std::int64_t, std::int64_t)>& fn) {
  const std::int64_t hardware = std::max(1u, std::thread::hardware_concurrency());
  const std::int64_t by_work = items * points_per_item / (1 << 16);
  const std::int64_t threads = std::clamp<std::int64_t>(std::min(hardware, by_work), 1, 16);
  if (threads <= 1 || items < 2) {
    fn(0, items);
    return;
  }
  std::vector<std::thread> pool;
  std::exception_ptr error;
  std::mutex error_mutex;
  for (std::int64_t t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      try {
        fn(items * t / threads, items * (t + 1) / threads);
      } catch (...) {
        const std::lock_guard<std::mutex> lock(error_mutex);
        if (!error) error = std::current_exception();
      }
    });
  }
  for (std::thread& th : pool)
    th.join();
  if (error) std::rethrow_exception(error);
}

template <typename T, typename V> void store_typed(void* data, std::int64_t base, const V* v,
                                                   int begin, int end, const std::uint8_t* mask) {
  T* d = static_cast<T*>(data) + base;
  if (!mask) {
    for (int l = begin; l < end; ++l)
      d[l] = static_cast<T>(v[l]);
  } else {
    for (int l = begin; l < end; ++l)
      if (mask[l]) d[l] = static_cast<T>(v[l]);
  }
}

// Writes lanes [begin, end) of a column (of type t, so the conversion is
// exact) to data[base + lane], only where `mask` is non-zero if it is given.
void store_lanes(void* data, ScalarType t, std::int64_t base, const Column& c, int begin, int end,
                 const std::uint8_t* mask) {
  const std::int64_t* i = c.ints.data();
  switch (t) {
  case ScalarType::Bool: return store_typed<bool>(data, base, i, begin, end, mask);
  case ScalarType::UInt8: return store_typed<std::uint8_t>(data, base, i, begin, end, mask);
  case ScalarType::UInt16: return store_typed<std::uint16_t>(data, base, i, begin, end, mask);
  case ScalarType::Int16: return store_typed<std::int16_t>(data, base, i, begin, end, mask);
  case ScalarType::Int32: return store_typed<std::int32_t>(data, base, i, begin, end, mask);
  case ScalarType::Int64: return store_typed<std::int64_t>(data, base, i, begin, end, mask);
  case ScalarType::Float32:
    return store_typed<float>(data, base, c.floats.data(), begin, end, mask);
  case ScalarType::Float64:
    return store_typed<double>(data, base, c.floats.data(), begin, end, mask);
  }
}

// The values of a definition made of cases and a default (or of a
// reduction's initial value), written to `out` over the whole `box`.
class CaseEvaluator {
public:
  CaseEvaluator(const Function& f, const std::vector<ir::Case>& cases, const Expr& otherwise,
                const ParamValues& params, const Arrays& arrays)
      : f_(f) {
    const runtime::ArrayLookup lookup = [&](const Access& a) -> const StoredArray& {
      return arrays.lookup(a);
    };
    for (const ir::Case& c : cases) {
      conditions_.emplace_back(c.condition, f.vars(), params, lookup);
      values_.emplace_back(c.value, f.vars(), params, lookup);
    }
    otherwise_.emplace_back(otherwise, f.vars(), params, lookup);
  }

  // Evaluates lanes [0, width) of the row stretch at (outer..., row_start).
  void stretch(const std::int64_t* outer, std::int64_t row_start, int width, void* data,
               std::int64_t base) {
    const ScalarType t = f_.type();
    if (conditions_.empty()) {
      store_lanes(data, t, base, otherwise_[0].run(outer, row_start, 0, width, nullptr), 0, width,
                  nullptr);
      return;
    }
    // remaining: lanes no case has claimed yet; active: lanes of this case.
    std::fill(remaining_, remaining_ + width, std::uint8_t{1});
    for (std::size_t i = 0; i < conditions_.size(); ++i) {
      const Column& cond = conditions_[i].run(outer, row_start, 0, width, nullptr);
      int first = width, last = -1;
      bool all = true;
      for (int l = 0; l < width; ++l) {
        const auto u = static_cast<std::size_t>(l);
        active_[l] = remaining_[l] && cond.ints[u] != 0;
        remaining_[l] = remaining_[l] && cond.ints[u] == 0;
        if (active_[l]) first = std::min(first, l), last = l;
      }
      if (last < 0) continue;
      for (int l = first; l <= last; ++l)
        all = all && active_[l];
      // The value is evaluated only on the lanes of its case: elsewhere its
      // accesses may be out of bounds.
      const std::uint8_t* mask = all ? nullptr : active_;
      store_lanes(data, t, base, values_[i].run(outer, row_start, first, last + 1, mask), first,
                  last + 1, mask);
    }
    int first = width, last = -1;
    for (int l = 0; l < width; ++l)
      if (remaining_[l]) first = std::min(first, l), last = l;
    if (last < 0) return;
    // The default is in bounds on the whole domain, so no mask is needed to
    // evaluate it; only its stores are masked.
    store_lanes(data, t, base, otherwise_[0].run(outer, row_start, first, last + 1, nullptr), first,
                last + 1, remaining_);
  }

private:
  const Function& f_;
  std::vector<RowProgram> conditions_, values_, otherwise_;
  std::uint8_t remaining_[kMaxLanes] = {};
  std::uint8_t active_[kMaxLanes] = {};
};

// Work items of a box: every row (all dimensions but the last) cut into
// stretches of at most kMaxLanes points.
struct RowStretches {
  explicit RowStretches(const Box& b) : box(b), strides(strides_of(b)) {
    const int n = box.dimensions();
    width = box.extent(n - 1);
    per_row = (width + kMaxLanes - 1) / kMaxLanes;
    rows = 1;
    for (int d = 0; d + 1 < n; ++d)
      rows *= box.extent(d);
  }
  std::int64_t items() const { return rows * per_row; }

  // The point where item `item` starts (outer coordinates, row start), its
  // width and its linear offset in a full buffer over the box.
  void locate(std::int64_t item, std::vector<std::int64_t>& outer, std::int64_t& row_start,
              int& lanes, std::int64_t& base) const {
    const int n = box.dimensions();
    std::int64_t row = item / per_row;
    const std::int64_t stretch = item % per_row;
    base = 0;
    for (int d = n - 2; d >= 0; --d) {
      const auto u = static_cast<std::size_t>(d);
      const std::int64_t extent = box.extent(d);
      outer[u] = box.lo[u] + row % extent;
      base += (row % extent) * strides[u];
      row /= extent;
    }
    row_start = box.lo[static_cast<std::size_t>(n - 1)] + stretch * kMaxLanes;
    lanes = static_cast<int>(std::min<std::int64_t>(kMaxLanes, width - stretch * kMaxLanes));
    base += stretch * kMaxLanes;
  }

  Box box;
  std::vector<std::int64_t> strides;
  std::int64_t width = 0, per_row = 0, rows = 0;
};

void evaluate_cases(const Function& f, const std::vector<ir::Case>& cases, const Expr& otherwise,
                    const Box& box, const ParamValues& params, const Arrays& arrays, void* data) {
  const RowStretches work(box);
  parallel_for(work.items(), std::min<std::int64_t>(work.width, kMaxLanes),
               [&](std::int64_t first, std::int64_t last) {
                 CaseEvaluator eval(f, cases, otherwise, params, arrays);
                 std::vector<std::int64_t> outer(static_cast<std::size_t>(box.dimensions()), 0);
                 for (std::int64_t item = first; item < last; ++item) {
                   std::int64_t row_start = 0, base = 0;
                   int lanes = 0;
                   work.locate(item, outer, row_start, lanes, base);
                   eval.stretch(outer.data(), row_start, lanes, data, base);
                 }
               });
}

// element = op(element, value) in the stage's type.
std::int64_t combine_integers(ReduceOp op, ScalarType t, std::int64_t e, std::int64_t v) {
  switch (op) {
  case ReduceOp::Sum:
    return wrap_integer(t, static_cast<std::int64_t>(static_cast<std::uint64_t>(e) +
                                                     static_cast<std::uint64_t>(v)));
  case ReduceOp::Min: return v < e ? v : e;
  case ReduceOp::Max: return e < v ? v : e;
  }
  TRAPEZE_ASSERT(false, "unknown ReduceOp");
}

double combine_floats(ReduceOp op, ScalarType t, double e, double v) {
  switch (op) {
  case ReduceOp::Sum: {
    const double s = e + v;
    return t == ScalarType::Float32 ? static_cast<double>(static_cast<float>(s)) : s;
  }
  case ReduceOp::Min: return v < e ? v : e;
  case ReduceOp::Max: return e < v ? v : e;
  }
  TRAPEZE_ASSERT(false, "unknown ReduceOp");
}

// The updates of a reduction, applied in order: for every point of the
// reduction domain (first variable outermost), each update in turn. An
// update's value never reads the stage being reduced (define() forbids it),
// so a stretch of values is computed first and then applied lane by lane.
void apply_updates(const Function& f, const Reduction& r, const Box& domain,
                   const ParamValues& params, const Arrays& arrays, void* data) {
  const runtime::ArrayLookup lookup = [&](const Access& a) -> const StoredArray& {
    return arrays.lookup(a);
  };
  const Box rbox = concrete_box(r.rdom, params, "a reduction domain");
  struct Compiled {
    std::vector<RowProgram> target;
    RowProgram value;
  };
  std::vector<Compiled> updates;
  for (const ReductionUpdate& u : r.updates) {
    std::vector<RowProgram> target;
    for (const Expr& t : u.target)
      target.emplace_back(t, r.rvars, params, lookup);
    updates.push_back(Compiled{std::move(target), RowProgram(u.value, r.rvars, params, lookup)});
  }
  const std::vector<std::int64_t> strides = strides_of(domain);
  const ScalarType type = f.type();
  const RowStretches work(rbox);
  std::vector<std::int64_t> outer(static_cast<std::size_t>(rbox.dimensions()), 0);
  std::vector<std::vector<const std::int64_t*>> targets(updates.size());
  std::vector<const Column*> values(updates.size());
  for (std::int64_t item = 0; item < work.items(); ++item) {
    std::int64_t row_start = 0, unused_base = 0;
    int lanes = 0;
    work.locate(item, outer, row_start, lanes, unused_base);
    for (std::size_t u = 0; u < updates.size(); ++u) {
      targets[u].clear();
      for (RowProgram& t : updates[u].target)
        targets[u].push_back(t.run(outer.data(), row_start, 0, lanes, nullptr).ints.data());
      values[u] = &updates[u].value.run(outer.data(), row_start, 0, lanes, nullptr);
    }
    for (int l = 0; l < lanes; ++l) {
      for (std::size_t u = 0; u < updates.size(); ++u) {
        std::int64_t offset = 0; // the target, clamped into the domain
        for (std::size_t d = 0; d < strides.size(); ++d)
          offset += (std::clamp(targets[u][d][l], domain.lo[d], domain.hi[d]) - domain.lo[d]) *
                    strides[d];
        const ReduceOp op = r.updates[u].op;
        const auto i = static_cast<std::size_t>(l);
        if (is_float(type)) {
          const double e = runtime::load_float(data, type, offset);
          runtime::store_float(data, type, offset,
                               combine_floats(op, type, e, values[u]->floats[i]));
        } else {
          const std::int64_t e = runtime::load_integer(data, type, offset);
          runtime::store_integer(data, type, offset,
                                 combine_integers(op, type, e, values[u]->ints[i]));
        }
      }
    }
  }
}

// The index of the last stage that reads each stage (its own index if none).
std::map<const Function*, std::size_t> last_uses(const Pipeline& p) {
  std::map<const Function*, std::size_t> last;
  for (std::size_t i = 0; i < p.stages().size(); ++i) {
    last[p.stages()[i].get()] = i;
    for (const FunctionPtr& producer : p.producer_stages(*p.stages()[i]))
      last[producer.get()] = i;
  }
  return last;
}

} // namespace

BufferMap interpret(const Pipeline& p, const ParamValues& params, const BufferMap& inputs) {
  const ParamValues bound = p.bind(params);
  BufferMap outputs = allocate_outputs(p, bound); // checks the sizes first
  check_arguments(p, bound, inputs, outputs);

  Arrays arrays;
  for (const InputImagePtr& image : p.inputs())
    arrays.add(*image, inputs.at(image->name()), concrete_domain(*image, bound));

  const std::map<const Function*, std::size_t> last_use = last_uses(p);
  std::map<std::string, Buffer> intermediates; // freed after their last reader
  for (std::size_t i = 0; i < p.stages().size(); ++i) {
    const Function& f = *p.stages()[i];
    const Box box = concrete_domain(f, bound);
    Buffer buffer = p.is_output(f) ? outputs.at(f.name()) : allocate_stage_buffer(f, box);
    const Definition& def = f.definition();
    if (def.reduction) {
      evaluate_cases(f, {}, def.reduction->init, box, bound, arrays, buffer.raw());
      apply_updates(f, *def.reduction, box, bound, arrays, buffer.raw());
    } else {
      evaluate_cases(f, def.cases, def.otherwise, box, bound, arrays, buffer.raw());
    }
    arrays.add(f, buffer, box);
    if (!p.is_output(f)) intermediates[f.name()] = buffer;
    for (const FunctionPtr& producer : p.producer_stages(f))
      if (last_use.at(producer.get()) == i) intermediates.erase(producer->name());
  }
  return outputs;
}

} // namespace trapeze
