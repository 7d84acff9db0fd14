#include "sim/training/train_config.h"

#include <algorithm>
#include <array>
#include <fstream>
#include <limits>
#include <sstream>

#include <fmt/format.h>

#include "results/json_reader.h"
#include "collectives/errors.h"
#include "collectives/names.h"
#include "sim/training/memory.h"
#include "sim/training/pipeline.h"

namespace cclab::sim {
namespace {

constexpr std::array<Named<StateSharding>, 4> kFsdp{{{"no_shard", StateSharding::None},
                                                     {"shard_grad_op", StateSharding::OptimizerGradients},
                                                     {"full_shard", StateSharding::Everything},
                                                     {"hybrid_shard", StateSharding::EverythingWithinNode}}};
constexpr std::array<Named<StateSharding>, 5> kShardingNames{{{"none", StateSharding::None},
                                                              {"optimizer", StateSharding::Optimizer},
                                                              {"optimizer+gradients", StateSharding::OptimizerGradients},
                                                              {"everything", StateSharding::Everything},
                                                              {"everything within a node", StateSharding::EverythingWithinNode}}};
constexpr std::array<Named<Precision>, 4> kPrecisions{{{"mixed", Precision::Mixed, "mixed (bf16 + fp32 master)"},
                                                       {"fp32", Precision::Fp32},
                                                       {"tf32", Precision::Tf32, "tf32 (fp32 values, TF32 GEMMs)"},
                                                       {"fp8", Precision::Fp8, "fp8 (fp8 layer GEMMs, bf16 + fp32 master)"}}};
constexpr std::array<Named<Optimizer>, 4> kOptimizers{{{"adam", Optimizer::Adam, "Adam"},
                                                       {"adamw", Optimizer::Adam, "AdamW"},
                                                       {"sgd-momentum", Optimizer::SgdMomentum, "SGD with momentum"},
                                                       {"sgd", Optimizer::Sgd, "SGD"}}};
constexpr std::array<Named<Recompute>, 3> kRecomputes{{{"none", Recompute::None}, {"selective", Recompute::Selective}, {"full", Recompute::Full}}};
constexpr std::array<Named<Schedule>, 3> kSchedules{
    {{"gpipe", Schedule::GPipe, "GPipe"}, {"1f1b", Schedule::OneFOneB, "1F1B"}, {"interleaved", Schedule::Interleaved, "interleaved 1F1B"}}};
constexpr std::array<Named<OffloadStates>, 3> kOffloadStates{{{"none", OffloadStates::None},
                                                              {"optimizer", OffloadStates::Optimizer, "optimizer (ZeRO-Offload)"},
                                                              {"optimizer+params", OffloadStates::OptimizerAndParameters,
                                                               "optimizer + parameters (ZeRO-Infinity)"}}};
constexpr std::array<Named<OffloadTarget>, 2> kOffloadDevices{{{"cpu", OffloadTarget::Cpu, "host memory"}, {"nvme", OffloadTarget::Nvme, "NVMe"}}};
constexpr std::array<Named<bool>, 2> kSwitches{{{"on", true}, {"off", false}}};
constexpr std::array<Named<Execution>, 2> kExecutions{
    {{"fused", Execution::Fused, "fused kernels (Megatron-LM, torch.compile)"}, {"eager", Execution::Eager, "eager PyTorch"}}};

}  // namespace

StateSharding parseZeroStage(int stage) {
  switch (stage) {
    case 0: return StateSharding::None;
    case 1: return StateSharding::Optimizer;
    case 2: return StateSharding::OptimizerGradients;
    case 3: return StateSharding::Everything;
    default: throw InputError(fmt::format("--zero {} is not a ZeRO stage (0, 1, 2 or 3)", stage));
  }
}
void setZeroStage(TrainConfig& c, int stage) {
  c.sharding = parseZeroStage(stage);
  c.shardingName = stage == 0 ? "ddp" : fmt::format("zero{}", stage);
  c.gathersByModule = stage == 3;
  if (c.deepSpeedDefaults) c.overlapGradReduce = c.overlapRequested.value_or(stage == 3);
}
StateSharding parseFsdp(std::string_view s) { return parseIn(kFsdp, s, "FSDP strategy"); }
Precision parsePrecision(std::string_view s) { return parseIn(kPrecisions, s, "precision"); }
Optimizer parseOptimizer(std::string_view s) { return parseIn(kOptimizers, s, "optimizer"); }
Recompute parseRecompute(std::string_view s) { return parseIn(kRecomputes, s, "recompute"); }

int recomputedLayers(const TrainConfig& c, int layers) {
  if (c.recompute != Recompute::Full) return 0;
  return c.recomputeLayers > 0 ? std::min(c.recomputeLayers, layers) : layers;
}

bool recomputesLayer(const TrainConfig& c, int index, int layers) {
  const int n = recomputedLayers(c, layers);
  if (n == 0 || layers <= 0) return false;
  // Layer index recomputes when round((index + 1) n / layers) steps past round(index n / layers).
  auto rounded = [&](int i) { return (2 * i * n + layers) / (2 * layers); };
  return rounded(index + 1) > rounded(index);
}
Schedule parseSchedule(std::string_view s) { return parseIn(kSchedules, s, "schedule"); }
std::string_view name(StateSharding s) { return nameIn(kShardingNames, s); }
std::string_view name(Schedule s) { return nameIn(kSchedules, s); }
std::string_view name(Recompute r) { return nameIn(kRecomputes, r); }
std::string_view name(Precision p) { return nameIn(kPrecisions, p); }
std::string_view name(OffloadStates s) { return nameIn(kOffloadStates, s); }
std::string_view name(OffloadTarget t) { return t == OffloadTarget::None ? "none" : nameIn(kOffloadDevices, t); }

OffloadStates offloadedStates(const TrainConfig& c) {
  if (c.offloadParams != OffloadTarget::None) return OffloadStates::OptimizerAndParameters;
  return c.offloadOptimizer != OffloadTarget::None ? OffloadStates::Optimizer : OffloadStates::None;
}

std::span<const Named<StateSharding>> fsdpStrategies() { return kFsdp; }
std::span<const Named<Precision>> precisions() { return kPrecisions; }
std::span<const Named<Optimizer>> optimizers() { return kOptimizers; }
std::span<const Named<Recompute>> recomputes() { return kRecomputes; }
std::span<const Named<Schedule>> schedules() { return kSchedules; }
std::span<const Named<OffloadStates>> offloadStates() { return kOffloadStates; }
std::span<const Named<OffloadTarget>> offloadDevices() { return kOffloadDevices; }
std::span<const Named<bool>> switches() { return kSwitches; }
std::span<const Named<Execution>> executions() { return kExecutions; }

void applyDeepSpeedConfig(const std::string& path, TrainConfig& c) {
  applyDeepSpeedConfig(results::readJsonFile(path, "DeepSpeed config"), path, c);
}

void applyDeepSpeedConfig(const results::Json& doc, const std::string& source, TrainConfig& c) {
  if (!doc.is_object()) throw InputError(fmt::format("{}: a DeepSpeed config is a JSON object", source));
  const results::JsonReader in(doc, source);
  // DeepSpeed overlaps the gradient reduction with the backward (overlap_comm) by default in
  // ZeRO-3 only (its DeepSpeedZeroConfig's overlap_comm_valid); stages 0-2 reduce on the compute
  // stream unless the config turns it on.
  c.deepSpeedDefaults = true;
  c.overlapGradReduce = c.overlapRequested.value_or(false);  // stage 0 when the config names none
  if (in.has("zero_optimization")) {
    const results::JsonReader zero = in.child("zero_optimization");
    const int stage = zero.within<int>("stage", 0, 3, 0);
    if (zero.has("overlap_comm")) c.overlapRequested = zero.get<bool>("overlap_comm", true);
    setZeroStage(c, stage);  // the overlap asked for, or DeepSpeed's default for the stage
    // ZeRO-3 prefetches the next modules' parameters up to stage3_prefetch_bucket_size elements
    // (default 5e7): ccsim's one layer ahead; 0 turns prefetching off.
    if (stage == 3 && zero.within<double>("stage3_prefetch_bucket_size", 0, 1e18, 5e7) == 0) c.prefetch = 0;
    auto offload = [&](const char* field) {
      if (!zero.has(field)) return OffloadTarget::None;
      const std::string device = zero.child(field).get<std::string>("device", "none");
      if (device == "cpu") return OffloadTarget::Cpu;
      if (device == "nvme") return OffloadTarget::Nvme;
      if (device == "none") return OffloadTarget::None;
      zero.child(field).fail("device", fmt::format("unknown device '{}' (valid: none, cpu, nvme)", device));
    };
    c.offloadOptimizer = offload("offload_optimizer");
    if (zero.has("offload_optimizer")) {
      const results::JsonReader optimizer = zero.child("offload_optimizer");
      c.swapReadsAhead = optimizer.get<bool>("pipeline_read", false);
      c.swapWritesBehind = optimizer.get<bool>("pipeline_write", false);
      c.offloadPinned = optimizer.get<bool>("pin_memory", false);
    }
    c.offloadParams = offload("offload_param");
    // DeepSpeed's older keys (before 0.3.16 and still read): cpu_offload for the optimizer,
    // cpu_offload_params for the parameters, cpu_offload_use_pin_memory for pinned host buffers.
    if (!zero.has("offload_optimizer") && zero.get<bool>("cpu_offload", false)) c.offloadOptimizer = OffloadTarget::Cpu;
    if (!zero.has("offload_param") && zero.get<bool>("cpu_offload_params", false)) c.offloadParams = OffloadTarget::Cpu;
    if (!zero.has("offload_optimizer") && zero.has("cpu_offload_use_pin_memory")) {
      c.offloadPinned = zero.get<bool>("cpu_offload_use_pin_memory", false);
    }
    if (zero.has("reduce_bucket_size")) c.bucketBytes = zero.positive("reduce_bucket_size") * 2;  // elements of 16-bit gradients
  }
  const bool fp16 = in.has("fp16") && in.child("fp16").get<bool>("enabled", false);
  const bool bf16 = in.has("bf16") && in.child("bf16").get<bool>("enabled", false);
  if (fp16 && bf16) in.fail("bf16", "enabled with fp16: DeepSpeed refuses both at once (give one)");
  c.precision = fp16 || bf16 ? Precision::Mixed : Precision::Fp32;
  if (in.has("optimizer")) {
    const results::JsonReader opt = in.child("optimizer");
    std::string type = opt.get<std::string>("type", "Adam");
    for (auto& ch : type) ch = static_cast<char>(std::tolower(ch));
    if (type == "sgd") {
      const bool momentum = opt.has("params") && opt.child("params").get<double>("momentum", 0.0) > 0;
      c.optimizer = momentum ? Optimizer::SgdMomentum : Optimizer::Sgd;
    } else if (type == "adam" || type == "adamw" || type == "fusedadam" || type == "cpuadam") {
      c.optimizer = Optimizer::Adam;
    } else {
      opt.fail("type", fmt::format("optimizer '{}' is not modelled (Adam, AdamW, SGD)", type));
    }
  }
  // DeepSpeed's batch rule: train_batch_size = micro x accumulation x data-parallel size. The
  // data-parallel size is known only later (resolve), so keep what was given.
  if (in.has("train_micro_batch_size_per_gpu")) c.microBatch = in.within<int>("train_micro_batch_size_per_gpu", 1, 1 << 24);
  if (in.has("train_batch_size")) c.globalBatch = in.within<int>("train_batch_size", 1, 1 << 30);
  if (in.has("gradient_accumulation_steps")) c.requestedAccumulation = in.within<int>("gradient_accumulation_steps", 1, 1 << 24);
  // Which layers checkpoint is the model code's (Megatron-LM's --checkpoint-activations, ccsim's
  // --recompute); the config says where the checkpoints live.
  if (in.has("activation_checkpointing")) c.checkpointsOnHost = in.child("activation_checkpointing").get<bool>("cpu_checkpointing", false);
}

void resolve(TrainConfig& c, const ModelCard& m, const Cluster& cluster) {
  if (c.gpus < 1) throw InputError(fmt::format("--gpus must be at least 1 (got {})", c.gpus));
  if (c.gpus > cluster.gpus()) {
    throw InputError(fmt::format("--gpus {} is more than cluster '{}' has ({} nodes x {} GPUs; use --nodes)", c.gpus, cluster.name,
                                 cluster.nodes, cluster.gpusPerNode));
  }
  for (auto [value, flag] : {std::pair{c.tp, "--tp"}, {c.pp, "--pp"}, {c.vpp, "--vpp"}}) {
    if (value < 1) throw InputError(fmt::format("{} must be at least 1 (got {})", flag, value));
  }
  const int modelParallel = c.tp * c.pp;
  if (c.gpus % modelParallel != 0) {
    throw InputError(fmt::format("--tp {} x --pp {} = {} does not divide {} GPUs", c.tp, c.pp, modelParallel, c.gpus));
  }
  if (c.dp == 0) c.dp = c.gpus / modelParallel;
  if (c.dp * modelParallel != c.gpus) {
    throw InputError(fmt::format("--dp {} x --tp {} x --pp {} = {} GPUs, but --gpus is {}", c.dp, c.tp, c.pp, c.dp * modelParallel, c.gpus));
  }
  if (c.tp > cluster.gpusPerNode) {
    throw InputError(fmt::format("--tp {} spans nodes: tensor parallelism stays within a node of {} GPUs", c.tp, cluster.gpusPerNode));
  }
  // What DeepSpeed accepts: ZeRO-Offload moves a sharded optimizer (stages 1-3), ZeRO-Infinity the
  // parameters and anything on NVMe (stage 3). Here, not at the flags, so ccsim plan keeps to them.
  if (c.offloadOptimizer != OffloadTarget::None && c.sharding == StateSharding::None) {
    throw InputError("offloading the optimizer needs its states sharded: ZeRO-1, 2 or 3 (--zero) or FSDP, as in DeepSpeed's ZeRO-Offload");
  }
  if (c.offloadParams != OffloadTarget::None && c.sharding != StateSharding::Everything) {
    throw InputError("offloading parameters needs ZeRO-3 (--zero 3), as in DeepSpeed's ZeRO-Infinity");
  }
  if ((c.offloadOptimizer == OffloadTarget::Nvme || c.offloadParams == OffloadTarget::Nvme) && c.sharding != StateSharding::Everything) {
    throw InputError("offloading to NVMe needs ZeRO-3 (--zero 3), as in DeepSpeed's ZeRO-Infinity");
  }
  if (c.statesOnly) return;
  // FSDP reduce-scatters a unit's gradients on its own stream as the unit's backward ends (to free
  // them): there is nothing to turn off. DeepSpeed's ZeRO-3 without overlap_comm reduces them on
  // the compute stream, which waits.
  if (!c.overlapGradReduce && !c.gathersByModule &&
      (c.sharding == StateSharding::Everything || c.sharding == StateSharding::EverythingWithinNode)) {
    throw InputError(fmt::format("--overlap-grad-reduce off: {} reduce-scatters each unit's gradients on its own stream as its backward "
                                 "ends; the switch is DDP's, ZeRO-1/2's and DeepSpeed ZeRO-3's (--zero 3, overlap_comm)",
                                 c.shardingName));
  }
  // TiledLinear's tiles are modules of their own: only a ZeRO-3 that gathers module by module
  // gathers them one at a time (FSDP gathers its wrapped unit, a layer, whole).
  if (c.tiles > 1 && !c.gathersByModule) {
    throw InputError(fmt::format("--tiles {}: memory-centric tiling splits each linear layer into modules that DeepSpeed's ZeRO-3 gathers "
                                 "one at a time: give --zero 3 (FSDP gathers a wrapped layer whole)",
                                 c.tiles));
  }
  if (m.architecture == Architecture::Given) {
    if (c.tp > 1 || c.pp > 1) throw InputError(fmt::format("model '{}' gives no layer shapes: only data parallelism (--tp 1 --pp 1)", m.name));
    if (c.tiles > 1) throw InputError(fmt::format("model '{}' gives no layer shapes: --tiles has no linear layer to split", m.name));
  } else {
    if (m.architecture == Architecture::EncoderDecoder && (c.tp > 1 || c.pp > 1)) {
      throw InputError(fmt::format("model '{}' is an encoder-decoder: ccsim prices it with data parallelism and ZeRO/FSDP (--tp 1 --pp 1); "
                                   "its cross-attention's tensor-parallel collectives and a pipeline's encoder output are not modelled",
                                   m.name));
    }
    if (m.heads % c.tp != 0) throw InputError(fmt::format("--tp {} does not divide the {} attention heads", c.tp, m.heads));
    if (m.kvHeads % c.tp != 0 && c.tp % m.kvHeads != 0) {
      throw InputError(fmt::format("--tp {} and the {} key/value heads do not divide each other", c.tp, m.kvHeads));
    }
    // Stages that do not divide the layers get one layer fewer at the ends (stageLayers); the
    // interleaved schedule's chunks must divide them, as Megatron-LM requires.
    if (c.pp > m.layers) throw InputError(fmt::format("--pp {} is more stages than the {} layers", c.pp, m.layers));
    if (c.vpp > 1 && m.layers % (c.pp * c.vpp) != 0) {
      throw InputError(fmt::format("--pp {} x --vpp {} = {} chunks do not divide the {} layers (the interleaved schedule needs an even split)",
                                   c.pp, c.vpp, c.pp * c.vpp, m.layers));
    }
    if (c.recomputeLayers > 0 && c.recompute != Recompute::Full) {
      throw InputError(fmt::format("--recompute-layers {} needs --recompute full (it says which layers recompute in full)", c.recomputeLayers));
    }
    if (c.checkpointsOnHost && c.recompute != Recompute::Full) {
      throw InputError("CPU checkpointing keeps the checkpoints of full recompute in host memory: give --recompute full with it");
    }
    if (c.checkpointsOnHost && cluster.host.pcieBandwidthGBps <= 0) {
      throw InputError(fmt::format("cluster '{}' gives no host.pcie_bandwidth_gbps, which CPU checkpointing needs", cluster.name));
    }
    if (c.recomputeLayers > maxStageLayers(m.layers, c.pp)) {
      throw InputError(fmt::format("--recompute-layers {} is more than the {} layers of a pipeline stage", c.recomputeLayers,
                                   maxStageLayers(m.layers, c.pp)));
    }
    // TiledLinear refuses more tiles than a linear layer has outputs.
    double narrowest = std::numeric_limits<double>::infinity();
    for (const LinearModule& linear : linearModules(m, c.tp)) narrowest = std::min(narrowest, linear.outputs);
    if (c.tiles > narrowest) {
      throw InputError(fmt::format("--tiles {} is more tiles than the narrowest linear layer's {} outputs", c.tiles, narrowest));
    }
    if (c.seq < 1) throw InputError("--seq is required (tokens per sample)");
    if (m.maxPositions > 0 && c.seq > m.maxPositions && m.learnedPositions) {
      throw InputError(fmt::format("--seq {} is longer than the model's {} learned positions", c.seq, m.maxPositions));
    }
  }
  if (c.microBatch < 1) throw InputError(fmt::format("--micro-batch must be at least 1 (got {})", c.microBatch));
  if (c.globalBatch < 1) {
    // DeepSpeed style: micro x accumulation x dp.
    c.globalBatch = c.microBatch * c.requestedAccumulation.value_or(1) * c.dp;
  }
  if (c.globalBatch % (c.microBatch * c.dp) != 0) {
    throw InputError(fmt::format("--global-batch {} is not a multiple of --micro-batch {} x data-parallel {} = {}", c.globalBatch,
                                 c.microBatch, c.dp, c.microBatch * c.dp));
  }
  c.accumulation = c.globalBatch / (c.microBatch * c.dp);
  if (c.requestedAccumulation && *c.requestedAccumulation != c.accumulation) {
    // DeepSpeed refuses a config whose three batch numbers disagree; so does the simulator.
    throw InputError(fmt::format("global batch {} != micro-batch {} x gradient_accumulation_steps {} x data-parallel {} (DeepSpeed's rule)",
                                 c.globalBatch, c.microBatch, *c.requestedAccumulation, c.dp));
  }
  if (c.vpp > 1) {
    if (c.pp == 1) throw InputError("--vpp needs pipeline parallelism (--pp > 1)");
    c.schedule = Schedule::Interleaved;
  }
  if (c.schedule == Schedule::Interleaved) {
    if (c.vpp == 1) throw InputError("the interleaved schedule needs --vpp > 1");
    if (c.accumulation % c.pp != 0) {
      throw InputError(fmt::format("the interleaved schedule needs the {} micro-batches to be a multiple of --pp {}", c.accumulation, c.pp));
    }
  }
  // DeepSpeed's pipeline engine accepts ZeRO-0/1 only (sharded gradients would be reduced at every
  // micro-batch); Megatron-LM's distributed optimizer is ZeRO-1.
  if (c.pp > 1 && c.sharding != StateSharding::None && c.sharding != StateSharding::Optimizer) {
    throw InputError(fmt::format("{} with pipeline parallelism is not supported (as in DeepSpeed and Megatron-LM): use ZeRO-0/1 with --pp > 1",
                                 c.shardingName));
  }
  if (c.sequenceParallel && c.tp == 1) {  // as Megatron-LM does
    c.sequenceParallel = false;
    c.sequenceParallelDropped = true;
  }
}

}  // namespace cclab::sim
