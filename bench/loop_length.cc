#include <algorithm>
#include <cmath>

#include "bench/timing.h"

// --min_time's loop length, apart from the timing strategies so it is tested without MPI.
namespace cclab::bench {

int timedIterations(const LoopSettings& loop, double warmupSecondsPerCollective) {
  if (loop.minTimeS <= 0) return loop.iters;
  const double perIteration = warmupSecondsPerCollective * loop.aggregate;
  if (!(perIteration > 0)) return std::max(loop.iters, kMaxTimedIterations);  // no clock tick in the warm-up
  const double wanted = std::ceil(loop.minTimeS / perIteration);
  return std::max(loop.iters, static_cast<int>(std::min(wanted, static_cast<double>(kMaxTimedIterations))));
}

int longerLoop(const LoopSettings& loop, int iterations, double slowestSeconds) {
  if (loop.minTimeS <= 0 || iterations >= kMaxTimedIterations || slowestSeconds >= loop.minTimeS * 7 / 8) return 0;
  const double most = std::min(10.0 * iterations, static_cast<double>(kMaxTimedIterations));
  if (!(slowestSeconds > 0)) return static_cast<int>(most);  // no clock tick: ten times as many
  const double wanted = std::ceil(iterations * 1.25 * loop.minTimeS / slowestSeconds);
  return static_cast<int>(std::min(wanted, most));
}

}  // namespace cclab::bench
