#pragma once

// Turns a hang into an error: if the benchmark makes no progress (no kick()) for the timeout, the
// watchdog prints what was running on stderr, asks the libraries to give up (onTimeout: NCCL's
// communicators are aborted by the thread that polls them, never from the watchdog's thread while
// another may be inside an NCCL call), waits a moment for that, removes any half-written results
// file and ends the process with exit code 3. The MPI launcher then stops the other ranks.

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

  // timeoutS == 0: never fires. abortGrace: how long a requested abort may take.
  Watchdog(double timeoutS, int rank, std::chrono::milliseconds abortGrace = std::chrono::seconds(5));
  ~Watchdog();
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

  // What is running now, for the message.
  void describe(std::string activity);
  // Called on the watchdog's thread when it fires: it may only ask the libraries to give up (set a
  // flag their polling thread acts on), passing on `aborted`, which that thread calls once they
  // have; it returns whether it asked anyone. The watchdog then waits up to abortGrace for
  // `aborted` and ends the process either way: a thread stuck inside a library call never polls,
  // and the process ends without calling the library again.
  using AbortRequest = std::function<bool(std::function<void()> aborted)>;
  void onTimeout(AbortRequest requestAbort);
  // Progress: restarts the countdown. Cheap enough to call every iteration.
  void kick() { lastKickNs_.store(nowNs(), std::memory_order_relaxed); }

 private:
  static std::int64_t nowNs() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
  }
  void watch();

  std::int64_t timeoutNs_;
  int rank_;
  std::chrono::milliseconds abortGrace_;
  std::atomic<bool> aborted_{false};
  std::atomic<std::int64_t> lastKickNs_;
  std::mutex mutex_;
  std::condition_variable stop_;
  bool stopping_ = false;
  std::string activity_ = "start-up";
  AbortRequest requestAbort_;
  std::thread thread_;
};

}  // namespace cclab::bench
