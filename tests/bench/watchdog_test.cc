// The -T watchdog in-process, without MPI: kicked in time it stays quiet while the benchmark's thread
// describes and kicks it (the race ThreadSanitizer checks: its thread reads what the benchmark's
// thread writes), it stops promptly, and left alone it ends the process with exit code 3 after
// running the abort hook. ccbench_test's AHangTimesOutInsteadOfWaitingForever checks the same end
// to end under mpirun.

#include "bench/watchdog.h"

#include <gtest/gtest.h>

#include <chrono>
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
  watchdog.onTimeout([] { std::abort(); });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  watchdog.kick();
}

TEST(Watchdog, KickedInTimeItStaysQuietAndStopsPromptly) {
  const auto start = Clock::now();
  {
    Watchdog watchdog(0.2, 0);  // checks every 20 ms
    watchdog.onTimeout([] { std::abort(); });
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

TEST(WatchdogDeathTest, WithoutProgressItRunsTheAbortHookAndExitsThree) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        Watchdog watchdog(0.1, 7);
        watchdog.describe("mpi all_reduce float sum 1024");
        watchdog.onTimeout([] { std::fprintf(stderr, "abort hook ran\n"); });
        std::this_thread::sleep_for(std::chrono::seconds(30));
      },
      ::testing::ExitedWithCode(Watchdog::kExitCode),
      "rank 7: timeout: no progress for [0-9]+ s during mpi all_reduce float sum 1024 \\(-T sets the limit\\).*abort hook ran");
}

}  // namespace
}  // namespace cclab::bench
