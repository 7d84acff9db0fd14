#include "bench/gpu_loop.h"

#include <algorithm>

namespace cclab::bench {

LoopTimes runGpuLoop(GpuLoopSteps& steps, const Launch& launch, const LoopSettings& loop, const std::function<void()>& progress) {
  const double warmupStart = steps.now();
  for (int i = 0; i < loop.warmupIters; ++i) {
    launch(i);
    progress();
  }
  launch(0);  // the sync collective
  steps.synchronize();
  progress();
  LoopTimes times;
  times.iterations = loop.iters;
  if (loop.minTimeS > 0) {  // every rank must run the same count: the slowest rank's warm-up decides
    const double perCollective = steps.maxOverRanks((steps.now() - warmupStart) / (loop.warmupIters + 1));
    times.iterations = timedIterations(loop, perCollective);
  }
  const bool graphs = loop.graphLaunches > 0;
  const bool eventTiming = loop.perIterTiming && !graphs;
  // -I creates a CUDA event per iteration before timing: --min_time lengthens such a loop only so far.
  if (eventTiming) times.iterations = std::min(times.iterations, std::max(loop.iters, kMaxEventIterations));
  const int iters = times.iterations;
  const bool group = loop.aggregate > 1;  // nccl-tests launches the m of an iteration as one group
  if (eventTiming) steps.prepareIterations(iters);
  steps.barrier();
  if (graphs) steps.beginCapture();  // after the barrier: no rank waits in it while capturing
  double start = steps.now();
  for (int i = 0; i < iters; ++i) {
    if (eventTiming) steps.recordIteration(i);
    if (group) steps.beginGroup();
    for (int a = 0; a < loop.aggregate; ++a) launch(i * loop.aggregate + a);
    if (group) steps.endGroup();
    if (loop.blocking > 0) {  // -z: wait for the iteration's collectives (and barrier with 1)
      steps.synchronize();
      if (loop.blocking == 1) steps.barrier();
    }
  }
  if (eventTiming) steps.recordIteration(iters);
  if (graphs) {  // the loop above was captured; replay it, timed
    steps.endCapture();
    steps.barrier();
    start = steps.now();
    for (int l = 0; l < loop.graphLaunches; ++l) steps.replay();
  }
  steps.synchronize();
  const double totalUs = (steps.now() - start) * 1e6;
  progress();
  if (graphs) steps.releaseCapture();
  times.meanUs = totalUs / (static_cast<double>(iters) * loop.aggregate * std::max(loop.graphLaunches, 1));
  if (eventTiming) {
    times.iterationUs = steps.iterationTimesUs(iters);
    for (double& t : times.iterationUs) t /= loop.aggregate;
  }
  return times;
}

}  // namespace cclab::bench
