// Halide buffers over trapeze's memory, the Halide rows' run and result, and
// the dispatch from an app to its Halide versions.
#include "halide_peer_support.h"

#include "trapeze/error.h"

#include <fmt/format.h>

#include <map>
#include <memory>

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

} // namespace

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

Variant halide_variant(const PeerContext& ctx, const std::string& name,
                       std::function<int(const BufferMap& inputs, BufferMap& outputs)> call) {
  auto outputs = std::make_shared<BufferMap>(allocate_outputs(ctx.pipeline, ctx.bound));
  Variant v;
  v.name = name;
  v.run = [call = std::move(call), inputs = ctx.inputs, outputs, threads = ctx.threads, name] {
    halide_set_num_threads(threads);
    if (const int status = call(*inputs, *outputs); status != 0)
      throw Error(fmt::format("{}: the Halide pipeline returned error {}", name, status));
  };
  v.result = [outputs] { return *outputs; };
  return v;
}

std::vector<Variant> halide_variants(const PeerContext& ctx, std::vector<std::string>& skipped) {
  using Maker = std::vector<Variant> (*)(const PeerContext&);
  static const std::map<std::string, Maker> makers = {
      {"blur", halide_blur_variants},
      {"local_laplacian", halide_local_laplacian_variants},
      {"pyramid_blend", halide_pyramid_blend_variants},
  };
  const auto it = makers.find(ctx.app.name);
  if (it == makers.end()) {
    skipped.push_back("halide: no Halide version of " + ctx.app.name +
                      " (the multigrid cycles have none)");
    return {};
  }
  return it->second(ctx);
}

} // namespace trapeze::bench
