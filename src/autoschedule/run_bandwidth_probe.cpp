// measure_run_bandwidth: tiles with rows of several lengths over one buffer,
// read and written, timed against whole rows.
#include "autoschedule/run_bandwidth_probe.h"

#include "autoschedule/probe_threads.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>

namespace trapeze::autoschedule {

namespace {

// The image's rows (unsharp's 4256 floats: not a power of two, whose stride
// would put every row of a tile in the same cache sets) and one tile's
// bytes (about what the L2 tiles of the apps hold of their input).
constexpr std::int64_t row_bytes = 4256 * 4;
constexpr std::int64_t tile_bytes = 96 * 1024;
constexpr int passes = 5;
// The runs measured; whole rows are the reference.
constexpr std::int64_t runs[] = {256, 512, 1024, 2048, 4096, 8192};

struct Image {
  float* data;
  std::int64_t rows;
  std::int64_t row_floats() const { return row_bytes / 4; }
};

// One pass over the image in tiles `run` bytes wide, tiles taken in row-major
// order by whichever thread is free (as the generated code hands them out);
// reading sums the tile, writing stores a value that depends on the index
// (so that no call to memset replaces the loop). Returns bytes a second
// (the tiles across may leave the last few columns out).
double stream(const Image& image, std::int64_t run, bool write, int threads) {
  const std::int64_t width = run / 4, height = std::max<std::int64_t>(1, tile_bytes / run);
  const std::int64_t across = image.row_floats() / width;
  const std::int64_t down = (image.rows + height - 1) / height;
  std::atomic<std::int64_t> next{0};
  std::atomic<std::uint32_t> sink{0};
  const auto work = [&] {
    std::uint32_t sum = 0;
    for (std::int64_t t = next++; t < across * down; t = next++) {
      const std::int64_t row0 = t / across * height, col0 = t % across * width;
      const std::int64_t rows = std::min(height, image.rows - row0);
      for (std::int64_t r = 0; r < rows; ++r) {
        float* p = image.data + (row0 + r) * image.row_floats() + col0;
        if (write) {
          for (std::int64_t c = 0; c < width; ++c)
            p[c] = static_cast<float>(c);
        } else {
          // The values' bits summed as integers: a sum the compiler may
          // vectorize and reorder freely, so that the loop, not a chain of
          // float additions (one 16-byte add each 3-4 cycles), keeps up
          // with memory on whole rows too.
          std::uint32_t bits = 0;
          for (std::int64_t c = 0; c < width; ++c) {
            std::uint32_t v;
            std::memcpy(&v, p + c, sizeof v);
            bits += v;
          }
          sum += bits;
        }
      }
    }
    sink += sum; // keeps the reads
  };
  const double seconds = timed_on_threads(threads, work);
  return static_cast<double>(across * width * 4 * image.rows) / std::max(seconds, 1e-9);
}

} // namespace

std::vector<MachineModel::RunShare> measure_run_bandwidth(int threads, std::int64_t l3_bytes) {
  // Twice the last-level cache, so that the passes stream from memory.
  const std::int64_t bytes =
      std::clamp<std::int64_t>(2 * l3_bytes, std::int64_t{64} << 20, std::int64_t{256} << 20);
  // Where the memory is not to be had, every run is priced alike (the
  // built-in default).
  const std::unique_ptr<float[]> memory(
      new (std::nothrow) float[static_cast<std::size_t>(bytes / 4)]);
  if (!memory) return {};
  const Image img{memory.get(), bytes / row_bytes};
  threads = std::max(1, threads);
  stream(img, row_bytes, true, threads); // touch every page once
  constexpr std::size_t count = std::size(runs);
  // The fastest of the passes for each: a shared machine's other work only
  // ever takes bandwidth away, so the best is the steadiest estimate of what
  // the machine can do (medians moved by 0.3 between runs minutes apart).
  // Interleaved, so that a slow spell does not fall on one run length.
  double whole_read = 0, whole_write = 0;
  std::vector<double> read(count, 0), written(count, 0);
  for (int pass = 0; pass < passes; ++pass) {
    for (std::size_t i = 0; i < count; ++i) {
      whole_read = std::max(whole_read, stream(img, row_bytes, false, threads));
      read[i] = std::max(read[i], stream(img, runs[i], false, threads));
      whole_write = std::max(whole_write, stream(img, row_bytes, true, threads));
      written[i] = std::max(written[i], stream(img, runs[i], true, threads));
    }
  }
  // Rounded so that the noise of one measurement moves no schedule.
  const auto share = [](double run, double whole) {
    return std::clamp(std::round(run / whole * 20) / 20, 0.05, 1.0);
  };
  std::vector<MachineModel::RunShare> curve;
  for (std::size_t i = 0; i < count; ++i)
    curve.push_back({runs[i], share(read[i], whole_read), share(written[i], whole_write)});
  // Past the longest run measured, a whole-row stream (the reference: rows
  // of 17 KB, six to a tile).
  curve.push_back({65536, 1.0, 1.0});
  return curve;
}

} // namespace trapeze::autoschedule
