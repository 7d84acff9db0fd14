#include "sim/training/estimate.h"

// The step's closed forms: each part summed over the step, and what overlaps hidden as
// max(0, communication - compute), for free. The timeline (step_graph.h, timeline.h) replaced them
// as ccsim train's answer; they stay as the planner's lower bound (planner.cc) and as the
// zero-interference check of the timeline (tests/sim/training/timeline_test.cc).

#include <algorithm>

#include <fmt/format.h>

#include "collectives/errors.h"
#include "sim/training/pipeline.h"
#include "sim/training/step_graph.h"
#include "sim/training/step_graph_tasks.h"

namespace cclab::sim {

double hostLinkBandwidth(const Cluster& cluster, int copyingGpus) {
  const int copying = copyingGpus > 0 ? std::min(copyingGpus, cluster.gpusPerNode) : cluster.gpusPerNode;
  const HostSpec& host = cluster.host;
  double perGpu = host.pcieBandwidthGBps;
  if (host.pcieSwitchGpus > 0) perGpu = std::min(perGpu, host.pcieSwitchBandwidthGBps / std::min(copying, host.pcieSwitchGpus));
  else if (host.pcieNodeBandwidthGBps > 0) perGpu = std::min(perGpu, host.pcieNodeBandwidthGBps / copying);
  return perGpu * 1e9;
}

namespace {
// Bytes/s of the node's NVMe drives for each of its GPUs, all of them moving at once (0: none described).
double nvmeBandwidthPerGpu(const Cluster& cluster) { return cluster.host.nvmeBandwidthGBps * 1e9 / cluster.gpusPerNode; }

// Seconds for each GPU of a node to move `bytesPerGpu` to or from the node's NVMe drives at once.
double nvmeSeconds(const Cluster& cluster, double bytesPerGpu) {
  return cluster.host.nvmeBandwidthGBps > 0 ? bytesPerGpu / nvmeBandwidthPerGpu(cluster) : 0.0;
}

// Whether DeepSpeed's gradient offload moves these gradients: ZeRO-1/2, and ZeRO-3 as DeepSpeed
// gathers it (a module at a time). PyTorch FSDP's CPU offload has its own (pinned, no staging).
bool deepSpeedSharding(const TrainConfig& c) { return zeroOneOrTwo(c.sharding) || c.gathersByModule; }
}  // namespace

double parameterFetchBandwidth(const Cluster& cluster, const TrainConfig& c) {
  const double pcie = hostLinkBandwidth(cluster);
  if (c.offloadParams == OffloadTarget::Nvme && cluster.host.nvmeBandwidthGBps > 0) return std::min(pcie, nvmeBandwidthPerGpu(cluster));
  return pcie;
}

double cpuOptimizerSeconds(const Cluster& cluster, double parameters) {
  return parameters * 28 * cluster.gpusPerNode / (cluster.host.memoryBandwidthGBps * 1e9 * cluster.host.memoryEfficiency);
}

bool gradientsOffloadedDuringBackward(const TrainConfig& c) {
  if (c.offloadOptimizer == OffloadTarget::None) return false;
  return zeroOneOrTwo(c.sharding) || c.sharding == StateSharding::Everything;
}

bool gradientOffloadHoldsTheHost(const TrainConfig& c) {
  return deepSpeedSharding(c) && gradientsOffloadedDuringBackward(c) && c.offloadOptimizer == OffloadTarget::Cpu && !c.offloadPinned;
}

double gradientOffloadSeconds(const Cluster& cluster, const TrainConfig& c, double parameters, int copyingGpus, double linkBytes) {
  const double overLink = parameters * linkBytes / hostLinkBandwidth(cluster, copyingGpus);
  return overLink + (c.offloadOptimizer == OffloadTarget::Nvme ? nvmeSeconds(cluster, parameters * 4) : 0.0);
}

double gradientOffloadStagingBytes(const ModelCard& model, const TrainConfig& c, double parameters, int partitions) {
  if (!deepSpeedSharding(c) || fp32States(c.precision) || model.architecture == Architecture::Given) return 0.0;
  return 4 * std::min(parameters, largestModuleParameters(model) / c.tp / c.tiles / partitions);
}

double accumulatedGradientCopyBytes(int microBatch, int microBatches) {
  if (microBatches <= 1) return 4;
  if (microBatch == 0) return 2;
  return microBatch < microBatches - 1 ? 2 + 2 : 2 + 4;
}

double offloadedOptimizerSeconds(const Cluster& cluster, const TrainConfig& c, double parameters) {
  const StateBytes per = stateBytesPerParameter(c.precision, c.optimizer);
  const bool backwardMovedGradients = gradientsOffloadedDuringBackward(c);
  const double linkBytes = (backwardMovedGradients ? 0 : 4) + (c.offloadParams == OffloadTarget::None ? per.parameters : 0);
  // NVMe: the states and the fp32 gradient read; the states written back, the gradient too unless
  // the backward wrote it, and the updated 16-bit parameters where they live there.
  double readBytes = 0, writeBytes = 0;
  if (c.offloadOptimizer == OffloadTarget::Nvme) {
    readBytes += per.optimizer + 4;
    writeBytes += per.optimizer + (backwardMovedGradients ? 0 : 4);
  }
  if (c.offloadParams == OffloadTarget::Nvme) writeBytes += per.parameters;
  const double read = nvmeSeconds(cluster, parameters * readBytes), write = nvmeSeconds(cluster, parameters * writeBytes);
  const double cpu = cpuOptimizerSeconds(cluster, parameters);
  // The swapper's pipelining (DeepSpeed's pipeline_read / pipeline_write) overlaps its reads, its
  // writes or both with CPU-Adam, sub-group by sub-group; the drives serve reads and writes in turn.
  const bool pipelined = c.offloadOptimizer == OffloadTarget::Nvme;
  double step = cpu + read + write;
  if (pipelined && c.swapReadsAhead && c.swapWritesBehind) step = std::max(cpu, read + write);
  else if (pipelined && c.swapReadsAhead) step = std::max(cpu, read) + write;
  else if (pipelined && c.swapWritesBehind) step = read + std::max(cpu, write);
  return parameters * linkBytes / hostLinkBandwidth(cluster) + step;
}

StepTime closedFormStep(const ModelCard& model, const TrainConfig& c, TrainingPricer& pricer) {
  const Cluster& cluster = pricer.cluster();
  StepTime s;
  const double parameters = static_cast<double>(model.parameters());
  const MicroBatchCompute mb = microBatchCompute(model, c, cluster);
  const int m = c.accumulation, g = cluster.gpusPerNode;
  const Placement where = placement(c, g);
  const StateBytes per = stateBytesPerParameter(c.precision, c.optimizer);
  const double shard = parametersPerModelShard(model, c, parameters);
  // One run of a layer's tensor-parallel collectives and one pipeline message, priced as the
  // step graph prices them.
  const TaskMaker make(model, c, pricer, where);

  // Tensor parallelism: two runs forward and two backward per layer per micro-batch (an all-reduce
  // of the layer's activations, or with sequence parallelism a reduce-scatter plus an all-gather),
  // inside the node. Full recompute runs the forward's again (in the layers that recompute).
  const int stageLayersMost = maxStageLayers(model.layers, c.pp);
  const double tpPerMicroBatch = (4.0 * stageLayersMost + 2.0 * recomputedLayers(c, stageLayersMost)) * make.tensorSeconds();
  // Pipeline parallelism: each micro-batch sends its activations forward and its gradients back
  // across every stage boundary of a chunk.
  const double ppPerMicroBatch = 2.0 * c.vpp * make.pipeSeconds();
  const double stageMicroBatch = mb.total() + tpPerMicroBatch + ppPerMicroBatch;

  s.compute = m * mb.total();
  s.tpComm = m * tpPerMicroBatch;
  s.ppComm = m * ppPerMicroBatch;
  s.bubble = c.pp > 1 ? (c.pp - 1.0) / c.vpp * stageMicroBatch : 0.0;

  // Data parallelism.
  const double gradientBytes = shard * per.gradients;
  if (c.dp > 1) {
    switch (c.sharding) {
      case StateSharding::None: {
        // Gradients all-reduced in buckets once per step; DDP overlaps them with the last
        // micro-batch's backward pass, except the last bucket.
        const double bucket = std::min(c.bucketBytes, gradientBytes);
        const double perBucket = pricer.seconds(Collective::AllReduce, bucket, c.dp, where.dpNodes);
        const double all = gradientBytes / bucket * perBucket;
        s.dpComm = c.overlapGradReduce ? std::max(perBucket, all - mb.backward) : all;
        break;
      }
      case StateSharding::Optimizer:
      case StateSharding::OptimizerGradients: {
        // ZeRO-1/2: reduce-scatter the gradients (overlappable like DDP's), all-gather the updated
        // parameters after the step: the same volume as an all-reduce.
        const double scatter = pricer.seconds(Collective::ReduceScatter, gradientBytes, c.dp, where.dpNodes);
        const double gather = pricer.seconds(Collective::AllGather, shard * per.parameters, c.dp, where.dpNodes);
        s.dpComm = (c.overlapGradReduce ? std::max(0.0, scatter - mb.backward) : scatter) + gather;
        break;
      }
      case StateSharding::Everything:
      case StateSharding::EverythingWithinNode: {
        // ZeRO-3 / FULL_SHARD: every micro-batch gathers the parameters for its forward and again
        // for its backward, and scatters its gradients: 1.5x DDP's volume per micro-batch, one
        // collective per wrapped unit (each transformer layer, as FSDP wraps them, and the rest:
        // embeddings, final norm). Prefetching hides them behind compute except the first layer's
        // gather. HYBRID_SHARD does this inside the node and all-reduces each unit's gradient
        // shard across the nodes after its reduce-scatter, behind the rest of the backward.
        const bool hybrid = c.sharding == StateSharding::EverythingWithinNode && c.dp > g / c.tp;
        const int ranks = hybrid ? std::max(1, g / c.tp) : c.dp;
        const int nodes = hybrid ? 1 : where.dpNodes;
        const bool shaped = model.architecture != Architecture::Given;
        const double layers = shaped ? static_cast<double>(model.layers) / c.pp : 0.0;
        const double layerShard = shaped ? static_cast<double>(model.layerParameters()) / c.tp : 0.0;
        const double restShard = shard - layers * layerShard;
        auto perUnit = [&](Collective collective, double bytesPerParameter) {
          return layers * pricer.seconds(collective, layerShard * bytesPerParameter, ranks, nodes) +
                 pricer.seconds(collective, restShard * bytesPerParameter, ranks, nodes);
        };
        const double gather = perUnit(Collective::AllGather, per.parameters);
        const double scatter = perUnit(Collective::ReduceScatter, per.gradients);
        const double perMicroBatch = 2 * gather + scatter;
        const double layerGather = shaped ? pricer.seconds(Collective::AllGather, layerShard * per.parameters, ranks, nodes) : gather;
        // The first layer's gather waits for nothing to hide behind only once a step: a later
        // micro-batch's is prefetched during the backward before it.
        // DeepSpeed's ZeRO-3 without overlap_comm: the compute stream waits for every reduce-scatter;
        // only the gathers hide behind compute.
        const double hideable = c.overlapGradReduce ? perMicroBatch : 2 * gather;
        const double waited = c.overlapGradReduce ? 0.0 : m * scatter;
        s.shardComm = waited + std::max(layerGather, hideable - mb.total()) + (m - 1) * std::max(0.0, hideable - mb.total());
        if (hybrid) {
          const int replicas = c.dp / ranks;
          auto replicaAllReduce = [&](double unitShard) {
            return pricer.seconds(Collective::AllReduce, unitShard * per.gradients / ranks, replicas, replicas);
          };
          // Each micro-batch's layers, behind the compute from the first backward on, but the last
          // layer's (a model without layers: its one unit after each backward); the root unit's
          // once a step, after it.
          const double unit = replicaAllReduce(shaped ? layerShard : shard);
          if (shaped) {
            s.dpComm = std::max(unit, m * layers * unit - (m * mb.total() - mb.forward)) + replicaAllReduce(restShard);
          } else {
            s.dpComm = m * unit;
          }
        }
        break;
      }
    }
  }

  // Offload: gradients to the host and parameters back over PCIe, and the CPU's Adam
  // (offloadedOptimizerSeconds); parameters offloaded are fetched for every forward and backward.
  const double pcie = hostLinkBandwidth(cluster);
  // CPU checkpointing: each recomputing layer's checkpoint out after its forward and back before
  // its recompute, every micro-batch: blocking copies on the compute stream.
  const double checkpointCopies = c.checkpointsOnHost && model.architecture != Architecture::Given
                                      ? 2.0 * m * recomputedLayers(c, stageLayersMost) * activationBytesPerLayer(model, c) / pcie
                                      : 0.0;
  s.offload += checkpointCopies;
  if (c.offloadOptimizer != OffloadTarget::None) {
    if (pcie <= 0 || cluster.host.memoryBandwidthGBps <= 0) {
      throw InputError(fmt::format("cluster '{}' gives no host.pcie_bandwidth_gbps / memory_bandwidth_gbps, which offload needs", cluster.name));
    }
    const double optimizerShard = shard / (c.sharding == StateSharding::None ? 1 : c.dp);
    s.offload += offloadedOptimizerSeconds(cluster, c, optimizerShard);
  }
  // Each GPU fetches its ZeRO-3 partition of each layer for the forward and again for the backward
  // (then all-gathers it, priced above), and of the rest (embeddings, final norm) once a step, from
  // host memory over PCIe or from the node's NVMe drives, which its GPUs share; and the last
  // micro-batch's gradients leave during its backward (gradientsOffloadedDuringBackward). The
  // offload stream runs beside the compute stream (its kernels and checkpoint copies) and beside
  // the shard collectives' exposed time, so only what it takes beyond both is exposed (counting it
  // on top of the collectives' would no longer bound the timeline from below).
  if (c.offloadParams != OffloadTarget::None || gradientsOffloadedDuringBackward(c)) {
    const bool shaped = model.architecture != Architecture::Given;
    const double layersShard = shaped ? maxStageLayers(model.layers, c.pp) * static_cast<double>(model.layerParameters()) / c.tp : shard;
    const double fetchBytes = (2.0 * m * layersShard + (shard - layersShard)) / c.dp * per.parameters;
    const double fetch = c.offloadParams != OffloadTarget::None && pcie > 0 ? fetchBytes / parameterFetchBandwidth(cluster, c) : 0.0;
    const double gradients = gradientsOffloadedDuringBackward(c) ? gradientOffloadSeconds(cluster, c, shard / c.dp) : 0.0;
    s.offload += std::max(0.0, fetch + gradients - m * mb.total() - checkpointCopies - s.shardComm);
  }

  // The optimizer step on the GPU: memory-bound over the states it updates (read and written),
  // the gradients it reads and the parameters it writes.
  if (c.offloadOptimizer == OffloadTarget::None) {
    const double updated = shard / (c.sharding == StateSharding::None ? 1 : c.dp);
    const double bytesPerParameter = 2 * per.optimizer + per.gradients + (fp32States(c.precision) ? 2 : 1) * per.parameters;
    const double bandwidth = cluster.gpu.memoryBandwidthGBps * 1e9 * cluster.gpu.memoryEfficiency;
    s.optimizer = updated * bytesPerParameter / bandwidth;
  }
  s.total = s.compute + s.tpComm + s.ppComm + s.dpComm + s.shardComm + s.offload + s.bubble + s.optimizer;
  return s;
}

}  // namespace cclab::sim
