#pragma once

// A training step on a cluster: memory per GPU, the step time broken into compute, each kind of
// exposed communication, the pipeline bubble and the optimizer, and what follows from it
// (throughput, MFU/HFU, time and cost to train). docs/simulator.md gives the formulas.

#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "sim/cluster.h"
#include "sim/predictor.h"
#include "sim/training/compute.h"
#include "sim/training/memory.h"
#include "sim/training/model_card.h"
#include "sim/training/train_config.h"

namespace cclab::sim {

// The step's time by part. ccsim train takes each from the critical path of the simulated
// timeline (timeline.h), so the parts add up to the total; closedFormStep sums closed forms.
struct StepTime {
  double compute = 0;       // forward, backward and recompute over all micro-batches
  double tpComm = 0;        // tensor-parallel all-reduces (on the critical path)
  double ppComm = 0;        // pipeline activations and gradients between stages
  double dpComm = 0;        // data-parallel gradient reduction (and ZeRO-1/2 parameter gather), exposed part
  double shardComm = 0;     // ZeRO-3 / FSDP parameter gathers and gradient scatters, exposed part
  double offload = 0;       // PCIe transfers and the CPU optimizer of ZeRO-Offload / Infinity
  double bubble = 0;        // pipeline fill and drain, and other waits on the critical path
  double optimizer = 0;     // the optimizer step on the GPU (memory-bound)
  double overhead = 0;      // kernel launches and eager dispatch the GPU waits for
  double interference = 0;  // compute and collectives slowed by running side by side
  double total = 0;
};

struct Timeline;
struct Interference;
// How the cluster's GPUs (or CPU cores) slow work running side by side (timeline.h).
Interference interferenceOf(const Cluster& cluster, const TrainConfig& config);
// The step's parts read off a timeline's critical path (Timeline::onPath, idle as the bubble).
StepTime stepTime(const Timeline& timeline);

struct TrainingEstimate {
  double parameters = 0;
  TrainConfig config;
  std::vector<int> layersPerStage;  // pipeline stage by stage (stageLayers); empty for a model given by its totals
  MemoryBreakdown memory;
  StepTime step;
  TrainingFlops flops;
  StepTime closedForm;         // the same step by closed forms (no interference, free overlap)
  double communication = 0;    // seconds of communication the step runs (every collective)
  double hiddenFraction = 0;   // the share of it hidden behind compute (off the critical path)
  double bubbleFraction = 0;   // share of the step: (p-1)/(vm+p-1)
  double bubbleOverIdeal = 0;  // Megatron's (p-1)/(vm)
  double bubbleShare = 0;      // share of the simulated step the critical stage waits (step.bubble / step.total)
  double peakFlopsPerGpu = 0;  // what MFU and HFU are quoted against (bf16 for mixed and fp8)
  double tokensPerSecond = 0, samplesPerSecond = 0;
  double mfu = 0, hfu = 0;
  // The budget: tokens (default 20 per parameter); for a model without a sequence (ResNet-50),
  // samples (--tokens, or the card's train_samples; none: no training time).
  bool perSample = false;  // a model without a sequence: no tokens, a budget in samples
  double trainTokens = 0, trainSamples = 0, trainSeconds = 0, gpuHours = 0, costUsd = 0;
};

// Prices the communication of training on one cluster; keeps a predictor per group shape, so a
// planner evaluating thousands of layouts does not rebuild them.
class TrainingPricer {
 public:
  // `implementation`: whose calibration prices the collectives (TrainConfig::collectives).
  explicit TrainingPricer(const Cluster& cluster, std::string implementation = {})
      : cluster_(cluster), predictors_(cluster_, NicSharing::EveryGpuAtOnce), implementation_(std::move(implementation)) {}
  // Seconds for one collective of `bytes` among `ranks` ranks on `nodes` nodes, while every GPU of
  // those nodes runs its own group's (the step is the same on every rank).
  double seconds(Collective collective, double bytes, int ranks, int nodes);
  const Cluster& cluster() const { return cluster_; }
  // The GPU's step knobs (interference, overheads): collective prices do not depend on them, so a
  // fit varies them without rebuilding the predictors.
  void setStepKnobs(const GpuSpec::Step& step) { cluster_.gpu.step = step; }

 private:
  Cluster cluster_;
  PredictorsByShape predictors_;
  std::string implementation_;
  // Prices already asked for: a step asks the same few collectives for every layer and
  // micro-batch, and a planner's layouts ask them again.
  struct Asked {
    Collective collective;
    double bytes;
    int ranks, nodes;
    bool operator==(const Asked&) const = default;
  };
  struct AskedHash {
    std::size_t operator()(const Asked& a) const {
      return std::hash<double>()(a.bytes) ^ (static_cast<std::size_t>(a.collective) << 48) ^ (static_cast<std::size_t>(a.ranks) << 20) ^
             static_cast<std::size_t>(a.nodes);
    }
  };
  std::unordered_map<Asked, double, AskedHash> prices_;
};

// The cluster a job of `gpus` GPUs runs on: whole nodes of the given cluster (or part of one).
// Throws InputError when the GPUs are not a whole number of nodes.
Cluster jobCluster(const Cluster& cluster, int gpus);

struct StepGraph;
struct Timeline;

// `config` must be resolved (train_config.h). `pricer` prices on jobCluster(cluster, config.gpus).
// Builds the step graph, simulates it and reads the step time and peak memory off the timeline;
// `graph` and `timeline`, when given, receive them (for --trace and the GUI's timeline).
TrainingEstimate estimateTraining(const ModelCard& model, const TrainConfig& config, TrainingPricer& pricer,
                                  StepGraph* graph = nullptr, Timeline* timeline = nullptr);
// The same for the graph buildStepGraph(model, config, pricer) built (the planner builds it first to
// check its memory floor).
TrainingEstimate estimateTraining(const ModelCard& model, const TrainConfig& config, TrainingPricer& pricer, const StepGraph& graph,
                                  Timeline* timeline = nullptr);

// The step by closed forms (closed_form.cc): the planner's lower bound.
StepTime closedFormStep(const ModelCard& model, const TrainConfig& config, TrainingPricer& pricer);
// Bytes/s between host memory and one GPU while `copyingGpus` of its node copy at once (0: all of
// them, as offload moves them): its PCIe link, or that share of the switches' uplinks when smaller.
// 0 without a PCIe figure.
double hostLinkBandwidth(const Cluster& cluster, int copyingGpus = 0);
// ZeRO-Infinity's parameter fetch, bytes/s per GPU: hostLinkBandwidth from host memory, or the
// node's NVMe drives (shared by its GPUs) through it. 0 without a PCIe figure.
double parameterFetchBandwidth(const Cluster& cluster, const TrainConfig& config);
// ZeRO-Offload's CPU optimizer over `parameters`: memory-bound Adam, ~28 bytes a parameter (the
// fp32 parameter, momentum and variance read and written, the fp32 gradient read) at the host's
// memory bandwidth times its memory_efficiency (which the fit carries the rest in), shared by the
// node's GPUs.
double cpuOptimizerSeconds(const Cluster& cluster, double parameters);
// With the optimizer offloaded, DeepSpeed moves the gradients off the GPU during the backward, not
// in the optimizer step: ZeRO-3 each layer's partition after its reduce-scatter (stage 3's
// partition_grads, and with NVMe on to the drives, swap_out_gradients), ZeRO-1/2 each bucket's
// partition after its reduction (stage_1_and_2's reduce_ipg_grads: copy_grads_in_partition, on
// the reduction's stream), also on one GPU (after the layer's, or the bucket's, backward).
bool gradientsOffloadedDuringBackward(const TrainConfig& config);
// Whether each of those copies holds the host until it is done, so that the compute issued after
// it waits: DeepSpeed's host fp32 buffer is pageable memory (offload_optimizer.pin_memory off, its
// default until 2026-08), and a copy from the GPU to pageable memory returns only once it is complete (CUDA's
// cudaMemcpyAsync). So are ZeRO-2's 16-bit accumulation buffers (pinned only with pin_memory), a
// copy up from them once staged. The NVMe swapper's buffers and PyTorch FSDP's are pinned.
bool gradientOffloadHoldsTheHost(const TrainConfig& config);
// Seconds to move `parameters`' gradients that way with `copyingGpus` of the node copying at once
// (0: all): fp32 over the host link (DeepSpeed converts the 16-bit gradient on the GPU, .float(),
// then copies it into CPU-Adam's fp32 buffer: 4 bytes a parameter, or `linkBytes`), and with the
// optimizer on NVMe on to the node's drives, the GPU's share of them.
double gradientOffloadSeconds(const Cluster& cluster, const TrainConfig& config, double parameters, int copyingGpus = 0,
                              double linkBytes = 4);
// The bytes a parameter of its partition a ZeRO-2 rank moves over its host link after micro-batch
// `microBatch` of `microBatches` (DeepSpeed's copy_grads_in_partition): without accumulation the
// fp32 gradient (4); with it, async_accumulate_grad_in_cpu_via_gpu keeps a 16-bit sum in host
// memory: the first micro-batch's gradient down (2), each later one's sum up and back down (2 + 2),
// the last's sum up (2) and the total down as fp32 (4).
double accumulatedGradientCopyBytes(int microBatch, int microBatches);
// The GPU memory a DeepSpeed gradient copy stages through while it runs: each parameter's part is
// converted to fp32 on the GPU first (src_tensor.float(), one parameter at a time, freed once
// copied), so 4 bytes a parameter of the largest piece a copy of `parameters` holds (a
// parameter's, largestModuleParameters / t, or a tile's, cut to its ZeRO-3 partition, 1/`partitions`); 0 for
// fp32 runs, whose gradients are fp32 already, and for PyTorch FSDP.
double gradientOffloadStagingBytes(const ModelCard& model, const TrainConfig& config, double parameters, int partitions = 1);
// The offloaded optimizer step of one GPU's `parameters`: the fp32 gradients down over the host
// link (unless the backward moved them) and the updated 16-bit parameters up (unless they live
// off the GPU, fetched by the layers), the CPU optimizer, and with NVMe what DeepSpeed's swapper
// moves in the step (the GPU's share of the node's drives): the fp32 parameter, momentum and
// variance read and written, the fp32 gradient read (and written, unless the backward wrote it),
// and with the parameters on NVMe the updated 16-bit ones written; the swapper's reads and writes
// in turn with CPU-Adam, or overlapped with it as DeepSpeed's pipeline_read / pipeline_write say.
double offloadedOptimizerSeconds(const Cluster& cluster, const TrainConfig& config, double parameters);

// Model states only, for a model known by its parameter count (--params).
TrainingEstimate estimateStates(double parameters, const TrainConfig& config, const Cluster& cluster);

}  // namespace cclab::sim
