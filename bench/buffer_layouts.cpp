// What an interleaved input costs: each app with a colour input run on its
// planar input and on the same image interleaved (a Buffer view, channels
// innermost), timed in turns, against the cost of one deinterleaving pass
// over the input, done by hand, which the interleaved run cannot avoid.
//
//   build/bench/trapeze_bench_layouts [--reps N] [--threads T] [APP...]
//
// Prints a Markdown table (docs/performance.md, "Buffer layouts").
#include "app.h"
#include "harness.h"
#include "trapeze/error.h"
#include "trapeze/runtime.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

namespace trapeze::bench {
namespace {

// A [c][r][w] buffer's elements in fresh memory, channels innermost.
Buffer interleaved_copy(const Buffer& planar, Buffer& backing) {
  const std::int64_t c = planar.extent(0), r = planar.extent(1), w = planar.extent(2);
  backing = Buffer(planar.type(), {r, w, c});
  Buffer view = Buffer::view(planar.type(), backing.raw(), {c, r, w}, {1, w * c, c});
  view.copy_from(planar);
  return view;
}

// The deinterleaving the generated code must do, written directly: one
// serial pass, channel by channel, over an interleaved image.
template <typename T> void deinterleave(const Buffer& view, T* out) {
  const std::int64_t c = view.extent(0), r = view.extent(1), w = view.extent(2);
  const T* in = static_cast<const T*>(view.raw());
  for (std::int64_t k = 0; k < c; ++k)
    for (std::int64_t i = 0; i < r; ++i) {
      const T* row = in + i * w * c + k;
      T* dst = out + (k * r + i) * w;
      for (std::int64_t j = 0; j < w; ++j)
        dst[j] = row[j * c];
    }
}

double median_ms(const std::function<void()>& f, int reps) {
  std::vector<double> t;
  for (int i = 0; i < reps; ++i) {
    const auto start = std::chrono::steady_clock::now();
    f();
    t.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                    .count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

int run(int argc, char** argv) {
  int reps = 15, threads = 2;
  std::vector<std::string> names;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--reps" && i + 1 < argc)
      reps = std::stoi(argv[++i]);
    else if (a == "--threads" && i + 1 < argc)
      threads = std::stoi(argv[++i]);
    else
      names.push_back(a);
  }
  if (names.empty()) names = {"unsharp", "interpolate", "local_laplacian"};
  std::printf(
      "| app | input | planar (ms) | interleaved (ms) | difference (ms) | "
      "deinterleave alone (ms) | memcpy of the input (ms) |\n|---|---|---|---|---|---|---|\n");
  for (const std::string& name : names) {
    const apps::App& app = apps::find_app(name);
    const Pipeline p = app.build();
    const ParamValues bound = p.bind(app.default_size);
    const BufferMap planar = app.make_inputs(p, bound);
    const std::string input = p.inputs().front()->name();
    const Buffer& image = planar.at(input);
    if (image.dimensions() != 3)
      throw Error("app '" + name + "' has no [channels][rows][cols] input");
    Buffer backing;
    BufferMap interleaved = planar;
    interleaved[input] = interleaved_copy(image, backing);
    // One compiled pipeline per variant: each keeps its own pool of
    // intermediate buffers (the interleaved run's dense copy among them), as
    // a program that always passes one layout would.
    const CompiledPipeline compiled = compile(p), compiled_interleaved = compile(p);
    BufferMap out_planar = allocate_outputs(p, bound), out_interleaved = out_planar;
    for (auto& [k, b] : out_interleaved)
      b = Buffer(b.type(), b.extents());
    std::vector<Variant> variants = {
        {"planar", [&] { compiled.run(bound, planar, out_planar, threads); },
         [&] { return out_planar; }, ""},
        {"interleaved",
         [&] { compiled_interleaved.run(bound, interleaved, out_interleaved, threads); },
         [&] { return out_interleaved; }, ""}};
    const std::vector<VariantResult> r = time_interleaved(variants, reps, 0.0, nullptr);
    for (const VariantResult& v : r)
      if (v.check != "reference" && v.check != "ok")
        throw Error(name + ": the interleaved run differs: " + v.check);
    Buffer scratch(image.type(), image.extents());
    const double alone = median_ms(
        [&] {
          switch (image.type()) {
          case ScalarType::Float32: return deinterleave(interleaved[input], scratch.data<float>());
          case ScalarType::UInt16:
            return deinterleave(interleaved[input], scratch.data<std::uint16_t>());
          case ScalarType::UInt8:
            return deinterleave(interleaved[input], scratch.data<std::uint8_t>());
          default: throw Error("no deinterleaving loop for " + image.describe());
          }
        },
        reps);
    const double copy =
        median_ms([&] { std::memcpy(scratch.raw(), image.raw(), image.bytes()); }, reps);
    std::printf("| %s | %s | %.2f | %.2f | %+.2f | %.2f | %.2f |\n", name.c_str(),
                image.describe().c_str(), r[0].median_ms, r[1].median_ms,
                r[1].median_ms - r[0].median_ms, alone, copy);
    std::fflush(stdout);
  }
  return 0;
}

} // namespace
} // namespace trapeze::bench

int main(int argc, char** argv) {
  try {
    return trapeze::bench::run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "trapeze_bench_layouts: %s\n", e.what());
    return 1;
  }
}
