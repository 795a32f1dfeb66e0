// Running deep recursions on a stack sized for them (large_stack.h).
#include "lower/large_stack.h"

#include <exception>
#include <pthread.h>

namespace trapeze::lower {

namespace {

thread_local bool on_a_large_stack = false;

struct Job {
  const std::function<void()>* work;
  std::exception_ptr thrown;
};

void* run_job(void* argument) {
  Job& job = *static_cast<Job*>(argument);
  on_a_large_stack = true;
  try {
    (*job.work)();
  } catch (...) {
    job.thrown = std::current_exception();
  }
  return nullptr;
}

} // namespace

void run_on_large_stack(const std::function<void()>& work) {
  if (on_a_large_stack) return work();
  pthread_attr_t attributes;
  if (pthread_attr_init(&attributes) != 0) return work();
  Job job{&work, nullptr};
  pthread_t thread;
  const bool started = pthread_attr_setstacksize(&attributes, kLargeStackBytes) == 0 &&
                       pthread_create(&thread, &attributes, run_job, &job) == 0;
  pthread_attr_destroy(&attributes);
  if (!started) return work();
  pthread_join(thread, nullptr);
  if (job.thrown) std::rethrow_exception(job.thrown);
}

} // namespace trapeze::lower
