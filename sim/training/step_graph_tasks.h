// The step graph's tasks, priced (step_graph.cc builds the passes from them): a stage's tasks in
// issue order, the makers of a compute task, a collective and a pipeline send with their launch
// and dispatch costs, and the end of a stage's step after its backward (offload, the optimizer,
// ZeRO-1/2's gather of the updated parameters).
#pragma once

#include <string>
#include <vector>

#include "sim/training/memory.h"
#include "sim/training/step_graph.h"

namespace cclab::sim {

class TrainingPricer;

// Builds one stage's tasks in issue order.
class StageBuilder {
 public:
  StageBuilder(StepGraph& graph, int stage) : graph_(graph), stage_(stage) {}

  int add(Task task) {
    task.stage = stage_;
    graph_.tasks.push_back(std::move(task));
    return static_cast<int>(graph_.tasks.size()) - 1;
  }

 private:
  StepGraph& graph_;
  int stage_;
};

// Makes the step's tasks with their prices: the collectives by the pricer, a compute task's
// launches and, in eager mode, the CPU's dispatch of its kernels.
class TaskMaker {
 public:
  TaskMaker(const ModelCard& model, const TrainConfig& config, TrainingPricer& pricer, const Placement& where);

  // One run of a layer's tensor-parallel collectives (two all-reduces forward, two backward per
  // layer; sequence parallelism swaps each for a reduce-scatter plus an all-gather): none
  // without tensor parallelism.
  const std::vector<GroupCollective>& tensorCollectives() const { return tensorCollectives_; }
  double tensorSeconds() const { return tensorSeconds_; }  // one run of them
  double pipeSeconds() const { return pipeSeconds_; }      // one pipeline message (0 with one stage)

  // A new stage: its compute stream's clocks start again.
  void startStage() { clocks_ = DispatchClocks{}; }
  // A kernel costs its launch gap on the GPU; eager PyTorch also dispatches each operator from
  // the CPU. Seconds the compute stream loses to both for `kernels` kernels of `gpuSeconds`.
  double overhead(int kernels, double gpuSeconds);
  // A compute-stream task of `kernels` kernels taking `kernelSeconds`, which runs the layer's
  // tensor-parallel collectives `tpRuns` times (blocking, as Megatron-LM's do).
  Task compute(Pass pass, int microBatch, int layer, double kernelSeconds, int kernels, int tpRuns, std::string label);
  // A collective on a communication stream.
  Task collective(StreamKind stream, Part part, Pass pass, GroupCollective gc, std::string label);
  // A pipeline send on the compute stream (Megatron-LM's send/recv block the stage).
  Task pipeSend(Pass pass, int microBatch, const char* what);

 private:
  // The CPU runs ahead of the GPU (kernels queue), so the GPU waits only when the CPU's issue of
  // the stage's kernels so far has fallen behind the GPU's work so far: a long GEMM lets the CPU
  // get ahead and hides the dispatch of the short kernels after it. The two clocks of a stage's
  // compute stream, from its first task (the step starts after a synchronize); waits for
  // collectives are left out of them, which can only overstate the wait.
  struct DispatchClocks {
    double cpu = 0, gpu = 0;
  };

  const TrainConfig& config_;
  TrainingPricer& pricer_;
  std::vector<GroupCollective> tensorCollectives_;
  double tensorSeconds_ = 0;                  // one run of them
  std::vector<GroupCollective> pipeMessage_;  // a pipeline send's (none without a shaped model)
  double pipeSeconds_ = 0;
  DispatchClocks clocks_;
};

// Where a stage's backward left it: its layers and parameters, and the last task on its compute
// stream and on its data-parallel streams (-1: none).
struct StageEnd {
  int layers = 1;
  double parameters = 0;
  int lastCompute = -1, lastDataTask = -1;
};

// The end of a stage's step after its backward: ZeRO-Offload's transfers and CPU optimizer, or
// the optimizer step on the GPU; then ZeRO-1/2's all-gather of the updated parameters.
void addStepEnd(StageBuilder& stage, TaskMaker& make, const ModelCard& model, const TrainConfig& config, const Cluster& cluster,
                const Placement& where, const StageEnd& end);

}  // namespace cclab::sim
