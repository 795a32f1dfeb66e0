// Times reading one PNG with trapeze::read_image against OpenCV's cv::imread
// (docs/performance.md, "Reading images").
//
//   trapeze_image_read_bench [--reps N] [FILE.png ...]
//
// Without files it writes two photo-sized images (2560 x 1536 RGB, 8- and
// 16-bit, trapeze's synthetic image) into a temporary folder and times those.
// Each rep reads the file once with each reader, alternating which goes first,
// so both see the same page cache and the same machine load; it prints the
// median and minimum of each, and checks once that the two decode the same
// samples (OpenCV's BGR interleaved against trapeze's RGB planes).
#include "trapeze/image_io.h"

#include <fmt/core.h>
#include <opencv2/imgcodecs.hpp>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

template <typename F> double milliseconds(F&& f) {
  const auto start = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

/// Whether OpenCV's BGR(A) interleaved Mat holds trapeze's planar RGB(A) samples.
template <typename T> bool same_samples(const trapeze::Buffer& planar, const cv::Mat& mat) {
  const int dims = planar.dimensions();
  const std::int64_t channels = dims == 3 ? planar.extent(0) : 1;
  const std::int64_t rows = planar.extent(dims - 2), cols = planar.extent(dims - 1);
  if (mat.rows != rows || mat.cols != cols || mat.channels() != channels) return false;
  const T* p = static_cast<const T*>(planar.raw());
  for (std::int64_t r = 0; r < rows; ++r) {
    const T* row = mat.ptr<T>(static_cast<int>(r));
    for (std::int64_t c = 0; c < cols; ++c)
      for (std::int64_t k = 0; k < channels; ++k) {
        // OpenCV orders colour as BGR(A): channel k of trapeze is its 2 - k.
        const std::int64_t cv_k = channels >= 3 && k < 3 ? 2 - k : k;
        if (row[c * channels + cv_k] != p[(k * rows + r) * cols + c]) return false;
      }
  }
  return true;
}

void time_file(const std::string& path, int reps) {
  const trapeze::Buffer first = trapeze::read_image(path);
  const cv::Mat mat = cv::imread(path, cv::IMREAD_UNCHANGED);
  const bool wide = first.type() == trapeze::ScalarType::UInt16;
  const bool same =
      wide ? same_samples<std::uint16_t>(first, mat) : same_samples<std::uint8_t>(first, mat);
  std::vector<double> ours, theirs;
  for (int rep = 0; rep < reps; ++rep) {
    const auto time_ours = [&] {
      ours.push_back(milliseconds([&] { (void)trapeze::read_image(path); }));
    };
    const auto time_theirs = [&] {
      theirs.push_back(milliseconds([&] { (void)cv::imread(path, cv::IMREAD_UNCHANGED); }));
    };
    if (rep % 2) {
      time_ours();
      time_theirs();
    } else {
      time_theirs();
      time_ours();
    }
  }
  fmt::print("{} ({}, {} bytes): trapeze::read_image median {:.2f} ms (min {:.2f}), "
             "cv::imread median {:.2f} ms (min {:.2f}), ratio {:.2f}, {} reps, samples {}\n",
             path, first.describe(), std::filesystem::file_size(path), median(ours),
             *std::min_element(ours.begin(), ours.end()), median(theirs),
             *std::min_element(theirs.begin(), theirs.end()), median(ours) / median(theirs), reps,
             same ? "identical" : "DIFFER");
}

} // namespace

int main(int argc, char** argv) {
  int reps = 21;
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--reps" && i + 1 < argc)
      reps = std::max(1, std::atoi(argv[++i]));
    else if (arg == "--help" || arg == "-h") {
      fmt::print("usage: {} [--reps N] [FILE.png ...]\n", argv[0]);
      return 0;
    } else
      files.push_back(arg);
  }
  try {
    std::filesystem::path dir;
    if (files.empty()) {
      dir = std::filesystem::temp_directory_path() /
            ("trapeze_image_read_bench_" + std::to_string(::getpid()));
      std::filesystem::create_directories(dir);
      for (const auto type : {trapeze::ScalarType::UInt8, trapeze::ScalarType::UInt16}) {
        trapeze::SyntheticSpec spec;
        spec.type = type;
        spec.extents = {3, 1536, 2560};
        spec.hi = type == trapeze::ScalarType::UInt8 ? 255 : 65535;
        const std::string file =
            (dir / (type == trapeze::ScalarType::UInt8 ? "photo8.png" : "photo16.png")).string();
        trapeze::write_image(trapeze::synthetic_image(spec), file);
        files.push_back(file);
      }
    }
    for (const std::string& file : files)
      time_file(file, reps);
    if (!dir.empty()) std::filesystem::remove_all(dir);
  } catch (const std::exception& e) {
    fmt::print(stderr, "trapeze_image_read_bench: {}\n", e.what());
    return 1;
  }
  return 0;
}
