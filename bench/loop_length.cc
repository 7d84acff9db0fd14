#include <algorithm>
#include <cmath>

#include "bench/timing.h"

// --min_time's loop length and where each call's buffers start, apart from the timing strategies
// so they are tested without MPI.
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

namespace {
constexpr std::size_t kCacheLine = 64;
std::size_t offCacheStride(std::size_t spanBytes) { return (std::max<std::size_t>(spanBytes, 1) + kCacheLine - 1) / kCacheLine * kCacheLine; }
}  // namespace

std::size_t offCacheSpans(std::size_t spanBytes, std::size_t bufferBytes) {
  return std::max<std::size_t>(bufferBytes / offCacheStride(spanBytes), 1);
}

std::size_t iterationOffset(std::size_t spanBytes, std::size_t bufferBytes, std::size_t offCache, bool onGpu, int iteration) {
  if ((!onGpu && offCache == 0) || iteration < 0) return 0;
  if (offCache > 0) return offCacheStride(spanBytes) * (static_cast<std::size_t>(iteration) % offCacheSpans(spanBytes, bufferBytes));
  const std::size_t span = std::max<std::size_t>(spanBytes, 1);  // nccl-tests's shift on GPUs
  return span * (static_cast<std::size_t>(iteration) % std::max<std::size_t>(bufferBytes / span, 1));
}

}  // namespace cclab::bench
