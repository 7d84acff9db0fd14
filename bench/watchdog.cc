#include "bench/watchdog.h"

#include <unistd.h>

#include <cstdio>

#include "results/interrupts.h"

namespace cclab::bench {

Watchdog::Watchdog(double timeoutS, int rank, std::chrono::milliseconds abortGrace)
    : timeoutNs_(static_cast<std::int64_t>(timeoutS * 1e9)), rank_(rank), abortGrace_(abortGrace), lastKickNs_(nowNs()) {
  if (timeoutNs_ > 0) thread_ = std::thread([this] { watch(); });
}

Watchdog::~Watchdog() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  stop_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void Watchdog::describe(std::string activity) {
  std::lock_guard lock(mutex_);
  activity_ = std::move(activity);
  kick();
}

void Watchdog::onTimeout(AbortRequest requestAbort) {
  std::lock_guard lock(mutex_);
  requestAbort_ = std::move(requestAbort);
}

void Watchdog::watch() {
  std::unique_lock lock(mutex_);
  // Check a few times per timeout period; the thread sleeps in between.
  const auto period = std::chrono::nanoseconds(std::max<std::int64_t>(timeoutNs_ / 10, 1'000'000));
  while (!stop_.wait_for(lock, period, [this] { return stopping_; })) {
    const std::int64_t idle = nowNs() - lastKickNs_.load(std::memory_order_relaxed);
    if (idle > timeoutNs_) {
      std::fprintf(stderr, "ccbench: rank %d: timeout: no progress for %.0f s during %s (-T sets the limit)\n", rank_,
                   static_cast<double>(idle) / 1e9, activity_.c_str());
      std::fflush(stderr);
      // `aborted` only sets a flag and wakes this thread (no lock: it may come from any thread).
      const bool asked = requestAbort_ && requestAbort_([this] {
        aborted_.store(true);
        stop_.notify_all();
      });
      if (asked && !stop_.wait_for(lock, abortGrace_, [this] { return aborted_.load(); })) {
        std::fprintf(stderr, "ccbench: rank %d: still inside a library call after %.1f s: exiting without aborting it\n", rank_,
                     static_cast<double>(abortGrace_.count()) / 1e3);
        std::fflush(stderr);
      }
      results::removeRegisteredPaths();
      ::_exit(kExitCode);
    }
  }
}

}  // namespace cclab::bench
