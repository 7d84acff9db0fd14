#pragma once

// The timed loop on GPUs, as nccl-tests runs it: warm-up, one more collective that completes
// before timing starts (the sync collective), a barrier, then the loop from a common start, timed
// on the host around the whole loop (and with CUDA events per iteration for -I). With -G the loop
// is captured as a CUDA graph after the barrier (as nccl-tests does: a rank never enters the
// barrier while capturing) and its replays are timed. The GPU backends supply the steps
// (gpu/gpu_backends.cc); the order lives here, without CUDA or MPI, so a CPU test checks it.

#include <functional>
#include <vector>

#include "bench/timing.h"

namespace cclab::bench {

class GpuLoopSteps {
 public:
  virtual ~GpuLoopSteps() = default;
  virtual void synchronize() = 0;  // waits for everything enqueued
  virtual void barrier() = 0;      // all ranks (MPI_Barrier)
  // -G: the collectives issued between beginCapture and endCapture become a CUDA graph, replay()
  // launches it once, releaseCapture() frees it.
  virtual void beginCapture() = 0;
  virtual void endCapture() = 0;
  virtual void replay() = 0;
  virtual void releaseCapture() = 0;
  // -m: the collectives of one iteration are launched as one group.
  virtual void beginGroup() = 0;
  virtual void endGroup() = 0;
  // -I: an event per timed iteration, created before timing; the times between them (us).
  virtual void prepareIterations(int iterations) = 0;
  virtual void recordIteration(int index) = 0;
  virtual std::vector<double> iterationTimesUs(int iterations) = 0;
  // Seconds on the host clock.
  virtual double now() = 0;
  // The largest of every rank's `value` (MPI_Allreduce with MPI_MAX).
  virtual double maxOverRanks(double value) = 0;
};

// -I with --min_time: at most this many timed iterations (each a CUDA event), or -n if more.
inline constexpr int kMaxEventIterations = 10'000;

LoopTimes runGpuLoop(GpuLoopSteps& steps, const Launch& launch, const LoopSettings& loop, const std::function<void()>& progress);

}  // namespace cclab::bench
