// The GPU timed loop's order, on the CPU with a fake that records each step: warm-up, the sync
// collective, then the barrier before a CUDA graph capture begins (never a barrier while
// capturing, as nccl-tests), the replays timed from a second barrier; -I's events around each
// iteration; the mean per collective from the host clock; --min_time's loop length from the
// slowest rank's warm-up.

#include "bench/gpu_loop.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace cclab::bench {
namespace {

class RecordingSteps final : public GpuLoopSteps {
 public:
  std::vector<std::string> log;
  double clock = 0;  // seconds; every launch takes 1 ms, every replay 10 ms

  void synchronize() override { log.push_back("sync"); }
  void barrier() override { log.push_back("barrier"); }
  void beginCapture() override { log.push_back("begin_capture"); }
  void endCapture() override { log.push_back("end_capture"); }
  void replay() override {
    log.push_back("replay");
    clock += 0.010;
  }
  void releaseCapture() override { log.push_back("release_capture"); }
  void beginGroup() override { log.push_back("group"); }
  void endGroup() override { log.push_back("end_group"); }
  void prepareIterations(int iterations) override { log.push_back("prepare " + std::to_string(iterations)); }
  void recordIteration(int index) override { log.push_back("event " + std::to_string(index)); }
  std::vector<double> iterationTimesUs(int iterations) override { return std::vector<double>(static_cast<std::size_t>(iterations), 2000.0); }
  double now() override { return clock; }
  double slowestOther = 0;  // another rank's warm-up seconds per collective
  double maxOverRanks(double value) override {
    log.push_back("max");
    return std::max(value, slowestOther);
  }

  Launch launcher() {
    return [this](int index) {
      log.push_back("launch " + std::to_string(index));
      clock += 0.001;
    };
  }
  std::ptrdiff_t position(const std::string& step) const { return std::find(log.begin(), log.end(), step) - log.begin(); }
};

TEST(GpuLoop, GraphCaptureBeginsAfterTheBarrierAndNoBarrierFallsInsideIt) {
  RecordingSteps steps;
  LoopSettings loop;
  loop.warmupIters = 2;
  loop.iters = 3;
  loop.graphLaunches = 4;
  const LoopTimes times = runGpuLoop(steps, steps.launcher(), loop, [] {});
  const std::vector<std::string> expected = {"launch 0", "launch 1", "launch 0", "sync", "barrier", "begin_capture", "launch 0", "launch 1",
                                             "launch 2", "end_capture", "barrier", "replay", "replay", "replay", "replay", "sync",
                                             "release_capture"};
  EXPECT_EQ(steps.log, expected);
  // Timed from the second barrier: four replays of three collectives, 10 ms each replay.
  EXPECT_NEAR(times.meanUs, 40000.0 / 12, 1e-6);
}

TEST(GpuLoop, EventsAreCreatedBeforeTheBarrierAndRecordedAroundEachIteration) {
  RecordingSteps steps;
  LoopSettings loop;
  loop.warmupIters = 0;
  loop.iters = 2;
  loop.aggregate = 2;
  loop.perIterTiming = true;
  const LoopTimes times = runGpuLoop(steps, steps.launcher(), loop, [] {});
  EXPECT_LT(steps.position("prepare 2"), steps.position("barrier"));
  const std::vector<std::string> timed(steps.log.begin() + steps.position("barrier"), steps.log.end());
  const std::vector<std::string> expected = {"barrier", "event 0", "group",   "launch 0", "launch 1", "end_group",
                                             "event 1", "group",   "launch 2", "launch 3", "end_group", "event 2", "sync"};
  EXPECT_EQ(timed, expected);
  EXPECT_NEAR(times.meanUs, 1000.0, 1e-6);  // four 1 ms launches
  EXPECT_EQ(times.iterationUs, (std::vector<double>{1000.0, 1000.0}));  // 2 ms per iteration of 2
}

TEST(GpuLoop, BlockingWaitsAndBarriersEveryIteration) {
  RecordingSteps steps;
  LoopSettings loop;
  loop.warmupIters = 0;
  loop.iters = 2;
  loop.blocking = 1;
  runGpuLoop(steps, steps.launcher(), loop, [] {});
  EXPECT_EQ(std::count(steps.log.begin(), steps.log.end(), "barrier"), 3);  // the start, then one per iteration
  EXPECT_EQ(std::count(steps.log.begin(), steps.log.end(), "begin_capture"), 0);
}

TEST(GpuLoop, MinTimeRunsAsManyIterationsAsTheSlowestRanksWarmupNeeds) {
  RecordingSteps steps;
  LoopSettings loop;
  loop.warmupIters = 2;
  loop.iters = 3;
  loop.minTimeS = 0.010;
  loop.perIterTiming = true;
  // Two warm-up launches and the sync collective, 1 ms each: 10 ms wants 10 iterations.
  LoopTimes times = runGpuLoop(steps, steps.launcher(), loop, [] {});
  EXPECT_EQ(times.iterations, 10);
  EXPECT_LT(steps.position("max"), steps.position("barrier"));  // every rank agrees before the loop
  EXPECT_LT(steps.position("prepare 10"), steps.position("barrier"));
  EXPECT_EQ(steps.position("event 10"), static_cast<std::ptrdiff_t>(steps.log.size()) - 2);
  EXPECT_EQ(std::count(steps.log.begin(), steps.log.end(), "launch 9"), 1);
  EXPECT_EQ(times.iterationUs.size(), 10u);
  EXPECT_NEAR(times.meanUs, 1000.0, 1e-6);

  // Another rank warmed up at 4 ms a collective: every rank runs its count, never fewer than -n.
  RecordingSteps slow;
  slow.slowestOther = 0.004;
  EXPECT_EQ(runGpuLoop(slow, slow.launcher(), loop, [] {}).iterations, 3);
  slow.slowestOther = 0.0025;
  loop.iters = 1;
  RecordingSteps slower = slow;
  EXPECT_EQ(runGpuLoop(slower, slower.launcher(), loop, [] {}).iterations, 4);  // ceil(10 / 2.5)

  // -I creates an event per iteration, so --min_time stops at kMaxEventIterations: 20 s at 1 ms a
  // collective wants 20,000.
  LoopSettings longer = loop;
  longer.warmupIters = 1;
  longer.iters = 3;
  longer.minTimeS = 20;
  RecordingSteps withEvents;
  EXPECT_EQ(runGpuLoop(withEvents, withEvents.launcher(), longer, [] {}).iterations, kMaxEventIterations);
  EXPECT_LT(withEvents.position("prepare " + std::to_string(kMaxEventIterations)), withEvents.position("barrier"));
  longer.perIterTiming = false;
  RecordingSteps withoutEvents;
  EXPECT_EQ(runGpuLoop(withoutEvents, withoutEvents.launcher(), longer, [] {}).iterations, 20000);

  // Off (0): -n, and no agreement is needed.
  RecordingSteps plain;
  loop.minTimeS = 0;
  loop.iters = 3;
  EXPECT_EQ(runGpuLoop(plain, plain.launcher(), loop, [] {}).iterations, 3);
  EXPECT_EQ(std::count(plain.log.begin(), plain.log.end(), "max"), 0);
}

TEST(LoopLength, TimedIterationsFollowTheWarmupRate) {
  LoopSettings loop;
  loop.iters = 20;
  EXPECT_EQ(timedIterations(loop, 1e-7), 20);  // --min_time off
  loop.minTimeS = 0.005;
  EXPECT_EQ(timedIterations(loop, 1e-7), 50000);   // 0.1 us a collective: 5 ms is 50,000 of them
  EXPECT_EQ(timedIterations(loop, 1e-3), 20);      // 1 ms a collective: -n is already longer
  loop.aggregate = 4;
  EXPECT_EQ(timedIterations(loop, 1e-7), 12500);   // -m 4: four collectives an iteration
  EXPECT_EQ(timedIterations(loop, 1e-12), kMaxTimedIterations);
  EXPECT_EQ(timedIterations(loop, 0.0), kMaxTimedIterations);  // no clock tick: the cap, not a division by zero
}

// A loop short of --min_time is measured again, at the rate it measured, with a quarter to spare.
TEST(LoopLength, AShortLoopIsMeasuredAgainAtTheRateItMeasured) {
  LoopSettings loop;
  loop.iters = 20;
  EXPECT_EQ(longerLoop(loop, 20, 1e-6), 0);  // --min_time off: -n is the loop
  loop.minTimeS = 0.005;
  EXPECT_EQ(longerLoop(loop, 100, 0.005), 0);    // long enough
  EXPECT_EQ(longerLoop(loop, 100, 0.0044), 0);   // 7/8 of it is enough: no second loop for a loop that just missed
  EXPECT_EQ(longerLoop(loop, 100, 0.0043), 146); // 100 x 1.25 x 5 / 4.3
  // A cold warm-up sized the loop 5 times too short: the next is sized from this loop's rate.
  EXPECT_EQ(longerLoop(loop, 88, 0.001), 550);
  EXPECT_EQ(longerLoop(loop, 88, 0.00058), 880);  // 949 at that rate: ten times as long at most
  EXPECT_EQ(longerLoop(loop, 20, 1e-6), 200);    // at most ten times as long
  EXPECT_EQ(longerLoop(loop, 20, 0.0), 200);     // no clock tick: ten times, not a division by zero
  EXPECT_EQ(longerLoop(loop, 500'000, 1e-3), kMaxTimedIterations);  // the cap
  EXPECT_EQ(longerLoop(loop, kMaxTimedIterations, 1e-3), 0);        // at the cap: done
}

// Where each call of a loop starts: on the CPU the same place, on GPUs nccl-tests's next span of
// the largest size's buffers, and with --off-cache the next cache-line-aligned span of buffers that
// much larger, every span inside them, as many apart as fit before it wraps.
TEST(LoopLength, OffCacheMovesEachCallToLinesTheCallBeforeDidNotTouch) {
  const std::size_t MiB = 1 << 20;
  EXPECT_EQ(iterationOffset(1000, 16 * MiB, 0, false, 7), 0u);     // CPU: one buffer for every call
  EXPECT_EQ(iterationOffset(1000, 16 * MiB, 0, true, 7), 7000u);   // GPU: nccl-tests's shift by the span
  EXPECT_EQ(iterationOffset(16 * MiB, 16 * MiB, 0, true, 7), 0u);  // the largest size: one span
  EXPECT_EQ(iterationOffset(1000, 16 * MiB, 4 * MiB, false, -1), 0u);  // the checks: the base
  // --off-cache: a cache line at least apart, so no two calls in a row share a line.
  EXPECT_EQ(iterationOffset(1000, 16 * MiB, 4 * MiB, false, 1), 1024u);
  EXPECT_EQ(iterationOffset(8, 16 * MiB, 4 * MiB, false, 3), 192u);
  // The largest size moves too, through the extra bytes: 16 MiB + 48 MiB holds 4 spans, then wraps.
  const std::size_t buffer = 16 * MiB + 48 * MiB;
  EXPECT_EQ(iterationOffset(16 * MiB, buffer, 48 * MiB, false, 1), 16 * MiB);
  EXPECT_EQ(iterationOffset(16 * MiB, buffer, 48 * MiB, false, 3), 48 * MiB);
  EXPECT_EQ(iterationOffset(16 * MiB, buffer, 48 * MiB, false, 4), 0u);
  EXPECT_EQ(offCacheSpans(16 * MiB, buffer), 4u);  // the pass --off-cache warms up before a loop
  EXPECT_EQ(offCacheSpans(1000, MiB), 1024u);      // 1,000 bytes a cache line apart: 1,024 B a span
  EXPECT_EQ(offCacheSpans(2 * MiB, MiB), 1u);
  for (std::size_t span : {std::size_t{1}, std::size_t{4100}, 3 * MiB + 12, 16 * MiB}) {
    for (int i = 0; i < 200; ++i) {
      const std::size_t at = iterationOffset(span, buffer, 48 * MiB, false, i);
      EXPECT_LE(at + span, buffer) << span << " " << i;
      EXPECT_EQ(at % 64, 0u);
      if (i > 0 && at != 0) {
        EXPECT_GE(at - iterationOffset(span, buffer, 48 * MiB, false, i - 1), span);
      }
    }
  }
}

}  // namespace
}  // namespace cclab::bench
