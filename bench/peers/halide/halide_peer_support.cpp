// Halide buffers over trapeze's memory, the Halide rows' run and result, and
// the dispatch from an app to its Halide versions.
#include "halide_peer_support.h"

#include "runtime/buffer_pool.h"

#include "trapeze/error.h"
#include "trapeze/pipeline.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <unordered_map>

namespace trapeze::bench {

namespace {

halide_type_t halide_type_of(ScalarType t) {
  switch (t) {
  case ScalarType::Bool: return halide_type_t(halide_type_uint, 1);
  case ScalarType::Int16: return halide_type_t(halide_type_int, 16);
  case ScalarType::Int32: return halide_type_t(halide_type_int, 32);
  case ScalarType::Int64: return halide_type_t(halide_type_int, 64);
  case ScalarType::UInt8: return halide_type_t(halide_type_uint, 8);
  case ScalarType::UInt16: return halide_type_t(halide_type_uint, 16);
  case ScalarType::Float32: return halide_type_t(halide_type_float, 32);
  case ScalarType::Float64: return halide_type_t(halide_type_float, 64);
  }
  throw InternalError("halide_type_of: unknown scalar type");
}

/// `b` grown by growth[d] at the high end of each dimension d (Halide's
/// order; dimensions past growth's size are not grown), zero-filled, with
/// b's contents at b's own coordinates.
Halide::Runtime::Buffer<> grown_copy(const Halide::Runtime::Buffer<>& b,
                                     const std::vector<int>& growth) {
  std::vector<halide_dimension_t> shape(static_cast<std::size_t>(b.dimensions()));
  int stride = 1;
  for (int d = 0; d < b.dimensions(); ++d) {
    const auto du = static_cast<std::size_t>(d);
    shape[du].min = b.dim(d).min();
    shape[du].extent = b.dim(d).extent() + (du < growth.size() ? growth[du] : 0);
    shape[du].stride = stride;
    stride *= shape[du].extent;
  }
  Halide::Runtime::Buffer<> copy(b.type(), nullptr, b.dimensions(), shape.data());
  copy.allocate();
  std::memset(copy.data(), 0, copy.size_in_bytes());
  copy.copy_from(b);
  return copy;
}

} // namespace

std::vector<int> default_output_extents(const PeerContext& ctx, const std::string& output) {
  const Box box =
      concrete_domain(*ctx.pipeline.stage(output), ctx.pipeline.bind(ctx.app.default_size));
  std::vector<int> extents;
  for (int d = box.dimensions() - 1; d >= 0; --d) // Halide's order: innermost first
    extents.push_back(static_cast<int>(box.extent(d)));
  return extents;
}

int call_grown(std::vector<Halide::Runtime::Buffer<>> inputs, Halide::Runtime::Buffer<> output,
               const std::vector<int>& min_extents,
               const std::function<int(std::vector<Halide::Runtime::Buffer<>>& inputs,
                                       Halide::Runtime::Buffer<>& output)>& call) {
  std::vector<int> growth(static_cast<std::size_t>(output.dimensions()), 0);
  bool grow = false;
  for (int d = 0; d < output.dimensions() && d < static_cast<int>(min_extents.size()); ++d) {
    const auto du = static_cast<std::size_t>(d);
    growth[du] = std::max(0, min_extents[du] - output.dim(d).extent());
    grow = grow || growth[du] > 0;
  }
  if (!grow) return call(inputs, output);
  for (auto& input : inputs)
    input = grown_copy(input, growth);
  Halide::Runtime::Buffer<> big_output = grown_copy(output, growth);
  const int status = call(inputs, big_output);
  output.copy_from(big_output);
  return status;
}

Halide::Runtime::Buffer<> halide_view(const Buffer& b, const std::vector<int>& mins) {
  const int dims = b.dimensions();
  std::vector<halide_dimension_t> shape(static_cast<std::size_t>(dims));
  std::int64_t stride = 1;
  for (int d = dims - 1; d >= 0; --d) { // trapeze's last dimension is Halide's first
    halide_dimension_t& h = shape[static_cast<std::size_t>(dims - 1 - d)];
    h.min = mins.empty() ? 0 : mins.at(static_cast<std::size_t>(d));
    h.extent = static_cast<int>(b.extent(d));
    h.stride = static_cast<int>(stride);
    stride *= b.extent(d);
  }
  return Halide::Runtime::Buffer<>(halide_type_of(b.type()), const_cast<void*>(b.raw()), dims,
                                   shape.data());
}

namespace {

// Halide's default error handler aborts the process; this one keeps the
// message, so that a failing Halide pipeline becomes a trapeze::Error.
std::mutex halide_error_mutex;
std::string halide_error_message;

void keep_halide_error(void* /*user_context*/, const char* message) {
  const std::lock_guard<std::mutex> lock(halide_error_mutex);
  halide_error_message = message;
}

std::string take_halide_error() {
  const std::lock_guard<std::mutex> lock(halide_error_mutex);
  std::string message = std::move(halide_error_message);
  halide_error_message.clear();
  while (!message.empty() && message.back() == '\n')
    message.pop_back();
  return message;
}

bool is_default_size(const PeerContext& ctx) {
  const ParamValues defaults = ctx.pipeline.bind(ctx.app.default_size);
  return std::equal(ctx.bound.begin(), ctx.bound.end(), defaults.begin(), defaults.end(),
                    [](const auto& a, const auto& b) {
                      return a.first == b.first && a.second.i == b.second.i &&
                             a.second.f == b.second.f;
                    });
}

} // namespace

int halide_run_padded(const Buffer& out, const std::vector<int>& mins,
                      const std::vector<int>& min_extents,
                      const std::function<int(halide_buffer_t*)>& run) {
  Halide::Runtime::Buffer<> view = halide_view(out, mins);
  const int dims = out.dimensions();
  bool small = false;
  std::vector<int> extents(static_cast<std::size_t>(dims)); // Halide's order
  for (int d = 0; d < dims && !min_extents.empty(); ++d) {
    const int extent = static_cast<int>(out.extent(d));
    const int least = min_extents.at(static_cast<std::size_t>(d));
    small = small || extent < least;
    extents[static_cast<std::size_t>(dims - 1 - d)] = std::max(extent, least);
  }
  if (!small) return run(view);
  Halide::Runtime::Buffer<> scratch(view.type(), extents);
  std::vector<int> halide_mins(static_cast<std::size_t>(dims));
  for (int d = 0; d < dims; ++d)
    halide_mins[static_cast<std::size_t>(d)] = view.dim(d).min();
  scratch.set_min(halide_mins);
  if (const int status = run(scratch); status != 0) return status;
  view.copy_from(scratch);
  return 0;
}

void note_fixed_size(std::vector<Variant>& variants, const PeerContext& ctx,
                     const std::string& output, const std::vector<int>& least) {
  const Box domain = concrete_domain(*ctx.pipeline.stage(output), ctx.bound);
  std::vector<std::int64_t> extents;
  for (int d = 0; d < domain.dimensions(); ++d)
    extents.push_back(domain.extent(d));
  const std::string note = fixed_size_note(extents, {least.begin(), least.end()});
  for (Variant& v : variants)
    if (v.name != "halide manual") v.note = note;
}

namespace {

// Halide's runtime allocates every compute_root buffer in each call, through
// halide_malloc. Its default (the C library) maps the large ones afresh and
// every first touch of a page faults, on every call: for local_laplacian that
// was most of a run (~36k faults per call). Trapeze's runs draw their
// intermediates from a pool that each compiled pipeline keeps between runs
// (runtime/buffer_pool.h); each Halide row gets a pool of its own in the same
// way, through the hook Halide documents for it, so that the comparison is of
// the schedules, not of the allocators. One pool per row, as trapeze has one
// per pipeline: a pool returns the blocks that a whole run did not use, so
// rows taking turns on one pool would evict each other's buffers. The rows
// run one at a time; Halide's worker threads allocate too, so the current
// pool is a global, not a thread-local. Blocks of 64 KiB and more come from
// the pool: the C library maps those afresh, or trims them off its heaps
// when they are freed (Adams2019's unsharp allocates 127,692 bytes per
// parallel iteration, and in a fresh process each one faulted its pages in:
// 300 ms instead of 25). Smaller ones (Halide's hand-written unsharp
// allocates a 17 KB row per iteration) stay with the C library, whose
// per-thread arenas hand a thread back its own cache-warm block, where the
// shared pool would hand it the other thread's (that row took 3x as long).
// A pooled block has 64 bytes of slack on either side (Halide may read 8
// bytes beyond a block; 64 keeps it aligned) and is registered with its
// pool, so it goes back there even if freed outside its row's run.
constexpr std::size_t kHalideBlockSlack = 64;
constexpr std::size_t kPooledHalideBlockBytes = std::size_t{64} << 10;
std::atomic<runtime::BufferPool*> current_halide_pool{nullptr};
std::mutex pooled_halide_blocks_mutex;
std::unordered_map<void*, runtime::BufferPool*> pooled_halide_blocks; // by Halide's pointer
std::atomic<std::size_t> pooled_halide_blocks_count{0};

void* pooled_halide_malloc(void* user_context, std::size_t bytes) {
  runtime::BufferPool* pool = current_halide_pool.load();
  if (!pool || bytes < kPooledHalideBlockBytes) return halide_default_malloc(user_context, bytes);
  auto* block = static_cast<unsigned char*>(pool->allocate(bytes + 2 * kHalideBlockSlack));
  if (!block) return nullptr;
  void* memory = block + kHalideBlockSlack;
  const std::lock_guard<std::mutex> lock(pooled_halide_blocks_mutex);
  pooled_halide_blocks.emplace(memory, pool);
  ++pooled_halide_blocks_count;
  return memory;
}

void pooled_halide_free(void* user_context, void* memory) {
  // No lock while no pooled block is out (a pipeline without large buffers).
  if (memory && pooled_halide_blocks_count.load() > 0) {
    const std::lock_guard<std::mutex> lock(pooled_halide_blocks_mutex);
    if (const auto it = pooled_halide_blocks.find(memory); it != pooled_halide_blocks.end()) {
      it->second->release(static_cast<unsigned char*>(memory) - kHalideBlockSlack);
      pooled_halide_blocks.erase(it);
      --pooled_halide_blocks_count;
      return;
    }
  }
  halide_default_free(user_context, memory);
}

} // namespace

Variant halide_variant(const PeerContext& ctx, const std::string& name,
                       std::function<int(const BufferMap& inputs, BufferMap& outputs)> call) {
  static const bool runtime_hooks_set =
      (halide_set_error_handler(keep_halide_error), halide_set_custom_malloc(pooled_halide_malloc),
       halide_set_custom_free(pooled_halide_free), true);
  (void)runtime_hooks_set;
  auto outputs = std::make_shared<BufferMap>(allocate_outputs(ctx.pipeline, ctx.bound));
  auto pool = std::make_shared<runtime::BufferPool>();
  Variant v;
  v.name = name;
  v.run = [call = std::move(call), inputs = ctx.inputs, outputs, threads = ctx.threads, name,
           pool] {
    halide_set_num_threads(threads);
    int status = 0;
    {
      const runtime::BufferPool::Run pool_run(*pool);
      current_halide_pool.store(pool.get());
      status = call(*inputs, *outputs);
      current_halide_pool.store(nullptr);
    }
    if (status != 0)
      throw Error(fmt::format("{}: the Halide pipeline returned error {}: {}", name, status,
                              take_halide_error()));
  };
  v.result = [outputs] { return *outputs; };
  return v;
}

namespace {

// The Halide versions of the apps, by app name.
const PeerMakers& halide_makers() {
  static const PeerMakers makers = {
      {"bilateral_grid", halide_bilateral_grid_variants},
      {"blur", halide_blur_variants},
      {"camera_pipe", halide_camera_pipe_variants},
      {"harris", halide_harris_variants},
      {"interpolate", halide_interpolate_variants},
      {"local_laplacian", halide_local_laplacian_variants},
      {"pyramid_blend", halide_pyramid_blend_variants},
      {"unsharp", halide_unsharp_variants},
  };
  return makers;
}

} // namespace

std::vector<std::string> halide_apps() { return app_names(halide_makers()); }

namespace {

// Rows whose Halide-generated code crashes the process (a segfault in a Halide
// worker thread cannot be caught), skipped at every size with what is known.
struct KnownCrash {
  const char* app;
  const char* variant;
  const char* why;
};
const KnownCrash kKnownCrashes[] = {
    {"pyramid_blend", "halide adams2019",
     "known crash: the code Halide 14 generates for pyramid_blend's Adams2019 schedule segfaults "
     "in par_for_blend_s0_x_x, at every size: an aligned 64-byte load (vmovaps zmm) 8 bytes past "
     "another aligned one from the same base, so one of the two must fault (a miscompile in "
     "Halide 14's AVX-512 code, independent of our buffers)"},
};

} // namespace

std::vector<Variant> halide_variants(const PeerContext& ctx, std::vector<std::string>& skipped) {
  const PeerMakers& makers = halide_makers();
  const auto it = makers.find(ctx.app.name);
  if (it == makers.end()) {
    skipped.push_back("halide: no Halide version of " + ctx.app.name +
                      " (the multigrid cycles have none)");
    return {};
  }
  std::vector<Variant> variants;
  for (Variant& v : it->second(ctx)) {
    const auto crash =
        std::find_if(std::begin(kKnownCrashes), std::end(kKnownCrashes), [&](const KnownCrash& k) {
          return ctx.app.name == k.app && v.name == k.variant;
        });
    if (crash == std::end(kKnownCrashes))
      variants.push_back(std::move(v));
    else
      skipped.push_back(v.name + ": " + crash->why);
  }
  if (is_default_size(ctx)) return variants;
  // The schedules are made for the default size (the autoschedulers' estimates);
  // at another size a schedule's tiles (shifted inwards) may not fit the
  // buffers. Such a row is skipped, with Halide's reason; at the default size
  // every failure is an error.
  std::vector<Variant> runnable;
  for (Variant& v : variants) {
    try {
      v.run();
      runnable.push_back(std::move(v));
    } catch (const Error& e) {
      skipped.push_back(fmt::format("{} (its schedule is made for the default size)", e.what()));
    }
  }
  return runnable;
}

} // namespace trapeze::bench
