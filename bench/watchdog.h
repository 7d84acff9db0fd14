#pragma once

// Turns a hang into an error: if the benchmark makes no progress (no kick()) for the timeout, the
// watchdog prints what was running on stderr, lets the libraries give up (onTimeout: NCCL's
// ncclCommAbort), removes any half-written results file and ends the process with exit code 3.
// The MPI launcher then stops the other ranks.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace cclab::bench {

class Watchdog {
 public:
  static constexpr int kExitCode = 3;

  Watchdog(double timeoutS, int rank);  // timeoutS == 0: never fires
  ~Watchdog();
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

  // What is running now, for the message.
  void describe(std::string activity);
  // Called on the watchdog's thread when it fires, before the process exits.
  void onTimeout(std::function<void()> abort);
  // Progress: restarts the countdown. Cheap enough to call every iteration.
  void kick() { lastKickNs_.store(nowNs(), std::memory_order_relaxed); }

 private:
  static std::int64_t nowNs() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
  }
  void watch();

  std::int64_t timeoutNs_;
  int rank_;
  std::atomic<std::int64_t> lastKickNs_;
  std::mutex mutex_;
  std::condition_variable stop_;
  bool stopping_ = false;
  std::string activity_ = "start-up";
  std::function<void()> abort_;
  std::thread thread_;
};

}  // namespace cclab::bench
