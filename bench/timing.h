#pragma once

// How the timed loop of one measurement runs and is timed, as nccl-tests does it, one strategy per
// kind of backend. CPU collectives are done when they return, so the host clock times each
// iteration from a common start (HostClockTiming); GPU collectives are enqueued on streams, so the
// GPU strategy (gpu/gpu_backends.cc) adds nccl-tests's sync collective, CUDA events per iteration,
// CUDA graphs and grouped launches.

#include <cstddef>
#include <functional>
#include <vector>

namespace cclab::bench {

struct LoopSettings {
  int warmupIters = 1;     // -w
  int iters = 20;          // -n
  int aggregate = 1;       // -m: collectives per timed iteration
  int blocking = 0;        // -z: wait for each iteration (1: and barrier)
  bool perIterTiming = false;  // -I (GPUs; the host clock times every iteration anyway)
  int graphLaunches = 0;   // -G
  double minTimeS = 0;     // --min_time: run more timed iterations than -n where the loop would be shorter
};

// --min_time's cap: a loop of collectives that take no measurable time still ends.
inline constexpr int kMaxTimedIterations = 1'000'000;

// The timed iterations of one loop: -n, or more where -n of them would take less than --min_time
// at the warm-up's rate (seconds per collective: on the host clock the fastest warm-up
// collective, on GPUs the warm-up's mean; the slowest rank's, so every rank runs the same
// count). OSU's and IMB's benchmarks also run more iterations for small messages: twenty
// collectives of a fraction of a microsecond end before the ranks of an oversubscribed core have
// taken turns, so they time a start-up rather than a steady state.
int timedIterations(const LoopSettings& loop, double warmupSecondsPerCollective);

// On the host clock the warm-up's rate is often far off: with -w 1 it is one cold collective
// (the first of a size pays for first touches and a scheduler that has not settled), several
// times slower than the steady state, so a loop sized from it ended in a tenth of --min_time. So
// a loop is measured again when it falls short: given a loop of `iterations` that lasted
// `slowestSeconds` on the slowest rank, the next loop's length, or 0 when this one is the timed
// loop (it lasted 7/8 of --min_time or more, or reached the cap). The next is sized at the rate
// this loop measured, with a quarter to spare, and at most 10 times as long (Google Benchmark
// grows its loops so).
int longerLoop(const LoopSettings& loop, int iterations, double slowestSeconds);

// Where call `iteration` of a timed loop starts in its buffers, as an offset from their base: the
// same place every call on the CPU (0); on GPUs the next span of the largest size's buffers, as
// nccl-tests moves, a span apart; with --off-cache (`offCache` > 0) on any device
// the next span rounded up to a cache line, through buffers of `bufferBytes` (the largest
// message's and offCache more), so no call reads lines the call before left in a cache (IMB's
// -off_cache). The span at the offset always ends inside the buffers.
std::size_t iterationOffset(std::size_t spanBytes, std::size_t bufferBytes, std::size_t offCache, bool onGpu, int iteration);
// With --off-cache, the spans a loop moves through before it starts again at the base.
std::size_t offCacheSpans(std::size_t spanBytes, std::size_t bufferBytes);

struct LoopTimes {
  int iterations = 0;                // timed iterations (timedIterations, longerLoop)
  double meanUs = 0;                 // per collective, on this process
  std::vector<double> iterationUs;   // per collective in each timed iteration, where measured
};

// Launches the loop's collective number `index` (warm-up and timed collectives each count from 0).
using Launch = std::function<void(int index)>;

class Timing {
 public:
  virtual ~Timing() = default;
  // Warms up, then runs and times the loop from a common start across MPI_COMM_WORLD. Calls
  // `progress` as the loop advances (the watchdog's kick).
  virtual LoopTimes run(const Launch& launch, const LoopSettings& loop, const std::function<void()>& progress) = 0;
};

// CPU backends: a barrier, then the host clock around each iteration.
class HostClockTiming final : public Timing {
 public:
  LoopTimes run(const Launch& launch, const LoopSettings& loop, const std::function<void()>& progress) override;
};

}  // namespace cclab::bench
