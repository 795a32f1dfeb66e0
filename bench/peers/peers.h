// The peers of trapeze bench: other implementations of the apps (Halide 14,
// OpenCV 4) run on trapeze's own input buffers, their outputs returned under
// the pipeline's output names so that the harness checks them like any
// trapeze schedule.
#pragma once

#include "app.h"
#include "harness.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace trapeze::bench {

/// What a peer's implementation of one app gets: the app, its pipeline, the
/// bound parameter values, the shared input buffers (trapeze layout: dense,
/// last dimension contiguous, indices from 0 over each input's extents) and
/// the thread count of the run.
struct PeerContext {
  const apps::App& app;
  const Pipeline& pipeline;
  const ParamValues& bound;
  std::shared_ptr<const BufferMap> inputs;
  int threads = 2;
};

/// The variants `peer` ("halide" or "opencv") has for ctx.app in this build:
///   halide: "halide manual", "halide mullapudi2016", "halide adams2019";
///   opencv: "opencv".
/// Each variant's run() computes the app's outputs into buffers of the
/// pipeline's output types and domain extents (allocate_outputs), and
/// result() returns them; anything a peer needs besides trapeze's buffers
/// (converted copies, wrappers) is made here, outside the timing. A variant
/// that cannot be provided (package not built in, no equivalent in the
/// library) appends one line to `skipped` saying why, e.g.
/// "opencv: no equivalent of camera_pipe". Throws trapeze::Error for an
/// unknown peer name.
std::vector<Variant> peer_variants(const std::string& peer, const PeerContext& ctx,
                                   std::vector<std::string>& skipped);

/// The apps `peer` ("halide" or "opencv") has variants for in this build,
/// sorted by name; none when the peer is not built in. Throws trapeze::Error
/// for an unknown peer name.
std::vector<std::string> peer_apps(const std::string& peer);

/// How a peer library makes the variants of one app, and its table of them by
/// app name (shared by the Halide and OpenCV dispatch).
using PeerMaker = std::vector<Variant> (*)(const PeerContext&);
using PeerMakers = std::map<std::string, PeerMaker>;
/// The app names of `makers`, sorted.
std::vector<std::string> app_names(const PeerMakers& makers);

/// The note of a peer's row that computes its output at a fixed size of its own
/// (`least`, trapeze's order of dimensions; Halide's autoscheduled tiles fit
/// no smaller output) and keeps the part asked for (`extents`): what the time
/// is of. Empty where no extent is below `least`.
std::string fixed_size_note(const std::vector<std::int64_t>& extents,
                            const std::vector<std::int64_t>& least);

/// The peers' implementations, per library (bench/peers/halide/, opencv/).
/// Both return the variants they have for ctx.app (none: an app they do not
/// cover, with a line in `skipped`).
std::vector<Variant> halide_variants(const PeerContext& ctx, std::vector<std::string>& skipped);
std::vector<Variant> opencv_variants(const PeerContext& ctx, std::vector<std::string>& skipped);
/// The apps each library covers, sorted by name.
std::vector<std::string> halide_apps();
std::vector<std::string> opencv_apps();

} // namespace trapeze::bench
