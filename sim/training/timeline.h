#pragma once

// The step's timeline: an event simulation of a StepGraph. A task starts when its dependencies
// have finished and its stream is free (streams run their tasks in issue order). While a
// data-parallel collective runs on a stage, that stage's compute slows and the collective gets
// less bandwidth (NCCL's kernels take SMs and HBM bandwidth): the GPU description's interference
// factors, zero by default (then the timeline is the closed forms' ideal overlap). Collectives
// running at once on a stage (FSDP's gather and reduce streams) share its links equally. Memory is
// tracked as tasks allocate and free it; the step's parts come from its critical path.

#include <array>
#include <string>
#include <vector>

#include "sim/training/step_graph.h"

namespace cclab::sim {

// How concurrent work slows down on one GPU (GpuSpec::interference).
struct Interference {
  double computeSlowdown = 0;  // compute runs at 1 / (1 + this) while a collective runs
  double commSlowdown = 0;     // a collective runs at 1 / (1 + this) while compute runs
  // CPU descriptions (ranks are processes pinned to the cores of their node): each rank's compute
  // stream and each collective it runs keeps its core busy; what is busy on one core shares it.
  // stageCores[s]: the cores stage s's ranks run on, each with how many of them (empty: a GPU
  // each, nothing shared). A stage runs at the pace of its most loaded core.
  struct CoreShare {
    int core = 0;   // numbered across the job's nodes
    int ranks = 1;  // of the stage, on that core
  };
  std::vector<std::vector<CoreShare>> stageCores;
  // On a core with more than one busy, each runs at 1 / busy / (1 + this).
  double oversubscription = 0;
};

struct TimedTask {
  double start = 0, end = 0;
};

struct Timeline {
  std::vector<TimedTask> tasks;  // parallel to StepGraph::tasks
  double makespan = 0;
  // The step's parts, read off the stage that finishes last (criticalStage, where the critical
  // path ends): what its GPU does at each moment, by part (StepTime's parts: its compute stream's
  // task, else the collectives it waits for, else offload), the time compute was slowed beside a
  // collective, and the time it did nothing (waiting for other stages: the bubble). The three add
  // up to the makespan.
  std::array<double, kParts> onPath{};
  double interference = 0;
  double idle = 0;
  int criticalStage = 0;
  std::vector<int> criticalPath;   // task indices, first to last
  std::vector<double> peakBytes;   // per stage: resident + the most allocated at once
};

Timeline simulate(const StepGraph& graph, const Interference& interference);

// Per stage, bytes that simulate()'s peakBytes reaches whatever the tasks' times, read off the
// graph alone: each stage's compute stream replayed in issue order, a task's allocation taken as
// it starts and its free as it ends; another stream's task counted only where it must have run
// (the allocation of one a compute task waits for), and its free as early as its dependencies on
// the stage's compute stream allow. The planner drops a layout whose floor does not fit before
// simulating it.
std::vector<double> peakFloorBytes(const StepGraph& graph);

// Fills timeline.onPath, interference and idle from its tasks' times on timeline.criticalStage, as
// simulate() does (a compute task's seconds split between its parts in proportion to the graph's
// seconds, tensorCommSeconds and overheadSeconds). `interfered`: per task, the seconds compute was
// slowed (empty: none). ccbench train reads a measured step with it.
void attributeStage(const StepGraph& graph, Timeline& timeline, const std::vector<double>& interfered = {});

// Chrome trace JSON (the format PyTorch's profiler writes; Perfetto and chrome://tracing open
// it): a process per pipeline stage, a thread per stream, a complete event per task with its
// part, pass, micro-batch and layer; the critical path flagged in args.
std::string chromeTrace(const StepGraph& graph, const Timeline& timeline, const std::string& title);

}  // namespace cclab::sim
