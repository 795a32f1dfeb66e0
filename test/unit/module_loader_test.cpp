// Loading generated code and calling it through the ABI of codegen/abi.h, on a
// hand-written implementation of the blur pipeline.
#include "jit_test_support.h"
#include "runtime/compiled_pipeline_impl.h"
#include "runtime/jit_cache.h"
#include "support/sample_pipelines.h"
#include "trapeze/buffer.h"
#include "trapeze/dsl.h"
#include "trapeze/error.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace trapeze {
namespace {

namespace fs = std::filesystem;
using test::TempDir;
using testing::HasSubstr;

Pipeline blur_pipeline() { return testing_support::sample_blur(); }

/// What generate_cpp would return for the blur pipeline, written by hand;
/// `signature` is what <entry>_signature() returns and `status` what the entry
/// returns (<entry>_error() says why when it is not 0).
codegen::CppModule hand_written_blur(const Pipeline& p, const std::string& signature,
                                     int status = 0) {
  codegen::CppModule m;
  m.entry_symbol = codegen::entry_symbol(p);
  m.signature = codegen::signature(p);
  m.source = R"(#include <cstdint>
typedef union { std::int64_t i; double f; } trapeze_param;
struct trapeze_allocator;
struct trapeze_buffer {
  void* data;
  const std::int64_t* extent;
  const std::int64_t* stride;
  std::int32_t dimensions, type;
};
extern "C" const char* trapeze_blur_signature(void) { return ")" +
             signature + R"("; }
extern "C" const char* trapeze_blur_error(void) { return ")" +
             std::string(status ? "the hand-written blur failed" : "") + R"("; }
extern "C" int trapeze_blur(const trapeze_param* params, const trapeze_buffer* inputs,
                            const trapeze_buffer* outputs, int num_threads,
                            const trapeze_allocator* allocator) {
  (void)num_threads;
  (void)allocator;
  const std::int64_t C = params[0].i, R = params[1].i; // parameters sorted by name
  const float* img = static_cast<const float*>(inputs[0].data);
  float* blury = static_cast<float*>(outputs[0].data);
  const std::int64_t W = C + 2;
  for (std::int64_t x = 1; x <= R; ++x)
    for (std::int64_t y = 1; y <= C; ++y) {
      float b[3];
      for (int d = 0; d < 3; ++d) {
        const std::int64_t yy = y - 1 + d;
        b[d] = (img[(x - 1) * W + yy] + img[x * W + yy] + img[(x + 1) * W + yy]) / 3.0f;
      }
      blury[(x - 1) * C + (y - 1)] = (b[0] + b[1] + b[2]) / 3.0f;
    }
  return )" + std::to_string(status) +
             ";\n}\n";
  return m;
}

/// Runs a loaded blur on an R x C synthetic image and compares with the formula.
void expect_blur_runs(const CompiledPipeline::Impl& impl, std::int64_t R, std::int64_t C) {
  const ParamValues bound = impl.pipeline.bind({{"R", R}, {"C", C}});
  Buffer img(ScalarType::Float32, {R + 2, C + 2});
  for (std::int64_t i = 0; i < img.size(); ++i)
    img.set_from_double(i, static_cast<double>((i * 37) % 101) / 100.0);
  BufferMap inputs{{"img", img}};
  BufferMap outputs{{"blury", Buffer(ScalarType::Float32, {R, C})}};
  runtime::invoke(impl, runtime::marshal_arguments(impl.pipeline, bound, inputs, outputs), 0);
  const auto in = [&](std::int64_t x, std::int64_t y) { return img.at<float>({x, y}); };
  for (std::int64_t x = 1; x <= R; ++x)
    for (std::int64_t y = 1; y <= C; ++y) {
      float b[3];
      for (int d = 0; d < 3; ++d)
        b[d] = (in(x - 1, y - 1 + d) + in(x, y - 1 + d) + in(x + 1, y - 1 + d)) / 3.0f;
      ASSERT_NEAR(outputs["blury"].at<float>({x - 1, y - 1}), (b[0] + b[1] + b[2]) / 3.0f, 1e-6)
          << "at " << x << ", " << y;
    }
}

TEST(ModuleLoader, LoadsAndCallsAHandWrittenBlur) {
  TempDir cache;
  const Pipeline p = blur_pipeline();
  const codegen::CppModule module = hand_written_blur(p, codegen::signature(p));
  const auto impl = runtime::load_module(p, module, test::test_options(cache));
  EXPECT_FALSE(impl->from_cache);
  EXPECT_EQ(impl->source, module.source);
  EXPECT_EQ(fs::path(impl->library_path).parent_path(), cache.path());
  expect_blur_runs(*impl, 5, 7);
  expect_blur_runs(*impl, 1, 1);

  const auto again = runtime::load_module(p, module, test::test_options(cache));
  EXPECT_TRUE(again->from_cache);
  EXPECT_EQ(again->library_path, impl->library_path);
  expect_blur_runs(*again, 3, 4);
}

TEST(ModuleLoader, MarshalsParametersInDeclarationOrderWithTheirTypes) {
  Param n("n"), gain("gain", ScalarType::Float64);
  Var x("x");
  Image in("in", ScalarType::Float64, {n});
  Func out("out", ScalarType::Float64, {x}, {{0, n - 1}});
  out.define(in(x)*gain);
  const Pipeline p({out}, "scale");
  BufferMap inputs{{"in", Buffer(ScalarType::Float64, {4})}};
  BufferMap outputs{{"out", Buffer(ScalarType::Float64, {4})}};
  const auto args =
      runtime::marshal_arguments(p, p.bind({{"n", 4}, {"gain", 2.5}}), inputs, outputs);
  ASSERT_EQ(args.params.size(), 2u);
  EXPECT_EQ(args.params[0].f, 2.5); // "gain" sorts before "n"
  EXPECT_EQ(args.params[1].i, 4);
  ASSERT_EQ(args.inputs.size(), 1u);
  EXPECT_EQ(args.inputs[0].data, inputs["in"].raw());
  EXPECT_EQ(args.inputs[0].dimensions, 1);
  EXPECT_EQ(args.inputs[0].extent[0], 4);
  EXPECT_EQ(args.inputs[0].stride[0], 1);
  EXPECT_EQ(args.inputs[0].type, static_cast<int>(ScalarType::Float64));
  ASSERT_EQ(args.outputs.size(), 1u);
  EXPECT_EQ(args.outputs[0].data, outputs["out"].raw());
}

TEST(ModuleLoader, WrongSignatureIsReportedAfterOneRebuild) {
  TempDir cache;
  const Pipeline p = blur_pipeline();
  try {
    runtime::load_module(p, hand_written_blur(p, "trapeze-abi-0;stale"), test::test_options(cache));
    FAIL() << "expected trapeze::Error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("the compiled pipeline 'blur' cannot be used"));
    EXPECT_THAT(e.what(), HasSubstr("its signature is 'trapeze-abi-0;stale', expected '" +
                                    codegen::signature(p) + "'"));
    EXPECT_THAT(e.what(), HasSubstr(cache.str()));
  }
}

TEST(ModuleLoader, ForeignObjectInTheCacheIsRebuilt) {
  TempDir cache;
  const Pipeline p = blur_pipeline();
  const codegen::CppModule good = hand_written_blur(p, codegen::signature(p));
  std::string path;
  {
    path = runtime::load_module(p, good, test::test_options(cache))->library_path;
  } // unloaded here, so the next load reads the file again
  // Replace the entry with another, sound-looking object whose signature differs.
  const auto foreign =
      runtime::compile_to_cache(hand_written_blur(p, "foreign").source, test::test_options(cache));
  const std::string key = fs::path(path).stem().string();
  fs::copy_file(foreign.library_path, path, fs::copy_options::overwrite_existing);
  fs::copy_file(cache.path() / (foreign.key + ".meta"), cache.path() / (key + ".meta"),
                fs::copy_options::overwrite_existing);
  ASSERT_TRUE(runtime::entry_is_sound(cache.str(), key));

  const auto impl = runtime::load_module(p, good, test::test_options(cache));
  EXPECT_FALSE(impl->from_cache); // rebuilt
  expect_blur_runs(*impl, 4, 6);
}

TEST(ModuleLoader, NonzeroReturnIsAnError) {
  TempDir cache;
  const Pipeline p = blur_pipeline();
  const auto impl = runtime::load_module(p, hand_written_blur(p, codegen::signature(p), 3),
                                         test::test_options(cache));
  const ParamValues bound = p.bind({{"R", 2}, {"C", 2}});
  BufferMap inputs{{"img", Buffer(ScalarType::Float32, {4, 4})}};
  BufferMap outputs{{"blury", Buffer(ScalarType::Float32, {2, 2})}};
  try {
    runtime::invoke(*impl, runtime::marshal_arguments(p, bound, inputs, outputs), 1);
    FAIL() << "expected trapeze::Error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("running the compiled pipeline 'blur'"));
    EXPECT_THAT(e.what(), HasSubstr("failed: the hand-written blur failed"));
  }
}

} // namespace
} // namespace trapeze
