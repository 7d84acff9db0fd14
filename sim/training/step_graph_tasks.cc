#include "sim/training/step_graph_tasks.h"

#include <algorithm>

#include <fmt/format.h>

#include "sim/training/estimate.h"

namespace cclab::sim {

TaskMaker::TaskMaker(const ModelCard& model, const TrainConfig& config, TrainingPricer& pricer, const Placement& where)
    : config_(config), pricer_(pricer) {
  const TrainConfig& c = config;
  const bool shaped = model.architecture != Architecture::Given;
  const double activationBytes = layerOutputBytes(model, c);
  if (c.tp > 1 && shaped) {
    if (c.sequenceParallel) {
      tensorCollectives_ = {{Collective::ReduceScatter, activationBytes, c.tp, 1, Group::Tensor},
                            {Collective::AllGather, activationBytes, c.tp, 1, Group::Tensor}};
    } else {
      tensorCollectives_ = {{Collective::AllReduce, activationBytes, c.tp, 1, Group::Tensor}};
    }
    for (const GroupCollective& gc : tensorCollectives_) tensorSeconds_ += pricer.seconds(gc.collective, gc.bytes, gc.ranks, gc.nodes);
  }
  // Megatron-LM splits a pipeline message across the tensor ranks.
  if (c.pp > 1 && shaped) {
    const GroupCollective send{Collective::SendRecv, activationBytes / c.tp, 2, where.pipelineCrossesNodes ? 2 : 1, Group::Pipeline};
    pipeMessage_ = {send};
    pipeSeconds_ = pricer.seconds(send.collective, send.bytes, send.ranks, send.nodes);
  }
}

double TaskMaker::overhead(int kernels, double gpuSeconds) {
  const GpuSpec& gpu = pricer_.cluster().gpu;
  const double launches = kernels * gpu.step.kernelLaunchUs * 1e-6;
  if (config_.execution != Execution::Eager) return launches;
  clocks_.cpu += kernels * gpu.step.eagerDispatchUs * 1e-6;
  const double busy = clocks_.gpu + gpuSeconds + launches;
  const double wait = std::max(0.0, clocks_.cpu - busy);  // the last kernel is not issued yet
  clocks_.gpu = busy + wait;
  return launches + wait;
}

Task TaskMaker::compute(Pass pass, int microBatch, int layer, double kernelSeconds, int kernels, int tpRuns, std::string label) {
  Task t;
  t.tensorCollectiveRuns = tensorCollectives_.empty() ? 0 : tpRuns;
  t.stream = StreamKind::Compute;
  t.part = Part::Compute;
  t.pass = pass;
  t.microBatch = microBatch;
  t.layer = layer;
  t.tensorCommSeconds = tpRuns * tensorSeconds_;
  t.overheadSeconds = overhead(kernels, kernelSeconds + t.tensorCommSeconds);
  t.seconds = kernelSeconds + t.tensorCommSeconds + t.overheadSeconds;
  t.kernels = kernels;
  t.label = std::move(label);
  return t;
}

Task TaskMaker::collective(StreamKind stream, Part part, Pass pass, GroupCollective gc, std::string label) {
  Task t;
  t.stream = stream;
  t.part = part;
  t.pass = pass;
  t.seconds = pricer_.seconds(gc.collective, gc.bytes, gc.ranks, gc.nodes) + pricer_.cluster().gpu.launchLatencyUs * 1e-6;
  t.collectives.push_back(gc);
  t.label = std::move(label);
  return t;
}

Task TaskMaker::pipeSend(Pass pass, int microBatch, const char* what) {
  Task t;
  t.stream = StreamKind::Compute;
  t.part = Part::PipeComm;
  t.pass = pass;
  t.microBatch = microBatch;
  t.seconds = pipeSeconds_;
  t.collectives = pipeMessage_;
  t.label = fmt::format("send {} mb{}", what, microBatch);
  return t;
}

void addStepEnd(StageBuilder& stage, TaskMaker& make, const ModelCard& model, const TrainConfig& c, const Cluster& cluster,
                const Placement& where, const StageEnd& end) {
  const StateBytes per = stateBytesPerParameter(c.precision, c.optimizer);
  const bool shaped = model.architecture != Architecture::Given;
  int lastCompute = end.lastCompute;

  // Offload: gradients to the host, the CPU's optimizer, parameters back (ZeRO-Offload).
  int lastOffload = -1;
  const double pcie = hostLinkBandwidth(cluster);
  const double updated = end.parameters / (c.sharding == StateSharding::None ? 1 : c.dp);
  if (c.offloadOptimizer != OffloadTarget::None && pcie > 0 && cluster.host.memoryBandwidthGBps > 0) {
    Task t;
    t.stream = StreamKind::Offload;
    t.part = Part::Offload;
    t.pass = Pass::Step;
    t.seconds = offloadedOptimizerSeconds(cluster, c, updated);
    t.after.push_back(end.lastDataTask >= 0 ? end.lastDataTask : lastCompute);
    t.label = "offloaded optimizer step";
    lastOffload = stage.add(std::move(t));
  }
  // The optimizer step on the GPU: memory-bound over the states it updates, after every
  // reduction; then ZeRO-1/2 all-gather the updated parameters. Fused (Megatron-LM's and
  // DeepSpeed's fused Adam, one multi-tensor kernel per ~110 tensors) reads and writes each
  // state once: 28 bytes per parameter for mixed-precision Adam. Eager PyTorch's foreach Adam
  // runs its arithmetic as separate multi-tensor passes (lerp of the momentum, the variance's
  // mul and addcmul, sqrt, the bias correction and eps, addcdiv into the parameter), each
  // reading and writing fp32 tensors: 74 bytes per parameter, in 7 launches per chunk.
  if (c.offloadOptimizer == OffloadTarget::None) {
    const GpuSpec& gpu = cluster.gpu;
    const bool eager = c.execution == Execution::Eager;
    const double fusedBytes = 2 * per.optimizer + per.gradients + (fp32States(c.precision) ? 2 : 1) * per.parameters;
    const double bytesPerParameter = eager ? fusedBytes * 74.0 / 28.0 : fusedBytes;
    const double bandwidth = gpu.memoryBandwidthGBps * 1e9 * gpu.memoryEfficiency;
    const int tensors = shaped ? end.layers * (model.gatedMlp ? 9 : 12) + 4 : 1;  // a layer's weights, biases and norms
    const int chunks = (tensors + 109) / 110;
    Task t;
    t.stream = StreamKind::Compute;
    t.part = Part::Optimizer;
    t.pass = Pass::Step;
    t.kernels = (eager ? 7 : 1) * chunks;
    t.parameters = updated;
    // Foreach Adam holds one fp32 temporary the size of the parameters (the denominator,
    // sqrt(v) + eps) while it runs: measured 4 bytes per parameter above the held gradients.
    if (eager && c.optimizer == Optimizer::Adam) t.allocatesBytes = t.freesBytes = 4.0 * updated;
    const double kernelSeconds = updated * bytesPerParameter / bandwidth;
    t.overheadSeconds = make.overhead(t.kernels, kernelSeconds);
    t.seconds = kernelSeconds + t.overheadSeconds;
    if (end.lastDataTask >= 0) t.after.push_back(end.lastDataTask);
    t.label = "optimizer step";
    lastCompute = stage.add(std::move(t));
    if (c.offloadParams != OffloadTarget::None && pcie > 0) {
      // Parameters offloaded without the optimizer: the updated 16-bit partition goes back to the
      // host (the layers fetch it again next step: buildStepGraph's "fetch offloaded" tasks).
      Task back;
      back.stream = StreamKind::Offload;
      back.part = Part::Offload;
      back.pass = Pass::Step;
      back.seconds = updated * per.parameters / pcie;
      back.after.push_back(lastCompute);
      back.label = "write back offloaded parameters";
      stage.add(std::move(back));
    }
  } else if (lastOffload >= 0) {
    Task t;
    t.stream = StreamKind::Compute;
    t.part = Part::Optimizer;
    t.pass = Pass::Step;
    t.after.push_back(lastOffload);
    t.label = "wait for the offloaded step";
    lastCompute = stage.add(std::move(t));
  }
  if (zeroOneOrTwo(c.sharding) && c.dp > 1) {
    Task t =
        make.collective(StreamKind::Gather, Part::DataComm, Pass::Step,
                        {Collective::AllGather, end.parameters * per.parameters, c.dp, where.dpNodes}, "all-gather updated parameters");
    t.after.push_back(lastCompute);
    stage.add(std::move(t));
  }
}

}  // namespace cclab::sim
