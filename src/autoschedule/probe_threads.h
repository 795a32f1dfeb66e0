// timed_on_threads: the machine probes' passes, each run on every core as the
// generated code runs its tiles.
#pragma once

#include <functional>

namespace trapeze::autoschedule {

/// Runs `work` on `threads` threads at once (this one among them) and returns
/// the seconds until all have returned. Where the system is out of threads,
/// the pass runs on those it got.
double timed_on_threads(int threads, const std::function<void()>& work);

} // namespace trapeze::autoschedule
