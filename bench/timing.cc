#include "bench/timing.h"

#include <mpi.h>

#include <algorithm>
#include <chrono>

namespace cclab::bench {
namespace {

using Clock = std::chrono::steady_clock;

double microseconds(Clock::duration d) { return std::chrono::duration<double, std::micro>(d).count(); }
double seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

}  // namespace

LoopTimes HostClockTiming::run(const Launch& launch, const LoopSettings& loop, const std::function<void()>& progress) {
  double fastestWarmup = 0;  // seconds: the first collectives pay for first touches, the fastest does not
  for (int i = 0; i < loop.warmupIters; ++i) {
    const Clock::time_point t0 = Clock::now();
    launch(i);
    const double s = seconds(Clock::now() - t0);
    fastestWarmup = i == 0 ? s : std::min(fastestWarmup, s);
    progress();
  }
  progress();
  LoopTimes times;
  times.iterations = loop.iters;
  if (loop.minTimeS > 0) {  // every rank must run the same count: the slowest rank's warm-up decides
    double perCollective = fastestWarmup;
    MPI_Allreduce(MPI_IN_PLACE, &perCollective, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    times.iterations = timedIterations(loop, perCollective);
  }
  for (;;) {
    times.iterationUs.assign(static_cast<std::size_t>(times.iterations), 0.0);
    MPI_Barrier(MPI_COMM_WORLD);
    const Clock::time_point start = Clock::now();
    for (int i = 0; i < times.iterations; ++i) {
      const Clock::time_point t0 = Clock::now();
      for (int a = 0; a < loop.aggregate; ++a) launch(i * loop.aggregate + a);
      if (loop.blocking == 1) MPI_Barrier(MPI_COMM_WORLD);  // -z 1; a CPU collective has finished when it returns
      times.iterationUs[static_cast<std::size_t>(i)] = microseconds(Clock::now() - t0) / loop.aggregate;
      progress();
    }
    const double elapsed = seconds(Clock::now() - start);
    times.meanUs = elapsed * 1e6 / (static_cast<double>(times.iterations) * loop.aggregate);
    if (loop.minTimeS <= 0) break;
    // Short of --min_time (a warm-up's rate that was off): that loop was warm-up too, and a longer one runs.
    double slowest = elapsed;
    MPI_Allreduce(MPI_IN_PLACE, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    const int next = longerLoop(loop, times.iterations, slowest);
    if (next == 0) break;
    times.iterations = next;
  }
  progress();
  return times;
}

}  // namespace cclab::bench
