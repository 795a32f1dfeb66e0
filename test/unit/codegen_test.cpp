// Loop IR, naive lowering and C++ code generation. The generated code is
// compiled with the system compiler, loaded, run, and compared with values
// computed here by hand.
#include "analysis/bounds_prover.h"
#include "codegen/abi.h"
#include "codegen/cpp_codegen.h"
#include "codegen/cpp_expr.h"
#include "codegen/gather_bases.h"
#include "lower/loop_ir.h"
#include "support/lowering.h"
#include "support/sample_pipelines.h"
#include "trapeze/buffer.h"
#include "trapeze/dsl.h"
#include "trapeze/ir_visitor.h"
#include "trapeze/pipeline.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>

namespace trapeze {
namespace {

using testing::HasSubstr;
using testing::Not;

using EntryFn = int (*)(const codegen::ParamSlot*, const codegen::BufferArgument*,
                        const codegen::BufferArgument*, int, const codegen::Allocator*);
using SignatureFn = const char* (*)();
using ErrorFn = const char* (*)();

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A generated module compiled into a shared object and loaded; entry()
// passes dense buffers of the sizes the parameters give.
class Loaded {
public:
  Loaded(const codegen::CppModule& m, Pipeline p, const std::string& flags = "-O2 -fopenmp")
      : pipeline_(std::move(p)) {
    char dir[] = "/tmp/trapeze_codegen_test_XXXXXX";
    if (!mkdtemp(dir)) throw std::runtime_error("mkdtemp failed");
    dir_ = dir;
    const std::string src = dir_ + "/gen.cpp", so = dir_ + "/gen.so", log = dir_ + "/log.txt";
    std::ofstream(src) << m.source;
    std::ofstream(dir_ + "/gen.h") << m.header;
    const std::string cmd =
        "c++ " + flags + " -shared -fPIC -o " + so + " " + src + " > " + log + " 2>&1";
    if (std::system(cmd.c_str()) != 0)
      throw std::runtime_error("compiling generated code failed:\n" + read_file(log) + "\n" +
                               m.source);
    handle_ = dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle_) throw std::runtime_error(dlerror());
    entry_ = reinterpret_cast<EntryFn>(dlsym(handle_, m.entry_symbol.c_str()));
    signature =
        reinterpret_cast<SignatureFn>(dlsym(handle_, (m.entry_symbol + "_signature").c_str()));
    error = reinterpret_cast<ErrorFn>(dlsym(handle_, (m.entry_symbol + "_error").c_str()));
    if (!entry_ || !signature || !error) throw std::runtime_error("entry symbol missing");
  }
  // No dlclose: unloading the last user of libgomp while its idle worker
  // threads still exist crashes them.
  ~Loaded() { std::system(("rm -rf " + dir_).c_str()); }
  Loaded(const Loaded&) = delete;
  Loaded& operator=(const Loaded&) = delete;

  // Calls the entry function on dense buffers at these pointers, of the
  // extents the parameters give (none where they give no sizes: the entry
  // refuses such parameters before it looks at a buffer).
  int entry(const codegen::ParamSlot* params, const void* const* inputs, void* const* outputs,
            int threads, const codegen::Allocator* allocator) {
    ParamValues values;
    for (std::size_t i = 0; i < pipeline_.params().size(); ++i) {
      const ParamInfo& q = pipeline_.params()[i];
      values[q.name] = is_float(q.type) ? ParamValue(params[i].f) : ParamValue(params[i].i);
    }
    std::vector<std::vector<std::int64_t>> extents, strides;
    std::vector<codegen::BufferArgument> in, out;
    const auto describe = [&](void* data, ScalarType type, const Box& box) {
      std::vector<std::int64_t> e;
      for (int d = 0; d < box.dimensions(); ++d)
        e.push_back(box.extent(d));
      extents.push_back(e);
      strides.push_back(Buffer::dense_strides(e));
      return codegen::BufferArgument{data, nullptr, nullptr, box.dimensions(),
                                     static_cast<std::int32_t>(type)};
    };
    extents.reserve(pipeline_.inputs().size() + pipeline_.outputs().size());
    strides.reserve(extents.capacity());
    try {
      const ParamValues bound = pipeline_.bind(values);
      for (std::size_t k = 0; k < pipeline_.inputs().size(); ++k) {
        const auto& image = *pipeline_.inputs()[k];
        in.push_back(
            describe(const_cast<void*>(inputs[k]), image.type(), concrete_domain(image, bound)));
      }
      for (std::size_t k = 0; k < pipeline_.outputs().size(); ++k) {
        const auto& f = *pipeline_.outputs()[k];
        out.push_back(describe(outputs[k], f.type(), concrete_domain(f, bound)));
      }
      std::size_t k = 0;
      for (auto* list : {&in, &out})
        for (codegen::BufferArgument& b : *list) {
          b.extent = extents[k].data();
          b.stride = strides[k++].data();
        }
    } catch (const Error&) {
      // Sizes the host cannot compute: the entry's own checks must refuse them.
      in.assign(pipeline_.inputs().size(), codegen::BufferArgument{});
      out.assign(pipeline_.outputs().size(), codegen::BufferArgument{});
    }
    return entry_(params, in.data(), out.data(), threads, allocator);
  }

  SignatureFn signature = nullptr;
  ErrorFn error = nullptr;

private:
  Pipeline pipeline_;
  EntryFn entry_ = nullptr;
  std::string dir_;
  void* handle_ = nullptr;
};

codegen::ParamSlot int_param(std::int64_t v) {
  codegen::ParamSlot s;
  s.i = v;
  return s;
}

// ---------------------------------------------------------------- pipelines

Pipeline blur_pipeline() { return testing_support::sample_blur(); }

// Harris' Iy: a Sobel on the interior, 0 on the one-pixel border.
Pipeline iy_pipeline() {
  Param R("R"), C("C");
  Var x("x"), y("y");
  Image img("img", ScalarType::Float32, {R + 2, C + 2});
  Func Iy("Iy", ScalarType::Float32, {x, y}, {{0, R + 1}, {0, C + 1}});
  Iy.define({Case(x >= 1 && x <= R && y >= 1 && y <= C,
                  (-img(x - 1, y - 1) + img(x - 1, y + 1) - 2.0f * img(x, y - 1) +
                   2.0f * img(x, y + 1) - img(x + 1, y - 1) + img(x + 1, y + 1)) /
                      12.0f)},
            0.0f);
  return Pipeline({Iy}, "harris_iy");
}

// ---------------------------------------------------------------- lowering

TEST(Bounds, ProverUsesNonEmptyDomains) {
  const Pipeline p = iy_pipeline();
  const analysis::BoundsProver prover = analysis::BoundsProver::for_pipeline(p);
  Param R("R");
  EXPECT_TRUE(prover.prove_le(Expr(1), R + 2));    // R + 1 >= 0: Iy's domain is not empty
  EXPECT_FALSE(prover.prove_le(Expr(1), Expr(R))); // R may be 0
  EXPECT_EQ(ir::to_string(prover.simplify(min(R + 1, Expr(R)))), "R");
  EXPECT_EQ(lower::expr_text(prover.simplify(max(Expr(0), Expr(1)))), "1");
  EXPECT_EQ(lower::expr_text(prover.simplify(max(Expr(R), Expr(0)) + 1)), "max(R + 1, 1)");
}

TEST(Lowering, PureStageIsOneParallelVectorizedNest) {
  const std::string ir = lower::to_string(testing_support::lower_naive(blur_pipeline()).body);
  EXPECT_THAT(ir, HasSubstr("allocate img: float32[R + 2, C + 2] origin (0, 0) input 0"));
  EXPECT_THAT(ir, HasSubstr("allocate blurx: float32[R, C + 2] origin (1, 0) heap"));
  EXPECT_THAT(ir, HasSubstr("// blurx: pure, float32 on [1, R] x [0, C + 1]"));
  EXPECT_THAT(ir, HasSubstr("parallel for x in [1, R] chunked:\n  vectorized for y in [0, C + 1]:\n"
                            "    blurx(x, y) = "));
}

TEST(Lowering, CasesSplitIntoBorderAndInteriorLoops) {
  const std::string ir = lower::to_string(testing_support::lower_naive(iy_pipeline()).body);
  // Rows: the top border (one row: no loop), the interior rows, the bottom border.
  EXPECT_THAT(ir, HasSubstr("let x = 0\nvectorized for y in [0, C + 1]:\n  Iy(x, y) = 0.0f\n"));
  EXPECT_THAT(ir, HasSubstr("parallel for x in [1, max(R, 0)] chunked:\n"
                            "  let y = 0\n  Iy(x, y) = 0.0f\n"
                            "  vectorized for y in [1, max(C, 0)]:\n    Iy(x, y) = (-img("));
  EXPECT_THAT(ir, HasSubstr("  vectorized for y in [max(C + 1, 1), C + 1]:\n"
                            "    Iy(x, y) = 0.0f\n"
                            "parallel for x in [max(R + 1, 1), R + 1] chunked:\n"));
  // No per-point test of the case's box anywhere.
  EXPECT_THAT(ir, Not(HasSubstr("select")));
}

TEST(Lowering, DriverPrintsAfterPassesAndRejectsUnknownNames) {
  std::ostringstream log;
  lower::LowerOptions options;
  options.print_after = "all";
  options.print_timing = true;
  options.log = &log;
  const lower::Module lowered = testing_support::lower_naive(blur_pipeline(), options);
  ASSERT_EQ(lowered.passes.size(), lower::pass_names().size());
  for (const std::string& name : lower::pass_names()) {
    EXPECT_THAT(log.str(), HasSubstr("// --- loop IR after " + name + " ---\n"));
    EXPECT_THAT(log.str(), HasSubstr("pass " + name + ": "));
  }
  options.print_after = "fusion";
  try {
    testing_support::lower_naive(blur_pipeline(), options);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("--after fusion names no lowering pass"));
    EXPECT_THAT(e.what(), HasSubstr("tile_loops, bound_regions"));
  }
}

TEST(Lowering, ParallelismPassesBelowASingleChannelAndCollapsesFewChannels) {
  Param R("R"), C("C");
  Var c("c"), x("x"), y("y");
  Image img("img", ScalarType::Int16, {R, C});
  Func d("d", ScalarType::Int16, {c, x, y}, {{0, 2}, {0, R - 1}, {0, C - 1}});
  d.define({Case(c == 0, img(x, y))}, cast<std::int16_t>(img(x, y) + 1));
  const std::string ir =
      lower::to_string(testing_support::lower_naive(Pipeline({d}, "channels")).body);
  EXPECT_THAT(ir, HasSubstr("let c = 0\nparallel for x in [0, R - 1] chunked:\n"
                            "  vectorized for y in [0, C - 1]:\n    d(c, x, y) = img(x, y)\n"));
  EXPECT_THAT(
      ir,
      HasSubstr("parallel for c in [1, 2] collapse(2) chunked:\n  serial for x in [0, R - 1]:\n"));
}

// ---------------------------------------------------------------- generated text

TEST(CppText, IsReadableAndFollowsTheAbi) {
  const Pipeline p = blur_pipeline();
  const codegen::CppModule m = testing_support::generate_cpp(p);
  EXPECT_EQ(m.entry_symbol, "trapeze_blur");
  EXPECT_EQ(m.signature, codegen::signature(p));
  const std::string& s = m.source;
  EXPECT_THAT(s, HasSubstr("// Generated by trapeze from pipeline 'blur'."));
  EXPECT_THAT(s, HasSubstr("  // blurx: pure, float32 on [1, R] x [0, C + 1]\n"));
  EXPECT_THAT(s, HasSubstr("  const int64_t C = params[0].i;\n  const int64_t R = params[1].i;\n"));
  // The caller's buffers are checked against the parameters, then bound: in
  // place, or through a dense copy when the last dimension is strided.
  EXPECT_THAT(s, HasSubstr("  const int64_t tz_input0_extent[] = {R + 2, C + 2};\n"
                           "  if (!tz_check_buffer(tz_status_, \"input 'img'\", inputs[0], "
                           "TRAPEZE_FLOAT32, tz_input0_extent, 2))\n"));
  EXPECT_THAT(s,
              HasSubstr("  if (!tz_check_disjoint(tz_status_, \"output 'blury'\", outputs[0], 4, "
                        "\"input 'img'\", inputs[0], 4))\n"));
  EXPECT_THAT(s, HasSubstr("  tz_argument<const float, 2> tz_input0;\n"));
  EXPECT_THAT(s, HasSubstr("      const int64_t img_stride0 = tz_input0.stride[0];\n"
                           "      const float* __restrict img = tz_input0.data;\n"));
  EXPECT_THAT(s, HasSubstr("      float* __restrict blury = tz_output0.data;\n"));
  EXPECT_THAT(
      s,
      HasSubstr("  if (tz_status_.code == 0) {\n    tz_output0.finish(outputs[0], tz_threads);\n"));
  // One parallel region for the call; each parallel loop hands runs of rows
  // to its workers, one of them run by the thread that reaches the loop,
  // which then waits for the rows taken (docs/performance.md, "Under load").
  EXPECT_THAT(s, HasSubstr("  #pragma omp parallel num_threads(tz_threads)\n"
                           "  #pragma omp single nowait\n"));
  EXPECT_THAT(s, HasSubstr("        const int64_t x_first = 1;\n"
                           "        const int64_t x_count = tz_max(int64_t(R) - x_first + 1, "
                           "int64_t(0));\n"
                           "        const int64_t x_chunk = tz_chunk(x_count, tz_threads);\n"
                           "        tz_loop* const x_loop = tz_loop_new(tz_threads);\n"));
  EXPECT_THAT(
      s, HasSubstr("        for (int worker = tz_threads - 1; worker >= 0; --worker) {\n"
                   "          #pragma omp task if(worker > 0)\n"
                   "          {\n"
                   "            int64_t x_start = tz_take(x_loop, x_chunk);\n"
                   "            for (; x_start < x_count; tz_finished(x_loop, tz_min(x_start "
                   "+ x_chunk, x_count) - x_start), x_start = tz_take(x_loop, x_chunk)) {\n"
                   "              const int64_t x_end = tz_min(x_start + x_chunk, x_count);\n"
                   "              for (int64_t x_iteration = x_start; x_iteration < x_end; "
                   "++x_iteration) {\n"
                   "                const int32_t x = int32_t(x_first + x_iteration);\n"
                   "                #pragma omp simd\n"
                   "                for (int32_t y = 0; y <= C + 1; ++y) {\n"
                   "                  blurx[(int64_t(x) - 1) * blurx_stride0 + int64_t(y)] = "));
  EXPECT_THAT(s, HasSubstr("            tz_loop_release(x_loop);\n"
                           "          }\n"
                           "        }\n"
                           "        tz_loop_wait(x_loop, x_count);\n"));
  EXPECT_THAT(s, HasSubstr("img[int64_t(x - 1) * img_stride0 + int64_t(y)]"));
  EXPECT_THAT(s, HasSubstr("typedef union {\n  int64_t i;\n  double f;\n} trapeze_param;"));
  EXPECT_THAT(s, HasSubstr("extern \"C\" const char* trapeze_blur_signature(void)"));
  EXPECT_THAT(m.header, HasSubstr("#ifndef TRAPEZE_GENERATED_TRAPEZE_BLUR_H"));
  EXPECT_THAT(m.header, HasSubstr("extern \"C\" {"));
  EXPECT_THAT(m.header, HasSubstr("//   params[1] R: int64\n"));
  EXPECT_THAT(m.header, HasSubstr("//   inputs[0] img: float32[R + 2][C + 2]\n"));
  EXPECT_THAT(
      m.header,
      HasSubstr("//   outputs[0] blury: float32[R][C], element 0 holds the point (1, 1)\n"));
  // The typed C++ function: parameters by name and type, buffers as views of
  // their element type (const for inputs) and dimension count.
  EXPECT_THAT(m.header,
              HasSubstr("inline status blur(int64_t C, int64_t R, view<const float, 2> img, "
                        "view<float, 2> blury, int num_threads = 0, "
                        "const trapeze_allocator* allocator = nullptr) {\n"
                        "  trapeze_param tz_params[2] = {};\n"
                        "  tz_params[0].i = C;\n"
                        "  tz_params[1].i = R;\n"
                        "  const trapeze_buffer tz_inputs[1] = {buffer_of(img)};\n"
                        "  const trapeze_buffer tz_outputs[1] = {buffer_of(blury)};\n"));
}

// The header is valid C (the entry point and the ABI's types) and C++17 (the
// typed function too), next to other pipelines' headers, whatever the names.
TEST(Compiled, HeaderCompilesAsCAndAsCpp) {
  char dir[] = "/tmp/trapeze_header_test_XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string d = dir;
  std::ofstream(d + "/blur.h") << testing_support::generate_cpp(blur_pipeline()).header;
  std::ofstream(d + "/iy.h") << testing_support::generate_cpp(iy_pipeline()).header;
  // Names the typed function and trapeze_aot use themselves, and names the
  // user wrote as those become ("view_" beside "view").
  Param threads("num_threads");
  Var x("x");
  Image view("view", ScalarType::Int32, {threads});
  Image view_("view_", ScalarType::Int32, {threads});
  Func status("status", ScalarType::Int32, {x}, {{0, threads - 1}});
  status.define(view(x) + view_(x));
  std::ofstream(d + "/dense.h")
      << testing_support::generate_cpp(Pipeline({status}, "dense")).header;
  const std::string includes = "#include \"blur.h\"\n#include \"iy.h\"\n#include \"dense.h\"\n";
  std::ofstream(d + "/both.cpp") << includes;
  std::ofstream(d + "/both.c") << includes;
  const std::string flags = " -Wall -Wextra -Werror -fsyntax-only ";
  EXPECT_EQ(std::system(("cc -std=c11" + flags + d + "/both.c").c_str()), 0);
  EXPECT_EQ(std::system(("c++ -std=c++17" + flags + d + "/both.cpp").c_str()), 0);
  std::system(("rm -rf " + d).c_str());
}

// A fused group's nests are noinline functions whose parameters are what they
// use under the caller's names; the tile loop calls them.
TEST(CppText, OutlinedNestsAreFunctionsOfTheirOwn) {
  const Pipeline p = blur_pipeline();
  Schedule s;
  GroupSchedule g;
  g.stages = {"blurx", "blury"};
  g.tile_sizes = {8, 64};
  s.groups = {g};
  for (const bool checked : {false, true}) {
    codegen::CodegenOptions options;
    options.bounds_check = checked;
    const std::string source = testing_support::generate_cpp(p, s, options).source;
    EXPECT_THAT(source, HasSubstr("__attribute__((noinline)) void tile_blurx(const int64_t "));
    EXPECT_THAT(source, HasSubstr("const float* __restrict img"));
    EXPECT_THAT(source, HasSubstr("float* __restrict blurx"));
    EXPECT_THAT(source, HasSubstr("__attribute__((noinline)) void tile_blury("));
    EXPECT_THAT(source, HasSubstr("  tile_blurx(blurx_"));
    EXPECT_EQ(source.find("tz_status& tz_status_") != std::string::npos, checked);
  }
}

// A nest the schedule narrows (vector_bytes) is compiled with GCC's
// prefer-vector-width: its loops use 32-byte registers where the file's
// flags ask for 64-byte ones, and the other nest's keep them.
TEST(Compiled, ANestsVectorBytesNarrowItsVectors) {
  if (std::system("g++ --version > /dev/null 2>&1") != 0) GTEST_SKIP() << "g++ not found";
  const Pipeline p = blur_pipeline();
  Schedule s;
  GroupSchedule g;
  g.stages = {"blurx", "blury"};
  g.tile_sizes = {8, 256};
  g.vector_bytes = {{"blury", 32}};
  s.groups = {g};
  const std::string source = testing_support::generate_cpp(p, s).source;
  EXPECT_THAT(source, HasSubstr("__attribute__((noinline)) TZ_VECTOR_BITS(256) void tile_blury("));
  EXPECT_THAT(source, HasSubstr("__attribute__((noinline)) void tile_blurx("));
  char dir[] = "/tmp/trapeze_codegen_width_XXXXXX";
  ASSERT_TRUE(mkdtemp(dir));
  const std::string src = std::string(dir) + "/gen.cpp", assembly = std::string(dir) + "/gen.s";
  std::ofstream(src) << source;
  const std::string cmd = "g++ -O3 -march=x86-64-v4 -mprefer-vector-width=512 -fopenmp -S -o " +
                          assembly + " " + src + " 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  // A function's instructions: from its label (a line "_Z...tile_blury...:")
  // to its .cfi_endproc.
  const auto body_of = [&](const std::string& name) {
    std::istringstream in(read_file(assembly));
    std::string line, body;
    bool inside = false;
    while (std::getline(in, line)) {
      if (!inside && line.rfind("_Z", 0) == 0 && line.back() == ':' &&
          line.find(name) != std::string::npos)
        inside = true;
      else if (inside && line.find(".cfi_endproc") != std::string::npos)
        break;
      else if (inside)
        body += line + "\n";
    }
    return body;
  };
  const std::string blurx = body_of("tile_blurx"), blury = body_of("tile_blury");
  EXPECT_THAT(blurx, HasSubstr("%zmm"));
  EXPECT_THAT(blury, HasSubstr("%ymm"));
  EXPECT_THAT(blury, Not(HasSubstr("%zmm")));
  std::system(("rm -rf " + std::string(dir)).c_str());
}

// A context that prints names as they are and loads as `img[i]`, with locals
// t, t2, ... or named after their base.
struct ValueContext {
  codegen::CppExprContext context;
  std::vector<std::string> locals;
  ValueContext() {
    context.var = [](const std::string& n) { return n; };
    context.param = [](const std::string& n) { return n; };
    context.load = [](const ir::Access& a, const std::vector<codegen::PrintedIndex>& idx) {
      return a.producer_name() + "[" + idx[0].text + "]";
    };
    context.local = [this](const std::string& base) {
      locals.push_back(base + std::to_string(locals.size()));
      return locals.back();
    };
    context.stage_value = true;
  }
};

// Equal values, however many nodes hold them, are computed once: the
// outermost shared value is declared, not the values inside it.
TEST(CppText, SharedValuesAreDeclaredOnce) {
  Param N("N");
  Var x("x");
  Image img("img", ScalarType::Float32, {N});
  const auto part = [&] { return img(x + 1) * 2.0f + img(x); };
  ValueContext c;
  const codegen::CppValue v = codegen::print_cpp_value(part() * part() + 1.0f, c.context);
  ASSERT_EQ(v.declarations.size(), 1u);
  EXPECT_EQ(v.declarations[0], "const float t0 = img[x + 1] * 2.0f + img[x];");
  EXPECT_EQ(v.value, "t0 * t0 + 1.0f");
  // A load read twice is a local named after what it reads; a variable is not.
  ValueContext c2;
  const codegen::CppValue w =
      codegen::print_cpp_value(img(x) * img(x) + cast<float>(x) * cast<float>(x), c2.context);
  ASSERT_EQ(w.declarations.size(), 1u);
  EXPECT_EQ(w.declarations[0], "const float img_value0 = img[x];");
  EXPECT_EQ(w.value, "img_value0 * img_value0 + float(x) * float(x)");
}

// A select that tests coordinates only is a branch (it may guard reads that
// are out of bounds elsewhere): what only its arm computes stays in the arm,
// in a lambda of its own; what every path computes is declared before.
TEST(CppText, SharedValuesOfABranchStayInTheBranch) {
  Param N("N");
  Var x("x");
  Image img("img", ScalarType::Float32, {N});
  ValueContext c;
  const Expr guarded = select(x >= 1, img(x - 1) * img(x - 1), 0.0f);
  const codegen::CppValue v = codegen::print_cpp_value(guarded + img(x) * img(x), c.context);
  ASSERT_EQ(v.declarations.size(), 1u);
  EXPECT_EQ(v.declarations[0], "const float img_value0 = img[x];");
  EXPECT_EQ(v.value, "(x >= 1 ? [&]() -> float { const float img_value1 = img[x - 1]; return "
                     "img_value1 * img_value1; }() : 0.0f) + img_value0 * img_value0");
  // Evaluated on every path as well, the value is declared once, before.
  ValueContext both;
  const codegen::CppValue w =
      codegen::print_cpp_value(select(x >= 1, img(x) * 2.0f, 0.0f) + img(x) * 3.0f, both.context);
  ASSERT_EQ(w.declarations.size(), 1u);
  EXPECT_EQ(w.declarations[0], "const float img_value0 = img[x];");
  EXPECT_EQ(w.value, "(x >= 1 ? img_value0 * 2.0f : 0.0f) + img_value0 * 3.0f");
  // Computed by both arms, the value is computed on every path too: declared
  // before the branch, so that a chain of pieces that differ in a few reads
  // holds one copy of what they share (fuzz seed 311,912).
  ValueContext arms;
  const codegen::CppValue a = codegen::print_cpp_value(
      select(x >= 1, img(x + 1) * 2.0f + img(x - 1), img(x + 1) * 2.0f), arms.context);
  ASSERT_EQ(a.declarations.size(), 1u);
  EXPECT_EQ(a.declarations[0], "const float t0 = img[x + 1] * 2.0f;");
  EXPECT_EQ(a.value, "x >= 1 ? t0 + img[x - 1] : t0");
  // Branches nested in both arms of one another, forty deep: each level's
  // inner branch is computed on both paths, so it is declared once before
  // it, and finding that walks each branch once (walked once an arm, the
  // forty levels would take 2^40 walks).
  ValueContext nested;
  Expr deep = img(x);
  for (int level = 40; level >= 1; --level)
    deep = select(x >= level, deep * 2.0f + img(x + level), deep * 3.0f);
  const codegen::CppValue d = codegen::print_cpp_value(deep, nested.context);
  EXPECT_EQ(d.declarations.size(), 40u);
  std::size_t text = d.value.size();
  for (const std::string& declaration : d.declarations)
    text += declaration.size();
  EXPECT_LT(text, 10'000u) << text;
  // A select on data evaluates both values (tz_select): they are shared like any other.
  ValueContext blend;
  const codegen::CppValue b =
      codegen::print_cpp_value(select(img(x) > 0.0f, img(x + 1) * img(x + 1), 1.0f), blend.context);
  EXPECT_EQ(b.declarations.size(), 1u);
  EXPECT_THAT(b.value, Not(HasSubstr("[&]")));
}

TEST(CppText, FloorDivisionByPowersOfTwoIsAShiftAndAMask) {
  Param N("N");
  Var x("x");
  Func s("s", ScalarType::Int32, {x}, {{0, N}});
  s.define(x / 4 + x % 8 + x / 3 + trunc_div(x, 5));
  const std::string src = testing_support::generate_cpp(Pipeline({s}, "div")).source;
  EXPECT_THAT(src, HasSubstr("(x >> 2) + (x & 7) + tz_floordiv(x, 3) + x / 5"));
}

// A gathering load in a vector loop over y (codegen/gather_bases.h): what
// does not change with y goes to the base pointer, a small constant added
// to what does goes with it (to the data-dependent index too), and the rest
// (a constant the index subtracts from, a large one) is the offset.
TEST(CppText, AGathersAddressSplitsIntoAnInvariantBaseAndAVaryingOffset) {
  using Part = codegen::GatherSplit::Part;
  Var x("x"), y("y");
  Image img("img", ScalarType::UInt8, {16, 16});
  Image table("table", ScalarType::Float32, {16, 16, 4});
  const Expr k = cast<int>(img(x, y)) % 16;
  const std::set<std::string> varying = {"y"};
  const auto split = [&](const Expr& load) {
    return codegen::split_gather_address(*load.as<ir::Access>(), varying);
  };
  const codegen::GatherSplit a = split(table(k, y / 8 + 1, x % 4));
  EXPECT_EQ(a.part, (std::vector<Part>{Part::Offset, Part::Stem, Part::Base}));
  EXPECT_EQ(a.addend, (std::vector<std::int64_t>{0, 1, 0}));
  EXPECT_EQ(ir::to_string(a.stem[1]), ir::to_string(y / 8));
  EXPECT_TRUE(a.has_base());
  const codegen::GatherSplit b = split(table(k + 1, y - 2, 3 - y));
  EXPECT_EQ(b.part, (std::vector<Part>{Part::Stem, Part::Stem, Part::Offset}));
  EXPECT_EQ(b.addend, (std::vector<std::int64_t>{1, -2, 0}));
  EXPECT_EQ(ir::to_string(b.stem[0]), ir::to_string(k));
  // Through a widening to int64 (a clamp printed in int32).
  const codegen::GatherSplit c = split(table(cast(ScalarType::Int64, k - 1), y, 0));
  EXPECT_EQ(c.part[0], Part::Stem);
  EXPECT_EQ(c.addend[0], -1);
  // A constant too large for a neighbour's distance stays in the offset.
  EXPECT_EQ(split(table(k, y + 100000, 0)).part[1], Part::Offset);
  // Nothing for a base pointer: the load keeps the buffer's own.
  EXPECT_FALSE(split(table(k, y, y + 0)).has_base());
}

// ---------------------------------------------------------------- compiled and run

TEST(Compiled, BlurMatchesHandComputedValues) {
  const Pipeline p = blur_pipeline();
  const codegen::CppModule m = testing_support::generate_cpp(p);
  Loaded lib(m, p);
  EXPECT_EQ(std::string(lib.signature()), m.signature);
  const int R = 5, C = 7;
  std::vector<float> img((R + 2) * (C + 2));
  for (int i = 0; i < R + 2; ++i)
    for (int j = 0; j < C + 2; ++j)
      img[i * (C + 2) + j] = static_cast<float>((i * 7 + j * 3) % 11) * 0.25f;
  std::vector<float> out(R * C, -1.0f);
  const codegen::ParamSlot params[] = {int_param(C), int_param(R)};
  const void* inputs[] = {img.data()};
  void* outputs[] = {out.data()};
  ASSERT_EQ(lib.entry(params, inputs, outputs, 2, nullptr), 0);
  const auto at = [&](int i, int j) { return img[i * (C + 2) + j]; };
  const auto bx = [&](int i, int j) { return (at(i - 1, j) + at(i, j) + at(i + 1, j)) / 3.0f; };
  for (int i = 1; i <= R; ++i)
    for (int j = 1; j <= C; ++j)
      EXPECT_NEAR(out[(i - 1) * C + (j - 1)], (bx(i, j - 1) + bx(i, j) + bx(i, j + 1)) / 3.0f,
                  1e-6f)
          << i << "," << j;
}

// The bounds-checked build: the same results, and an access outside a
// buffer's allocation (here: blurx's allocation shrunk by editing the source)
// ends the call with code 2 and a message naming the stage, the buffer, the
// point and the allocation, instead of touching memory outside it.
TEST(Compiled, BoundsCheckedBuildNamesTheAccessOutsideItsBuffer) {
  const Pipeline p = blur_pipeline();
  codegen::CodegenOptions options;
  options.bounds_check = true;
  codegen::CppModule m = testing_support::generate_cpp(p, Schedule::naive(p), options);
  EXPECT_THAT(m.source, HasSubstr("tz_checked(tz_status_, blurx, {int64_t(x), int64_t(y)}"));
  const int R = 5, C = 7;
  std::vector<float> img((R + 2) * (C + 2), 1.0f), out(R * C, -1.0f);
  const codegen::ParamSlot params[] = {int_param(C), int_param(R)};
  const void* inputs[] = {img.data()};
  void* outputs[] = {out.data()};
  {
    Loaded lib(m, p);
    ASSERT_EQ(lib.entry(params, inputs, outputs, 2, nullptr), 0);
    EXPECT_EQ(std::string(lib.error()), "");
    for (float v : out)
      EXPECT_NEAR(v, 1.0f, 1e-6f);
  }
  const std::string extent = "const int64_t blurx_extent0 = R;";
  ASSERT_THAT(m.source, HasSubstr(extent));
  m.source.replace(m.source.find(extent), extent.size(), "const int64_t blurx_extent0 = R - 2;");
  Loaded shrunk(m, p);
  EXPECT_EQ(shrunk.entry(params, inputs, outputs, 2, nullptr), 2);
  EXPECT_THAT(std::string(shrunk.error()),
              testing::MatchesRegex("bounds check failed: stage blur[xy] (reads|writes) blurx at "
                                    "\\([0-9]+, [0-9]+\\): index [0-9]+ of dimension 0 is outside "
                                    "the allocation \\[1, 3\\] x \\[0, 8\\]"));
}

// The compiler relies on a parameter's declared range, so generated code
// checks it on entry: a caller that passes a value outside it gets code 3 and
// a message, not wrong results.
TEST(Compiled, ParameterOutsideItsRangeIsRejectedOnEntry) {
  Param n("n");
  Var x("x");
  Func f("f", ScalarType::Int32, {x}, {{0, n + 1}});
  f.define({Case(x == 0, Expr(7)), Case(x.in(1, n), x * 2)}, Expr(-1));
  Pipeline p({f}, "ranged");
  p.set_range("n", 1, 100);
  const codegen::CppModule m = testing_support::generate_cpp(p);
  EXPECT_THAT(m.source, HasSubstr("if (n < int64_t(1) || n > int64_t(100)) {"));
  Loaded lib(m, p);
  std::vector<std::int32_t> out(4, 0);
  void* outputs[] = {out.data()};
  const codegen::ParamSlot two[] = {int_param(2)};
  ASSERT_EQ(lib.entry(two, nullptr, outputs, 1, nullptr), 0);
  EXPECT_EQ(out, (std::vector<std::int32_t>{7, 2, 4, -1}));
  const codegen::ParamSlot zero[] = {int_param(0)};
  EXPECT_EQ(lib.entry(zero, nullptr, outputs, 1, nullptr), 3);
  EXPECT_EQ(std::string(lib.error()), "parameter n = 0 is outside its range n >= 1 and n <= 100");
}

// The generated entry checks the sizes as check_sizes does on the host, so an
// AOT caller cannot make its 32-bit loops wrap or its byte counts overflow.
TEST(Compiled, SizesAreCheckedOnEntry) {
  Param n("n");
  Var x("x"), y("y");
  Func f("f", ScalarType::Int32, {x}, {{n, n + 10}});
  f.define(x * 2);
  Func g("g", ScalarType::Float64, {x, y}, {{0, 3 * n}, {0, 3 * n}});
  g.define(cast<double>(f(0) + x));
  const Pipeline pipeline = Pipeline({f, g}, "sizes");
  const codegen::CppModule m = testing_support::generate_cpp(pipeline);
  Loaded lib(m, pipeline);
  std::vector<std::int32_t> fs(11, 0);
  std::vector<double> gs(4, 0);
  void* outputs[] = {fs.data(), gs.data()};
  const codegen::ParamSlot zero[] = {int_param(0)};
  ASSERT_EQ(lib.entry(zero, nullptr, outputs, 1, nullptr), 0) << lib.error();
  EXPECT_EQ(fs[10], 20);
  const codegen::ParamSlot near_int32[] = {int_param(2147483640)};
  EXPECT_EQ(lib.entry(near_int32, nullptr, outputs, 1, nullptr), 3);
  EXPECT_EQ(std::string(lib.error()),
            "stage 'f': dimension 0 is [2147483640, 2147483650], beyond the index range "
            "[-1073741824, 1073741824] (the loops count in 32 bits)");
  const codegen::ParamSlot huge[] = {int_param(INT64_MAX - 5)};
  EXPECT_EQ(lib.entry(huge, nullptr, outputs, 1, nullptr), 3);
  EXPECT_EQ(std::string(lib.error()),
            "stage 'f': a bound overflows int64 for these parameter values");
  // Each dimension in range, the box beyond max_buffer_bytes: 3 * 2^28 squared doubles.
  const codegen::ParamSlot wide[] = {int_param(std::int64_t{1} << 28)};
  EXPECT_EQ(lib.entry(wide, nullptr, outputs, 1, nullptr), 1);
  EXPECT_EQ(std::string(lib.error()),
            "out of memory: stage 'g' would hold more than 72057594037927936 bytes");
}

TEST(Compiled, HarrisIyBordersAreZero) {
  const Pipeline pipeline = iy_pipeline();
  const codegen::CppModule m = testing_support::generate_cpp(pipeline);
  Loaded lib(m, pipeline);
  for (const auto& size : {std::pair{4, 6}, std::pair{1, 1}, std::pair{0, 3}}) {
    const int R = size.first, C = size.second; // clang 14 cannot capture structured bindings
    std::vector<float> img((R + 2) * (C + 2));
    for (std::size_t k = 0; k < img.size(); ++k)
      img[k] = static_cast<float>((k * 37) % 17) - 8.0f;
    std::vector<float> out((R + 2) * (C + 2), -99.0f);
    const codegen::ParamSlot params[] = {int_param(C), int_param(R)};
    const void* inputs[] = {img.data()};
    void* outputs[] = {out.data()};
    ASSERT_EQ(lib.entry(params, inputs, outputs, 0, nullptr), 0);
    const auto at = [&](int i, int j) { return img[i * (C + 2) + j]; };
    for (int x = 0; x <= R + 1; ++x) {
      for (int y = 0; y <= C + 1; ++y) {
        float expect = 0.0f;
        if (x >= 1 && x <= R && y >= 1 && y <= C)
          expect = (-at(x - 1, y - 1) + at(x - 1, y + 1) - 2.0f * at(x, y - 1) +
                    2.0f * at(x, y + 1) - at(x + 1, y - 1) + at(x + 1, y + 1)) /
                   12.0f;
        EXPECT_NEAR(out[x * (C + 2) + y], expect, 1e-6f)
            << R << "x" << C << " at " << x << "," << y;
      }
    }
  }
}

// Cases in order, a residual condition, and a boundary (K) that cannot be
// ordered against the domain at compile time.
TEST(Compiled, CaseOrderResidualsAndUnorderedBoundaries) {
  Param N("N"), K("K");
  Var x("x");
  Func f("f", ScalarType::Int32, {x}, {{0, N - 1}});
  f.define({Case(x < 3, Expr(1)), Case(x >= 5 && x % 2 == 0, Expr(2)), Case(x >= 4, Expr(3)),
            Case(x <= K, Expr(5))},
           Expr(4));
  const Pipeline pipeline = Pipeline({f}, "cases");
  const codegen::CppModule m = testing_support::generate_cpp(pipeline);
  Loaded lib(m, pipeline);
  const int N_ = 12;
  for (int k : {-5, 3, 8, 20}) {
    std::vector<std::int32_t> out(N_, -1);
    const codegen::ParamSlot params[] = {int_param(k), int_param(N_)};
    void* outputs[] = {out.data()};
    ASSERT_EQ(lib.entry(params, nullptr, outputs, 1, nullptr), 0);
    for (int i = 0; i < N_; ++i) {
      const int expect = i < 3 ? 1 : (i >= 5 && i % 2 == 0) ? 2 : i >= 4 ? 3 : i <= k ? 5 : 4;
      EXPECT_EQ(out[i], expect) << "K=" << k << " x=" << i;
    }
  }
}

TEST(Compiled, FloorDivisionAndSampling) {
  Param N("N");
  Var x("x");
  Image img("img", ScalarType::Int32, {2 * N + 2});
  // Down-sampling (2x, 2x+1), then up-sampling (x/2) over negative points too.
  Func down("down", ScalarType::Int32, {x}, {{0, N}});
  down.define(img(2 * x) + 10 * img(2 * x + 1));
  Func arith("arith", ScalarType::Int32, {x}, {{-9, N}});
  arith.define(x / 2 * 1000 + x % 4 * 100 + x / 3 * 10 + x % 3 + down((x + 10) / 2) * 0 +
               cast<int>(trunc_div(x, N) * 7 + trunc_mod(x, N)));
  Func up("up", ScalarType::Int32, {x}, {{0, 2 * N + 1}});
  up.define(down(x / 2) + arith(x - 9));
  Pipeline p({up, arith}, "sampling");
  Loaded lib(testing_support::generate_cpp(p), p);
  const int n = 5;
  std::vector<std::int32_t> data(2 * n + 2);
  for (int i = 0; i < 2 * n + 2; ++i)
    data[i] = i * 3 + 1;
  std::vector<std::int32_t> up_out(2 * n + 2), arith_out(n + 10);
  const codegen::ParamSlot params[] = {int_param(n)};
  const void* inputs[] = {data.data()};
  void* outputs[] = {up_out.data(), arith_out.data()};
  ASSERT_EQ(lib.entry(params, inputs, outputs, 0, nullptr), 0);
  const auto floordiv = [](int a, int b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); };
  const auto floormod = [&](int a, int b) { return a - b * floordiv(a, b); };
  const auto arith_at = [&](int i) {
    return floordiv(i, 2) * 1000 + floormod(i, 4) * 100 + floordiv(i, 3) * 10 + floormod(i, 3) +
           i / n * 7 + i % n;
  };
  for (int i = -9; i <= n; ++i)
    EXPECT_EQ(arith_out[i + 9], arith_at(i)) << i;
  for (int i = 0; i <= 2 * n + 1; ++i) {
    const int d = i / 2;
    EXPECT_EQ(up_out[i], data[2 * d] + 10 * data[2 * d + 1] + arith_at(i - 9)) << i;
  }
}

// docs/dsl.md's integer semantics at the edges, in the generated code:
// overflow wraps, x / 0 is 0, MIN / -1 is MIN (C++ traps), and a float to
// integer cast saturates with NaN to 0 (C++ leaves all of these undefined).
TEST(Compiled, IntegerEdgeCasesHaveTheDefinedResults) {
  Var x("x");
  constexpr std::int32_t kMin = INT32_MIN, kMax = INT32_MAX;
  const std::vector<std::int32_t> a = {kMin, kMax, -7, 5, kMin, 0, -1, 123456};
  const std::vector<std::int32_t> b = {-1, 1, 2, 0, kMin, -1, kMin, 654321};
  const std::vector<float> f = {NAN, INFINITY, -INFINITY, 1e10f, -1e10f, 2.7f, -2.7f, 255.9f};
  const int n = static_cast<int>(a.size());
  Image A("A", ScalarType::Int32, {n}), B("B", ScalarType::Int32, {n}),
      F("F", ScalarType::Float32, {n});
  const auto stage = [&](const char* name, ScalarType t, Expr value) {
    Func s(name, t, {x}, {{0, n - 1}});
    s.define(value);
    return s;
  };
  const std::vector<Func> outs = {
      stage("sum", ScalarType::Int32, A(x) + B(x)),
      stage("product", ScalarType::Int32, A(x) * B(x)),
      stage("quotient", ScalarType::Int32, A(x) / B(x)),
      stage("remainder", ScalarType::Int32, A(x) % B(x)),
      stage("truncated", ScalarType::Int32, trunc_div(A(x), B(x))),
      stage("negated", ScalarType::Int32, -A(x)),
      stage("magnitude", ScalarType::Int32, abs(A(x))),
      stage("to_int", ScalarType::Int32, cast<int>(F(x))),
      stage("to_byte", ScalarType::UInt8, cast<std::uint8_t>(F(x))),
      stage("to_long", ScalarType::Int64, cast<std::int64_t>(F(x) * 1e10f)),
  };
  const Pipeline pipeline = Pipeline(outs, "edges");
  Loaded lib(testing_support::generate_cpp(pipeline), pipeline);
  std::vector<std::vector<std::int32_t>> ints(7, std::vector<std::int32_t>(a.size()));
  std::vector<std::int32_t> to_int(a.size());
  std::vector<std::uint8_t> to_byte(a.size());
  std::vector<std::int64_t> to_long(a.size());
  const void* inputs[] = {a.data(), b.data(), f.data()};
  void* outputs[] = {ints[0].data(), ints[1].data(), ints[2].data(), ints[3].data(),
                     ints[4].data(), ints[5].data(), ints[6].data(), to_int.data(),
                     to_byte.data(), to_long.data()};
  ASSERT_EQ(lib.entry(nullptr, inputs, outputs, 1, nullptr), 0) << lib.error();
  const auto wrap = [](std::int64_t v) {
    return static_cast<std::int32_t>(static_cast<std::uint32_t>(v));
  };
  EXPECT_EQ(ints[0], (std::vector<std::int32_t>{kMax, kMin, -5, 5, 0, -1, kMax, 777777}));
  EXPECT_EQ(ints[1][0], kMin); // MIN * -1 wraps
  EXPECT_EQ(ints[1][7], wrap(std::int64_t{123456} * 654321));
  EXPECT_EQ(ints[2], (std::vector<std::int32_t>{kMin, kMax, -4, 0, 1, 0, 0, 0}));
  EXPECT_EQ(ints[3], (std::vector<std::int32_t>{0, 0, 1, 0, 0, 0, -1, 123456}));
  EXPECT_EQ(ints[4], (std::vector<std::int32_t>{kMin, kMax, -3, 0, 1, 0, 0, 0}));
  EXPECT_EQ(ints[5], (std::vector<std::int32_t>{kMin, -kMax, 7, -5, kMin, 0, 1, -123456}));
  EXPECT_EQ(ints[6], (std::vector<std::int32_t>{kMin, kMax, 7, 5, kMin, 0, 1, 123456}));
  EXPECT_EQ(to_int, (std::vector<std::int32_t>{0, kMax, kMin, kMax, kMin, 2, -2, 255}));
  EXPECT_EQ(to_byte, (std::vector<std::uint8_t>{0, 255, 0, 255, 0, 2, 0, 255}));
  EXPECT_EQ(to_long[0], 0);
  EXPECT_EQ(to_long[1], INT64_MAX);
  EXPECT_EQ(to_long[2], INT64_MIN);
  EXPECT_EQ(to_long[3], INT64_MAX); // 1e20
}

TEST(Compiled, NarrowIntegerArithmeticWrapsLikeC) {
  Param R("R"), C("C");
  Var x("x"), y("y");
  Image img("img", ScalarType::UInt8, {R, C + 1});
  Func diff("diff", ScalarType::Int16, {x, y}, {{0, R - 1}, {0, C - 1}});
  diff.define(
      cast<std::int16_t>(cast<std::int16_t>(img(x, y + 1)) - cast<std::int16_t>(img(x, y))));
  Func out("out", ScalarType::UInt8, {x, y}, {{0, R - 1}, {0, C - 1}});
  // uint8 + uint8 computes in int32; the casts wrap.
  out.define(cast<std::uint8_t>(cast<std::uint8_t>(img(x, y) + img(x, y + 1)) / 2 +
                                cast<std::uint8_t>(diff(x, y) * 3) +
                                cast<std::uint8_t>(clamp(diff(x, y) * 3 + 128, 0, 255))));
  const Pipeline pipeline = Pipeline({out}, "narrow");
  Loaded lib(testing_support::generate_cpp(pipeline), pipeline);
  const int R_ = 3, C_ = 9;
  std::vector<std::uint8_t> img_data(R_ * (C_ + 1));
  for (std::size_t k = 0; k < img_data.size(); ++k)
    img_data[k] = static_cast<std::uint8_t>((k * 97 + 13) % 256);
  std::vector<std::uint8_t> result(R_ * C_);
  const codegen::ParamSlot params[] = {int_param(C_), int_param(R_)};
  const void* inputs[] = {img_data.data()};
  void* outputs[] = {result.data()};
  ASSERT_EQ(lib.entry(params, inputs, outputs, 0, nullptr), 0);
  for (int i = 0; i < R_; ++i) {
    for (int j = 0; j < C_; ++j) {
      const int a = img_data[i * (C_ + 1) + j], b = img_data[i * (C_ + 1) + j + 1];
      const auto d =
          static_cast<std::int16_t>(static_cast<std::int16_t>(b) - static_cast<std::int16_t>(a));
      const int expect = static_cast<std::uint8_t>(a + b) / 2 + static_cast<std::uint8_t>(d * 3) +
                         static_cast<std::uint8_t>(std::clamp(d * 3 + 128, 0, 255));
      EXPECT_EQ(result[i * C_ + j], static_cast<std::uint8_t>(expect)) << i << "," << j;
    }
  }
}

TEST(Compiled, DataDependentLookUpIsClamped) {
  Param R("R"), C("C");
  Var x("x"), y("y"), i("i");
  Image img("img", ScalarType::UInt8, {R, C});
  Func lut("lut", ScalarType::Int32, {i}, {{0, 255}});
  lut.define(i * i % 1000);
  Func out("out", ScalarType::Int32, {x, y}, {{0, R - 1}, {0, C - 1}});
  out.define(lut(img(x, y) + 10) + lut(cast<int>(img(x, y)) - 300));
  const Pipeline pipeline = Pipeline({out}, "lut");
  const codegen::CppModule m = testing_support::generate_cpp(pipeline);
  EXPECT_THAT(m.source, HasSubstr("int64_t(tz_min(tz_max(int32_t(")); // in int32: see below
  Loaded lib(m, pipeline);
  const int R_ = 4, C_ = 64;
  std::vector<std::uint8_t> img_data(R_ * C_);
  for (std::size_t k = 0; k < img_data.size(); ++k)
    img_data[k] = static_cast<std::uint8_t>(k * 5);
  std::vector<std::int32_t> result(R_ * C_);
  const codegen::ParamSlot params[] = {int_param(C_), int_param(R_)};
  const void* inputs[] = {img_data.data()};
  void* outputs[] = {result.data()};
  ASSERT_EQ(lib.entry(params, inputs, outputs, 0, nullptr), 0);
  for (std::size_t k = 0; k < img_data.size(); ++k) {
    const int v = std::min(img_data[k] + 10, 255);
    EXPECT_EQ(result[k], v * v % 1000 + 0) << k; // img - 300 clamps to lut(0) = 0
  }
}

// A data-dependent index clamped into constant bounds is clamped in int32
// and widened after (AVX2 has no 64-bit min or max); a clamp against a
// bound that is a parameter, or of an int64 value, stays in int64. Each
// gives the clamped index at the ends of int32 (where `v + 1` wraps to
// -2^31), and of int64 values beyond int32.
TEST(Compiled, ClampOfAnIndexIntoConstantBoundsRunsInInt32) {
  Param N("N"), T("T");
  Var x("x"), i("i");
  Image img("img", ScalarType::Int32, {N});
  Image wide("wide", ScalarType::Int64, {N});
  Func lut("lut", ScalarType::Int32, {i}, {{0, 255}});
  lut.define(i * 3 + 1);
  Func table("table", ScalarType::Int32, {i}, {{0, T - 1}});
  table.define(i * 5 + 2);
  Func out("out", ScalarType::Int32, {x}, {{0, N - 1}});
  out.define(lut(img(x) + 1) * 1000 + table(img(x)) + lut(wide(x)) * 1000000);
  const Pipeline pipeline = Pipeline({out}, "clamps");
  const codegen::CppModule m = testing_support::generate_cpp(pipeline);
  EXPECT_THAT(m.source, HasSubstr("lut[int64_t(tz_min(tz_max(int32_t(")) << m.source;
  // table's index: the max with 0 in int32, the min with T - 1 in int64.
  EXPECT_THAT(m.source, HasSubstr("table[tz_min(int64_t(tz_max(int32_t(")) << m.source;
  Loaded lib(m, pipeline);
  const std::vector<std::int32_t> values = {std::numeric_limits<std::int32_t>::max(),
                                            std::numeric_limits<std::int32_t>::min(),
                                            -1,
                                            0,
                                            9,
                                            10,
                                            254,
                                            255,
                                            256,
                                            100,
                                            65536 + 5,
                                            -65536 + 3};
  const std::vector<std::int64_t> wide_values = {(std::int64_t{1} << 32) + 5,
                                                 -(std::int64_t{1} << 32) + 3,
                                                 std::int64_t{1} << 40,
                                                 7,
                                                 -1,
                                                 255,
                                                 256,
                                                 std::numeric_limits<std::int64_t>::max(),
                                                 std::numeric_limits<std::int64_t>::min(),
                                                 0,
                                                 (std::int64_t{1} << 31) + 17,
                                                 -(std::int64_t{1} << 31) - 17};
  ASSERT_EQ(values.size(), wide_values.size());
  const int T_ = 10;
  std::vector<std::int32_t> result(values.size());
  const codegen::ParamSlot params[] = {int_param(static_cast<std::int64_t>(values.size())),
                                       int_param(T_)};
  const void* inputs[] = {values.data(), wide_values.data()};
  void* outputs[] = {result.data()};
  ASSERT_EQ(lib.entry(params, inputs, outputs, 0, nullptr), 0);
  const auto lut_at = [](std::int64_t v) { return std::clamp<std::int64_t>(v, 0, 255) * 3 + 1; };
  for (std::size_t k = 0; k < values.size(); ++k) {
    const std::int64_t v = values[k];
    const std::int64_t next = v == std::numeric_limits<std::int32_t>::max() ? -v - 1 : v + 1;
    const std::int64_t tabled = std::clamp<std::int64_t>(v, 0, T_ - 1) * 5 + 2;
    EXPECT_EQ(result[k], lut_at(next) * 1000 + tabled + lut_at(wide_values[k]) * 1000000)
        << "img = " << v << ", wide = " << wide_values[k];
  }
}

// Look-up tables of bytes, halves and bools read at data-dependent indices
// (as camera_pipe's tone curve): each read is the word that starts at the
// element, so reads of a table's last elements run past it into the
// padding of its buffer. Plain and bounds-checked builds must give the
// elements themselves.
TEST(Compiled, NarrowLookUpsReadWordsAndMatch) {
  Param R("R"), C("C");
  Var x("x"), y("y"), i("i");
  Image img("img", ScalarType::UInt8, {R, C});
  Func bytes("bytes", ScalarType::UInt8, {i}, {{0, 255}});
  bytes.define(cast<std::uint8_t>(255 - i));
  Func halves("halves", ScalarType::Int16, {i}, {{0, 255}});
  halves.define(cast<std::int16_t>(i * 129 - 20000));
  Func odd("odd", ScalarType::Bool, {i}, {{0, 255}});
  odd.define(i % 2 == 1);
  Func out("out", ScalarType::Int32, {x, y}, {{0, R - 1}, {0, C - 1}});
  const Expr k = cast<int>(img(x, y));
  out.define(cast<int>(bytes(k)) * 100000 + cast<int>(halves(k)) + select(odd(k), 7, 0));
  const Pipeline pipeline = Pipeline({out}, "narrow_lut");
  for (const bool checked : {false, true}) {
    codegen::CodegenOptions options;
    options.bounds_check = checked;
    const codegen::CppModule m =
        testing_support::generate_cpp(pipeline, Schedule::naive(pipeline), options);
    EXPECT_THAT(m.source, HasSubstr("tz_load_narrow(&"));
    Loaded lib(m, pipeline, "-O3 -fopenmp");
    const int R_ = 8, C_ = 64;
    std::vector<std::uint8_t> img_data(R_ * C_);
    for (std::size_t n = 0; n < img_data.size(); ++n)
      img_data[n] = static_cast<std::uint8_t>(255 - n % 7 * 37); // 255 first: the last elements
    std::vector<std::int32_t> result(R_ * C_);
    const codegen::ParamSlot params[] = {int_param(C_), int_param(R_)};
    const void* inputs[] = {img_data.data()};
    void* outputs[] = {result.data()};
    ASSERT_EQ(lib.entry(params, inputs, outputs, 2, nullptr), 0) << lib.error();
    for (std::size_t n = 0; n < img_data.size(); ++n) {
      const int v = img_data[n];
      EXPECT_EQ(result[n], (255 - v) * 100000 + (v * 129 - 20000) + (v % 2 ? 7 : 0))
          << "at " << n << (checked ? ", bounds-checked" : "");
    }
  }
}

TEST(Compiled, HistogramReduction) {
  Param N("N");
  Var b("b"), x("x");
  RVar r("r", {0, N - 1});
  Image img("img", ScalarType::UInt8, {N});
  Func hist("hist", ScalarType::Int32, {b}, {{0, 15}});
  hist.define_reduction(Expr(0), {r}, {sum_into({img(r) / 16}, Expr(1))});
  Func low("low", ScalarType::UInt8, {b}, {{0, 3}});
  low.define_reduction(
      cast<std::uint8_t>(Expr(255)), {r},
      {min_into({img(r) % 4}, img(r)), sum_into({Expr(9)}, cast<std::uint8_t>(Expr(1)))});
  Func out("out", ScalarType::Int32, {x}, {{0, 15}});
  out.define(hist(x) * 1000 + cast<int>(low(x % 4)));
  const Pipeline pipeline = Pipeline({out}, "histogram");
  const codegen::CppModule m = testing_support::generate_cpp(pipeline);
  EXPECT_THAT(m.source, HasSubstr("// hist: reduction, int32 on [0, 15]"));
  // low's update reads its own target at a data-dependent index, through the
  // index's local: as the byte itself, never the word at it, whose other
  // bytes a parallel reduction's other workers may be writing.
  EXPECT_THAT(m.source, Not(HasSubstr("tz_load_narrow(&")));
  Loaded lib(m, pipeline);
  const int n = 300;
  std::vector<std::uint8_t> img_data(n);
  for (int k = 0; k < n; ++k)
    img_data[k] = static_cast<std::uint8_t>((k * 131 + 7) % 256);
  std::vector<std::int32_t> result(16);
  const codegen::ParamSlot params[] = {int_param(n)};
  const void* inputs[] = {img_data.data()};
  void* outputs[] = {result.data()};
  ASSERT_EQ(lib.entry(params, inputs, outputs, 0, nullptr), 0);
  std::vector<int> hist_ref(16, 0), low_ref(4, 255);
  for (int k = 0; k < n; ++k) {
    hist_ref[img_data[k] / 16] += 1;
    low_ref[img_data[k] % 4] = std::min<int>(low_ref[img_data[k] % 4], img_data[k]);
    low_ref[3] = static_cast<std::uint8_t>(low_ref[3] + 1); // target 9 clamps to 3
  }
  for (int k = 0; k < 16; ++k)
    EXPECT_EQ(result[k], hist_ref[k] * 1000 + low_ref[k % 4]) << k;
}

// Float math, exact literals, float parameters, and names that C++ reserves.
TEST(Compiled, FloatMathAndReservedNames) {
  Param N("N"), w("w", ScalarType::Float32);
  Var x("x");
  Image img("float", ScalarType::Float32, {N});
  Func e("exp", ScalarType::Float32, {x}, {{0, N - 1}});
  Func t("tz_min", ScalarType::Float32, {x}, {{0, N - 1}});
  t.define(img(x) * 2.0f);
  e.define(cast<float>(sqrt(img(x)) * w + pow(img(x), 1.5f) + img(x) % 0.75f + min(img(x), 0.1f) +
                       max(img(x), -2.5f) + abs(t(x) * 0.5f - 3.0f) + floor(img(x)) +
                       select(img(x) > 2.0f, f64(0.1), f64(1e-300) * f64(1e300))));
  const Pipeline pipeline = Pipeline({e}, "float math");
  const codegen::CppModule m = testing_support::generate_cpp(pipeline);
  EXPECT_EQ(m.entry_symbol, "trapeze_float_math");
  EXPECT_THAT(m.source, HasSubstr("const float w = float(params[1].f);"));
  EXPECT_THAT(m.source, HasSubstr("const float* __restrict float_2 = "));
  EXPECT_THAT(m.source, HasSubstr("float* __restrict exp_2 = "));
  // Read eight times, the input is loaded once, into a local named after it.
  EXPECT_THAT(m.source, HasSubstr("const float float_value = float_2[int64_t(x)];"));
  EXPECT_THAT(m.source, HasSubstr("sqrtf(float_value)"));
  EXPECT_THAT(m.source, HasSubstr("float* __restrict vtz_min = "));
  Loaded lib(m, pipeline);
  const int n = 17;
  std::vector<float> in(n), out(n);
  for (int i = 0; i < n; ++i)
    in[i] = static_cast<float>(i) * 0.37f;
  codegen::ParamSlot params[2];
  params[0].i = n;
  params[1].f = 0.3;
  const void* inputs[] = {in.data()};
  void* outputs[] = {out.data()};
  ASSERT_EQ(lib.entry(params, inputs, outputs, 0, nullptr), 0);
  for (int i = 0; i < n; ++i) {
    const float v = in[i];
    const float fm = v - 0.75f * std::floor(v / 0.75f);
    const float f32 = std::sqrt(v) * 0.3f + std::pow(v, 1.5f) + fm + std::min(v, 0.1f) +
                      std::max(v, -2.5f) + std::fabs(v - 3.0f) + std::floor(v);
    const double expect = static_cast<double>(f32) + (v > 2.0f ? 0.1 : 1e-300 * 1e300);
    EXPECT_NEAR(out[i], static_cast<float>(expect), 1e-5f * (1.0f + std::fabs(out[i]))) << i;
  }
}

// exp, sin and pow of constants: GCC folds sinf(34.06111f) with correctly
// rounded arithmetic, and glibc's sinf, which the interpreter calls at run
// time, differs from it in the last place for these arguments. The generated
// code calls them under tz_ aliases of the C library's symbols, which the
// compiler cannot fold, so it returns the library's result bit for bit.
TEST(Compiled, InexactMathOfConstantsIsTheLibrarysResult) {
  const float args[] = {34.06111145019531f,  -66.37100982666016f, -37.92727279663086f,
                        -2.138885974884033f, 4.890199661254883f,  82.98324584960938f};
  Var x("x");
  Image img("img", ScalarType::Float32, {6});
  Func f("f", ScalarType::Float32, {x}, {{0, 5}});
  const auto arg = [&](int k) { return Expr(args[k]); };
  f.define({Case(x == 0, sin(arg(0))), Case(x == 1, sin(arg(1))), Case(x == 2, sin(arg(2))),
            Case(x == 3, exp(arg(3))), Case(x == 4, pow(arg(4), Expr(0.4545f)))},
           pow(arg(5), Expr(0.4545f)) + img(x) * 0.0f);
  const Pipeline pipeline = Pipeline({f}, "constant_math");
  const codegen::CppModule m = testing_support::generate_cpp(pipeline);
  EXPECT_THAT(m.source, HasSubstr("tz_sinf("));
  EXPECT_THAT(m.source, HasSubstr("float tz_sinf(float) noexcept __asm__(\"sinf\")"));
  Loaded lib(m, pipeline);
  std::vector<float> in(6, 1.0f), out(6);
  const void* inputs[] = {in.data()};
  void* outputs[] = {out.data()};
  ASSERT_EQ(lib.entry(nullptr, inputs, outputs, 0, nullptr), 0);
  // The C library's results at run time: volatile, so that this file's
  // compiler cannot fold them either.
  volatile float v[6];
  for (int k = 0; k < 6; ++k)
    v[k] = args[k];
  const float expected[] = {std::sin(v[0]), std::sin(v[1]),          std::sin(v[2]),
                            std::exp(v[3]), std::pow(v[4], 0.4545f), std::pow(v[5], 0.4545f)};
  for (int k = 0; k < 6; ++k)
    EXPECT_EQ(std::memcmp(&out[k], &expected[k], sizeof(float)), 0)
        << k << ": " << out[k] << " against " << expected[k];
}

// GCC reports every loop it vectorizes; the innermost loops of the stages must be among them.
TEST(Compiled, InnermostLoopsVectorize) {
  if (std::system("g++ --version > /dev/null 2>&1") != 0) GTEST_SKIP() << "g++ not found";
  const codegen::CppModule m = testing_support::generate_cpp(blur_pipeline());
  char dir[] = "/tmp/trapeze_codegen_vec_XXXXXX";
  ASSERT_TRUE(mkdtemp(dir));
  const std::string src = std::string(dir) + "/gen.cpp", report = std::string(dir) + "/vec.txt";
  std::ofstream(src) << m.source;
  const std::string cmd = "g++ -O3 -march=native -fopenmp -fopt-info-vec-optimized -c -o " +
                          std::string(dir) + "/gen.o " + src + " > " + report + " 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << read_file(report);
  const std::string text = read_file(report);
  // Lines (1-based) of the innermost loops: the `for` after each `#pragma omp simd`.
  std::vector<int> lines;
  std::istringstream in(m.source);
  std::string l;
  bool after_simd = false;
  for (int n = 1; std::getline(in, l); ++n) {
    if (after_simd && l.find("for (") != std::string::npos) lines.push_back(n);
    after_simd = l.find("#pragma omp simd") != std::string::npos;
  }
  ASSERT_EQ(lines.size(), 2u);
  // GCC names the loop by the line of its for or of its body (the store).
  for (int n : lines)
    EXPECT_TRUE(text.find("gen.cpp:" + std::to_string(n) + ":") != std::string::npos ||
                text.find("gen.cpp:" + std::to_string(n + 1) + ":") != std::string::npos)
        << "the loop at line " << n << " did not vectorize:\n"
        << text << m.source;
  std::system(("rm -rf " + std::string(dir)).c_str());
}

} // namespace
} // namespace trapeze
