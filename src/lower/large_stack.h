// Running deep recursions on a stack sized for them.
//
// The loop IR nests one Allocate per full buffer (full_buffers), so a naive
// schedule of N stages is a statement N levels deep, and every pass, printer
// and visitor recurses through it: about 500 bytes of stack a level, so a
// default 8 MiB stack ends near 16,000 stages. Lowering and printing run on a
// thread with a large stack instead, as Halide runs its lowering
// (run_with_large_stack); the thread's stack is reserved address space, and
// only the pages a deep pipeline touches are ever committed.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <utility>

namespace trapeze::lower {

/// The stack of the thread run_on_large_stack starts: 512 MiB, enough for
/// pipelines of about a million stages.
constexpr std::size_t kLargeStackBytes = std::size_t{512} << 20;

/// Runs `work` on a thread with a kLargeStackBytes stack, waits for it and
/// rethrows what it threw. Runs it in place on such a thread already, or where
/// no thread can be started (then only as deep as the caller's stack allows).
void run_on_large_stack(const std::function<void()>& work);

/// run_on_large_stack for a function that returns a value.
template <typename F> auto on_large_stack(F&& f) {
  std::optional<decltype(f())> result;
  run_on_large_stack([&] { result.emplace(f()); });
  return std::move(*result);
}

} // namespace trapeze::lower
