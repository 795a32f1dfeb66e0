// Releasing a value whose destruction would recurse once per stage.
//
// A stage's definition holds the stages it reads, and a loop IR Allocate
// holds the rest of the program: destroyed by recursion, a chain of 100,000
// stages would take its caller past the stack. The outermost release on a
// thread destroys the values in a loop instead, and every release that its
// destructions start meanwhile hands its value to that loop, so the depth
// stays that of one value.
#pragma once

#include <utility>
#include <vector>

namespace trapeze::ir {

/// Destroys `value` now, or, while an outer call for the same type runs on
/// this thread, hands it to that call's loop.
template <typename T> void release_iteratively(T value) {
  thread_local std::vector<T>* waiting = nullptr; // the outermost call's list
  if (waiting) {
    waiting->push_back(std::move(value));
    return;
  }
  std::vector<T> list;
  list.push_back(std::move(value));
  waiting = &list;
  while (!list.empty()) {
    const T released = std::move(list.back());
    list.pop_back();
  } // `released` is destroyed here, and may add to the list
  waiting = nullptr;
}

} // namespace trapeze::ir
