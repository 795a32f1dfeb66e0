// Buffers over the caller's memory: every layout of inputs and outputs
// (padded rows, interleaved channels, transposed, flipped, broadcast) gives
// the interpreter's results bit for bit, under tiled and naive schedules; the
// caller's memory outside the view is never written; and bad buffers are
// refused by the runtime and by the entry function itself.
#include "app.h"
#include "runtime/compiled_pipeline_impl.h"
#include "runtime/generate_source.h"
#include "trapeze/dsl.h"
#include "trapeze/error.h"
#include "trapeze/image_io.h"
#include "trapeze/runtime.h"
#include "unit/jit_test_support.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <functional>
#include <numeric>

namespace trapeze {
namespace {

// A layout: the view's strides over a backing allocation, and where element
// (0, ..., 0) lies in it.
struct Layout {
  std::string name;
  std::function<Buffer(const Buffer& backing_for, std::vector<Buffer>& keep)> make;
};

// A view of `extents` in fresh memory (kept alive by `keep`), whose bytes
// outside the view are filled with a sentinel.
Buffer make_view(ScalarType type, const std::vector<std::int64_t>& extents,
                 const std::vector<std::int64_t>& backing_extents,
                 const std::vector<std::int64_t>& strides, std::int64_t first,
                 std::vector<Buffer>& keep) {
  Buffer backing(type, backing_extents);
  std::memset(backing.raw(), 0x5a, backing.bytes());
  keep.push_back(backing);
  auto* base = static_cast<std::byte*>(backing.raw()) + first * byte_size(type);
  return Buffer::view(type, static_cast<void*>(base), extents, strides);
}

// Every layout of a [c][r][w] buffer, or of an [r][w] one (c == 0).
std::vector<std::pair<std::string, Buffer>> layouts(ScalarType type, std::int64_t c, std::int64_t r,
                                                    std::int64_t w, std::vector<Buffer>& keep) {
  std::vector<std::pair<std::string, Buffer>> out;
  if (c == 0) {
    out.emplace_back("dense", Buffer(type, {r, w}));
    out.emplace_back("padded rows", make_view(type, {r, w}, {r, w + 7}, {w + 7, 1}, 0, keep));
    out.emplace_back("transposed", make_view(type, {r, w}, {w, r}, {1, r}, 0, keep));
    out.emplace_back("flipped rows", make_view(type, {r, w}, {r, w}, {-w, 1}, (r - 1) * w, keep));
    out.emplace_back("every other column",
                     make_view(type, {r, w}, {r, 2 * w}, {2 * w, 2}, 0, keep));
    return out;
  }
  out.emplace_back("dense", Buffer(type, {c, r, w}));
  out.emplace_back("padded rows",
                   make_view(type, {c, r, w}, {c, r, w + 5}, {r * (w + 5), w + 5, 1}, 0, keep));
  out.emplace_back("interleaved channels",
                   make_view(type, {c, r, w}, {r, w, c}, {1, w * c, c}, 0, keep));
  out.emplace_back("interleaved, padded rows",
                   make_view(type, {c, r, w}, {r, w * c + 9}, {1, w * c + 9, c}, 0, keep));
  out.emplace_back("channels last, rows flipped",
                   make_view(type, {c, r, w}, {r, c, w}, {w, -c * w, 1}, (r - 1) * c * w, keep));
  out.emplace_back("column-major", make_view(type, {c, r, w}, {w, r, c}, {1, c, c * r}, 0, keep));
  return out;
}

void expect_matches(const Buffer& expected, const Buffer& actual, const std::string& what) {
  const auto mismatch = compare_buffers(expected, actual, 0.0);
  EXPECT_FALSE(mismatch.has_value()) << what << ": " << (mismatch ? mismatch->str() : "");
}

// The bytes of a view's backing that are not elements of the view keep the
// sentinel: checked by writing the view's elements into a copy of the
// backing, which must then equal the backing.
void expect_only_elements_written(const Buffer& view, Buffer backing, const std::string& what) {
  std::vector<unsigned char> before(backing.bytes());
  std::memcpy(before.data(), backing.raw(), backing.bytes());
  Buffer marked =
      Buffer::view(view.type(), const_cast<void*>(view.raw()), view.extents(), view.strides());
  // Overwrite the view's elements with the sentinel: the whole backing must
  // then be sentinel bytes, so no byte outside the view was written.
  for (std::int64_t i = 0; i < marked.size(); ++i)
    std::memset(static_cast<std::byte*>(marked.raw()) +
                    marked.element_offset(i) * byte_size(view.type()),
                0x5a, static_cast<std::size_t>(byte_size(view.type())));
  const auto* bytes = static_cast<const unsigned char*>(backing.raw());
  std::size_t written = 0;
  for (std::size_t i = 0; i < backing.bytes(); ++i)
    written += bytes[i] != 0x5a;
  std::memcpy(backing.raw(), before.data(), backing.bytes()); // restore the results
  EXPECT_EQ(written, 0u) << what << ": bytes outside the view were written";
}

// A pipeline of its own: a 3-channel uint8 input, a stencil across rows and
// columns of each channel (float), a channel sum and a per-channel output.
struct Mixed {
  Param R{"R"}, C{"C"};
  Var c{"c"}, x{"x"}, y{"y"};
  Image img{"img", ScalarType::UInt8, {3, R + 2, C + 2}};
  Func smooth{"smooth", ScalarType::Float32, {c, x, y}, {{0, 2}, {1, R}, {1, C}}};
  Func gray{"gray", ScalarType::Float32, {x, y}, {{1, R}, {1, C}}};
  Func edges{"edges", ScalarType::Int32, {c, x, y}, {{0, 2}, {2, R - 1}, {2, C - 1}}};
  Pipeline p = define();
  Pipeline define() {
    smooth.define((cast(ScalarType::Float32, img(c, x - 1, y)) + img(c, x + 1, y) +
                   img(c, x, y - 1) + img(c, x, y + 1)) *
                  0.25f);
    gray.define(smooth(0, x, y) * 0.299f + smooth(1, x, y) * 0.587f + smooth(2, x, y) * 0.114f);
    edges.define(cast(ScalarType::Int32, smooth(c, x + 1, y) - smooth(c, x - 1, y)) +
                 cast(ScalarType::Int32, img(c, x, y)));
    return Pipeline({gray, edges}, "mixed_layouts");
  }
};

TEST(StridedBuffers, EveryLayoutOfInputsAndOutputsMatchesTheInterpreter) {
  Mixed m;
  const ParamValues bound = m.p.bind({{"R", 37}, {"C", 53}});
  const Buffer dense_img = synthetic_image({ScalarType::UInt8, {3, 39, 55}, 0, 255, 7});
  const BufferMap expected = interpret(m.p, bound, {{"img", dense_img}});
  CompileOptions options;
  options.flags = "-O1 -fopenmp -ffp-contract=off";
  // Naive and automatic schedules, the latter also bounds-checked: every
  // access through the caller's strides lies inside the caller's buffer.
  for (const int variant : {0, 1, 2}) {
    const bool tiled = variant > 0;
    const Schedule s = tiled ? auto_schedule(m.p, {}) : Schedule::naive(m.p);
    options.bounds_check = variant == 2;
    const CompiledPipeline compiled = compile(m.p, s, options);
    std::vector<Buffer> keep;
    const auto inputs = layouts(ScalarType::UInt8, 3, 39, 55, keep);
    const auto grays = layouts(ScalarType::Float32, 0, 37, 53, keep);
    const auto edges = layouts(ScalarType::Int32, 3, 35, 51, keep);
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      Buffer in = inputs[i].second;
      in.copy_from(dense_img);
      // The interpreter reads the caller's layout too.
      const std::string what = std::string(variant == 2 ? "dp bounds-checked"
                                           : tiled      ? "dp"
                                                        : "naive") +
                               ", input " + inputs[i].first;
      expect_matches(expected.at("gray"), interpret(m.p, bound, {{"img", in}}).at("gray"), what);
      // Each output layout with this input (the k-th of each list, cycling).
      for (std::size_t k = 0; k < std::max(grays.size(), edges.size()); ++k) {
        const auto& [gray_name, gray] = grays[(k + i) % grays.size()];
        const auto& [edges_name, edge] = edges[k % edges.size()];
        BufferMap outputs{{"gray", gray}, {"edges", edge}};
        compiled.run(bound, {{"img", in}}, outputs, 2);
        const std::string w = what + ", gray " + gray_name + ", edges " + edges_name;
        expect_matches(expected.at("gray"), outputs.at("gray"), w);
        expect_matches(expected.at("edges"), outputs.at("edges"), w);
      }
    }
    // Nothing outside the output views was written.
    for (const auto& [name, view] : edges) {
      if (view.owns_memory()) continue;
      for (const Buffer& backing : keep)
        if (backing.byte_span().first <= view.byte_span().first &&
            view.byte_span().second <= backing.byte_span().second)
          expect_only_elements_written(view, backing, "edges " + name);
    }
  }
}

// `p` (inputs img and table, output out) under dp's schedule, printed with
// each limit of its 32-bit gather offsets (-1: no 32-bit copies), run with
// the table in every layout, against the interpreter; `check` reads each
// printed source first.
void expect_every_table_layout_matches(
    const Pipeline& p, const ParamValues& bound, const Buffer& img, const Buffer& table,
    const std::vector<std::int64_t>& limits,
    const std::function<void(std::int64_t, const std::string&)>& check) {
  const Schedule s = auto_schedule(p, {});
  test::TempDir cache;
  for (const std::int64_t limit : limits) {
    codegen::CodegenOptions codegen_options;
    codegen_options.gather_offsets32_limit = limit;
    const codegen::CppModule source = runtime::generate_source(p, s, codegen_options);
    check(limit, source.source);
    const auto impl = runtime::load_module(p, source, test::test_options(cache));
    std::vector<Buffer> keep;
    for (const auto& [name, view] :
         layouts(ScalarType::Float32, 0, table.extent(0), table.extent(1), keep)) {
      Buffer t = view;
      t.copy_from(table);
      const BufferMap inputs{{"img", img}, {"table", t}};
      const BufferMap expected = interpret(p, bound, inputs);
      BufferMap outputs = allocate_outputs(p, bound);
      runtime::CallArguments args = runtime::marshal_arguments(p, bound, inputs, outputs);
      runtime::invoke(*impl, args, 2);
      expect_matches(expected.at("out"), outputs.at("out"),
                     "limit " + std::to_string(limit) + ", table " + name);
    }
  }
}

// Look-ups at data-dependent indices into a table the caller passes, in
// every layout (flipped rows: negative offsets), and into a stage of the
// pipeline. A nest that gathers is printed twice, the second copy summing
// its gathers' offsets in 32 bits; the call takes it where every gathered
// buffer fits the limit. Each way matches the interpreter: the 32-bit copy
// (the default limit), the 64-bit one chosen at the call (a limit below the
// table's reach) and the 64-bit one alone (no copy printed).
TEST(StridedBuffers, GathersInBothOffsetWidthsMatchTheInterpreter) {
  Param R("R"), C("C");
  Var x("x"), y("y"), i("i");
  Image img("img", ScalarType::UInt8, {R, C});
  Image table("table", ScalarType::Float32, {16, 16});
  Func curve("curve", ScalarType::Float32, {i}, {{0, 255}});
  curve.define(cast(ScalarType::Float32, i * i % 97) * 0.5f);
  // A stencil fused with its consumer: the look-ups lie in a tile's nest.
  Func index("index", ScalarType::Int32, {x, y}, {{0, R - 1}, {0, C - 2}});
  index.define((cast<int>(img(x, y)) + cast<int>(img(x, y + 1)) * 3) % 256);
  Func out("out", ScalarType::Float32, {x, y}, {{0, R - 1}, {1, C - 3}});
  const Expr k = (index(x, y - 1) + index(x, y + 1)) / 2;
  out.define(table(k % 16, k / 16) + curve(255 - k));
  const Pipeline p({out}, "gathers");
  const ParamValues bound = p.bind({{"R", 45}, {"C", 70}});
  const Buffer dense_img = synthetic_image({ScalarType::UInt8, {45, 70}, 0, 255, 11});
  const Buffer dense_table = synthetic_image({ScalarType::Float32, {16, 16}, -4, 4, 5});
  expect_every_table_layout_matches(
      p, bound, dense_img, dense_table, {INT32_MAX, 100, -1},
      [](std::int64_t limit, const std::string& source) {
        EXPECT_EQ(source.find("_offsets32(") != std::string::npos, limit >= 0) << limit;
      });
}

// Gathers of neighbouring elements in a vector loop (bilateral grid's
// slicing reads a cell's corners): the loop-invariant part of each address
// goes to a base pointer before the loop, constants of the varying indices
// with it (+1, +2, and -1 of a flipped index), and loads that differ only
// there share their offsets. Both offset widths, and the 32-bit copy's
// condition widened by the constants moved (a limit that the table's own
// reach fits but the widened one does not picks the 64-bit copy), match the
// interpreter in every layout of the table.
TEST(StridedBuffers, GathersOfNeighboursShareTheirOffsetsAndMatchTheInterpreter) {
  Param R("R"), C("C");
  Var x("x"), y("y"), i("i"), j("j");
  Image img("img", ScalarType::UInt8, {R, C});
  Image table("table", ScalarType::Float32, {16, 18});
  Func curve("curve", ScalarType::Float32, {i, j}, {{0, 15}, {0, 3}});
  curve.define(cast(ScalarType::Float32, i * i % 97 + j) * 0.5f);
  // A stencil fused with its consumer: the look-ups lie in a tile's nest,
  // which has a 32-bit copy.
  Func index("index", ScalarType::Int32, {x, y}, {{0, R - 1}, {0, C - 2}});
  index.define((cast<int>(img(x, y)) + cast<int>(img(x, y + 1)) * 3) % 16);
  Func out("out", ScalarType::Float32, {x, y}, {{0, R - 1}, {1, C - 3}});
  const Expr k = (index(x, y - 1) + index(x, y + 1)) / 2;
  const Expr row = y / 8 % 16;
  out.define(table(k, row) + table(k, row + 1) * 2.0f + table(k, row + 2) * 3.0f +
             table(k, 17 - row - 1) * 5.0f + curve(k, x % 4) + curve(15 - k, x % 4));
  const Pipeline p({out}, "neighbours");
  const ParamValues bound = p.bind({{"R", 21}, {"C", 150}});
  const Buffer dense_img = synthetic_image({ScalarType::UInt8, {21, 150}, 0, 255, 3});
  const Buffer dense_table = synthetic_image({ScalarType::Float32, {16, 18}, -4, 4, 9});
  // The table's reach in its densest layout: 15 * 18 + 17 = 287 elements;
  // with the +2 moved, 289 (the curve's: 63).
  expect_every_table_layout_matches(
      p, bound, dense_img, dense_table, {INT32_MAX, 288, -1},
      [](std::int64_t limit, const std::string& source) {
        EXPECT_NE(source.find("const auto table_base"), std::string::npos) << source;
        EXPECT_NE(source.find("const auto curve_base"), std::string::npos) << source;
        if (limit >= 0) {
          EXPECT_NE(source.find("{int64_t(16), int64_t(18) + 2}"), std::string::npos) << source;
        }
      });
}

// An app under its hand-written (tiled) schedule on an interleaved input.
TEST(StridedBuffers, UnsharpOnAnInterleavedImage) {
  const apps::App& app = apps::find_app("unsharp");
  const Pipeline p = app.build();
  const ParamValues bound = p.bind(app.small_size);
  const BufferMap dense = app.make_inputs(p, bound);
  const Buffer& img = dense.at("img");
  std::vector<Buffer> keep;
  Buffer interleaved =
      make_view(img.type(), img.extents(), {img.extent(1), img.extent(2), img.extent(0)},
                {1, img.extent(2) * img.extent(0), img.extent(0)}, 0, keep);
  interleaved.copy_from(img);
  CompileOptions options;
  options.flags = "-O1 -fopenmp -ffp-contract=off";
  const CompiledPipeline compiled = compile(p, app.manual_schedule(p), options);
  const BufferMap expected = interpret(p, bound, dense);
  const BufferMap actual = compiled.run(bound, {{"img", interleaved}}, 2);
  for (const auto& out : p.outputs())
    expect_matches(expected.at(out->name()), actual.at(out->name()), "unsharp " + out->name());
}

// A channel broadcast (stride 0) is a valid input: every channel reads the
// same plane.
TEST(StridedBuffers, BroadcastInput) {
  Mixed m;
  const ParamValues bound = m.p.bind({{"R", 20}, {"C", 24}});
  const Buffer plane = synthetic_image({ScalarType::UInt8, {22, 26}, 0, 255, 3});
  const Buffer broadcast = Buffer::view(ScalarType::UInt8, plane.raw(), {3, 22, 26}, {0, 26, 1});
  const BufferMap expected = interpret(m.p, bound, {{"img", broadcast.clone()}});
  CompileOptions options;
  options.flags = "-O1 -fopenmp -ffp-contract=off";
  const BufferMap actual =
      compile(m.p, Schedule::naive(m.p), options).run(bound, {{"img", broadcast}});
  expect_matches(expected.at("gray"), actual.at("gray"), "gray");
  expect_matches(expected.at("edges"), actual.at("edges"), "edges");
}

std::string run_error(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(StridedBuffers, OutputsMustBeWritableMemoryOfTheirOwn) {
  Mixed m;
  const ParamValues bound = m.p.bind({{"R", 20}, {"C", 24}});
  const Buffer img = synthetic_image({ScalarType::UInt8, {3, 22, 26}, 0, 255, 3});
  const CompiledPipeline compiled = compile(m.p, Schedule::naive(m.p));
  BufferMap good = allocate_outputs(m.p, bound);

  Buffer gray = good.at("gray");
  BufferMap read_only = good;
  read_only["gray"] = Buffer::view(ScalarType::Float32, static_cast<const void*>(gray.raw()),
                                   gray.extents(), gray.strides());
  EXPECT_NE(run_error([&] {
              compiled.run(bound, {{"img", img}}, read_only);
            }).find("output 'gray' of pipeline 'mixed_layouts' is a read-only view"),
            std::string::npos);

  BufferMap aliased = good;
  aliased["gray"] = Buffer::view(ScalarType::Float32, gray.raw(), gray.extents(), {0, 1});
  EXPECT_NE(run_error([&] {
              compiled.run(bound, {{"img", img}}, aliased);
            }).find("two elements share memory"),
            std::string::npos);

  // An output over the input's own memory.
  Buffer in = img.clone();
  BufferMap overlapping = good;
  overlapping["gray"] = Buffer::view(ScalarType::Float32, in.raw(), {20, 24}, {24, 1});
  EXPECT_NE(run_error([&] {
              compiled.run(bound, {{"img", in}}, overlapping);
            }).find("overlaps input 'img' in memory"),
            std::string::npos);

  BufferMap two_outputs = good;
  Buffer shared(ScalarType::Int32, {3, 20, 24});
  two_outputs["edges"] = Buffer::view(ScalarType::Int32, shared.raw(), {3, 18, 22}, {480, 24, 1});
  two_outputs["gray"] = Buffer::view(ScalarType::Float32, shared.raw(), {20, 24}, {24, 1});
  EXPECT_NE(run_error([&] {
              compiled.run(bound, {{"img", img}}, two_outputs);
            }).find("overlaps"),
            std::string::npos);
}

// The entry function checks the buffers itself, for callers without the
// runtime (AOT): a wrong extent, type or dimension count, a null pointer or
// overlapping outputs is refused with code 4 and a message.
TEST(StridedBuffers, TheEntryFunctionRefusesBadBuffers) {
  Mixed m;
  const ParamValues bound = m.p.bind({{"R", 20}, {"C", 24}});
  test::TempDir cache;
  const auto impl = runtime::load_module(m.p, runtime::generate_source(m.p, Schedule::naive(m.p)),
                                         test::test_options(cache));
  BufferMap inputs{{"img", synthetic_image({ScalarType::UInt8, {3, 22, 26}, 0, 255, 3})}};
  BufferMap outputs = allocate_outputs(m.p, bound);
  const auto call = [&](const std::function<void(runtime::CallArguments&)>& spoil) {
    runtime::CallArguments args = runtime::marshal_arguments(m.p, bound, inputs, outputs);
    spoil(args);
    return run_error([&] { runtime::invoke(*impl, args, 1); });
  };
  EXPECT_EQ(call([](runtime::CallArguments&) {}), "");
  const std::int64_t short_extent[] = {3, 21, 26};
  EXPECT_NE(call([&](runtime::CallArguments& a) { a.inputs[0].extent = short_extent; })
                .find("input 'img' must be uint8[3][22][26] for these parameters, but the given "
                      "buffer is uint8[3][21][26]"),
            std::string::npos);
  EXPECT_NE(call([](runtime::CallArguments& a) { a.outputs[0].type = 7; })
                .find("output 'gray' must be float32[20][24] for these parameters, but the given "
                      "buffer is float64[20][24]"),
            std::string::npos);
  EXPECT_NE(call([](runtime::CallArguments& a) { a.outputs[1].dimensions = 2; }).find("edges"),
            std::string::npos);
  EXPECT_NE(call([](runtime::CallArguments& a) {
              a.inputs[0].data = nullptr;
            }).find("input 'img': the given buffer's data pointer is null"),
            std::string::npos);
  const std::string overlap =
      call([](runtime::CallArguments& a) { a.outputs[1].data = a.outputs[0].data; });
  EXPECT_NE(overlap.find("output '" + m.p.outputs()[1]->name() + "' and output '" +
                         m.p.outputs()[0]->name() + "' overlap in memory"),
            std::string::npos)
      << overlap;
}

} // namespace
} // namespace trapeze
