// The -T watchdog in-process, without MPI: kicked in time it stays quiet while the benchmark's thread
// describes and kicks it (the race ThreadSanitizer checks: its thread reads what the benchmark's
// thread writes), it stops promptly, and left alone it ends the process with exit code 3 after
// asking the libraries to give up: the polling thread aborts and says so, or, stuck inside a call,
// never does and the watchdog exits without it. ccbench_test's AHangTimesOutInsteadOfWaitingForever
// checks the same end to end under mpirun.

#include "bench/watchdog.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <mutex>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

namespace cclab::bench {
namespace {

using Clock = std::chrono::steady_clock;

TEST(Watchdog, ZeroTimeoutNeverFires) {
  Watchdog watchdog(0, 0);
  watchdog.describe("all_reduce");
  watchdog.onTimeout([](auto) -> bool { std::abort(); });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  watchdog.kick();
}

TEST(Watchdog, KickedInTimeItStaysQuietAndStopsPromptly) {
  const auto start = Clock::now();
  {
    Watchdog watchdog(0.2, 0);  // checks every 20 ms
    watchdog.onTimeout([](auto) -> bool { std::abort(); });
    // 0.5 s of work in steps far shorter than the timeout, as ccbench's loop kicks it; the
    // descriptions change while the watchdog's thread may be reading them.
    for (int step = 0; Clock::now() - start < std::chrono::milliseconds(500); ++step) {
      if (step % 10 == 0) watchdog.describe("step " + std::to_string(step));
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
      watchdog.kick();
    }
    watchdog.onTimeout({});  // as ~Driver does, while the thread runs
  }
  // The destructor wakes the thread rather than waiting out its period.
  EXPECT_LT(std::chrono::duration<double>(Clock::now() - start).count(), 2.0);
}

TEST(WatchdogDeathTest, WithoutProgressItExitsThree) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        Watchdog watchdog(0.1, 7);
        watchdog.describe("mpi all_reduce float sum 1024");
        watchdog.onTimeout([](auto) { return false; });  // nothing to abort (the CPU backends)
        std::this_thread::sleep_for(std::chrono::seconds(30));
      },
      ::testing::ExitedWithCode(Watchdog::kExitCode), "rank 7: timeout: no progress for [0-9]+ s during mpi all_reduce float sum 1024 \\(-T sets the limit\\)");
}

TEST(WatchdogDeathTest, ThePollingThreadAbortsAndTheProcessExitsThree) {
  // The watchdog's thread only sets a flag; this thread, polling as NcclCommunicator::synchronize
  // does, sees it, "aborts" and says so; the process ends at once, well inside the grace period.
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        const auto start = Clock::now();
        Watchdog watchdog(0.1, 2, std::chrono::seconds(20));
        std::atomic<bool> requested{false};
        std::function<void()> aborted;
        std::mutex m;
        watchdog.onTimeout([&](std::function<void()> done) {
          std::lock_guard lock(m);
          aborted = std::move(done);
          requested = true;
          return true;
        });
        while (!requested) std::this_thread::sleep_for(std::chrono::milliseconds(1));
        std::fprintf(stderr, "polling thread aborted\n");
        {
          std::lock_guard lock(m);
          aborted();
        }
        std::this_thread::sleep_for(std::chrono::seconds(10));
        std::fprintf(stderr, "still running after %.0f s\n", std::chrono::duration<double>(Clock::now() - start).count());
        std::exit(0);
      },
      ::testing::ExitedWithCode(Watchdog::kExitCode), "timeout: no progress.*polling thread aborted");
}

TEST(WatchdogDeathTest, AThreadStuckInsideALibraryCallIsNotWaitedForBeyondTheGrace) {
  // Asked, but the thread that would abort is inside an enqueue and never polls: exit 3 after the
  // grace period, without calling the library from the watchdog's thread.
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        Watchdog watchdog(0.1, 4, std::chrono::milliseconds(200));
        watchdog.onTimeout([](auto) { return true; });
        std::this_thread::sleep_for(std::chrono::seconds(30));
      },
      ::testing::ExitedWithCode(Watchdog::kExitCode), "rank 4: still inside a library call after 0.2 s: exiting without aborting it");
}

}  // namespace
}  // namespace cclab::bench
