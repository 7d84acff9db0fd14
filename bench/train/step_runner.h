#pragma once

// Runs this rank's part of a training step's graph (sim::StepGraph, the one ccsim train
// simulates) for real, the way the frameworks issue it: a thread per stream (compute, gathers,
// reductions, offload) standing for the CUDA streams, each running its tasks in issue order once
// their dependencies are done. Collectives run on the rank's groups (MPI_Comm_split of the
// Megatron-LM numbering, rank_groups.h), one communicator per stream and group so the streams'
// collectives never match each other's messages; pipeline sends are MPI_Isend to the stage that
// waits for them, received on the compute thread before the task that needs them. Compute tasks
// run their GEMMs and element-wise passes on the platform (step_platform.h: Eigen on the CPU,
// cuBLAS on a GPU), sleep for their predicted seconds, or do nothing (TrainOptions::compute). The
// optimizer step is a fused Adam over the rank's parameter shard. Offload tasks sleep for their
// predicted seconds (no host transfer is made). Needs MPI_THREAD_MULTIPLE.

#include <mpi.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "bench/train/rank_groups.h"
#include "bench/train/step_platform.h"
#include "bench/train/train_options.h"
#include "bench/watchdog.h"
#include "collectives/vocabulary.h"
#include "sim/training/step_graph.h"

namespace cclab::bench {

// One task's measured times, in seconds from the step's start; tensorSeconds: the time a compute
// task spent in its tensor-parallel collectives.
struct MeasuredTask {
  double start = 0, end = 0;
  double tensorSeconds = 0;
};

class StepRunner {
 public:
  // Collective over MPI_COMM_WORLD (splits the groups). Collectives carry `dtype` (bf16 for mixed
  // precision's 16-bit gradients and parameters, float for fp32).
  StepRunner(const sim::StepGraph& graph, const RankLayout& layout, const TrainOptions& options, DataType dtype, StepPlatform& platform,
             Watchdog& watchdog);
  ~StepRunner();
  StepRunner(const StepRunner&) = delete;
  StepRunner& operator=(const StepRunner&) = delete;

  int stage() const { return stage_; }
  // Runs the step once, from now; returns every task's times (other stages' tasks stay zero).
  std::vector<MeasuredTask> run();
  // Wrong elements found by the checks so far (-c 1).
  std::int64_t wrongElements() const { return wrong_; }

 private:
  struct Channel;
  void runStream(sim::StreamKind stream, std::vector<MeasuredTask>& times, double origin);
  void execute(int task, MeasuredTask& times, double origin);
  void runCollective(sim::StreamKind stream, const sim::GroupCollective& collective);
  void compute(const sim::Task& task);
  void receiveMessage(int dep);
  Channel& channel(sim::StreamKind stream, sim::Group group);
  int rankOnStage(int stage) const;  // this rank's counterpart (same tensor and data index) on `stage`

  const sim::StepGraph& graph_;
  RankLayout layout_;
  const TrainOptions& options_;
  DataType dtype_;
  StepPlatform& platform_;
  Watchdog& watchdog_;
  int rank_ = 0, stage_ = 0, tagBound_ = 32767;
  std::vector<std::vector<int>> streamTasks_;              // per stream kind: this stage's tasks in issue order
  std::vector<std::vector<int>> localDeps_, remoteDeps_;   // per task: dependencies on this stage / on others
  std::vector<std::vector<int>> sendTo_;                   // per pipeline send: the stages that wait for it
  std::vector<std::unique_ptr<Channel>> channels_;         // per (stream, group)
  MPI_Comm pipeline_ = MPI_COMM_NULL;
  std::vector<MPI_Request> sends_;
  std::atomic<std::int64_t> wrong_{0};  // streams check at once
  std::atomic<bool> corrupted_{false};
  // Which tasks are done in the step under way (streams wait on each other through it).
  struct Progress;
  std::unique_ptr<Progress> progress_;
};

}  // namespace cclab::bench
