#include "sim/cli/training_options.h"

#include <fmt/format.h>

#include "collectives/errors.h"
#include "collectives/sizes.h"

namespace cclab::sim::cli {
namespace {

bool onOff(const std::string& value, const char* flag) {
  if (value == "on") return true;
  if (value == "off") return false;
  throw InputError(fmt::format("{} must be on or off (got '{}')", flag, value));
}

}  // namespace

void TrainingOptions::add(CLI::App& cmd, bool layout) {
  cmd.add_option("--model", model, "a model card (models/cards/) or a Hugging Face config.json");
  cmd.add_option("--params", params, "a model known only by its parameter count (model states only), e.g. 7.5e9");
  cmd.add_option("--cluster", cluster, "a preset (models/clusters/) or a cluster JSON file")->required();
  cmd.add_option("--nodes", nodes, "override the cluster's node count");
  cmd.add_option("--gpus-per-node", gpusPerNode, "override the GPUs per node");
  cmd.add_option("--gpus", gpus, "GPUs the job uses (default: the whole cluster)");
  if (layout) {
    cmd.add_option("--dp", dp, "data-parallel size (default: the GPUs left by tp x pp)");
    cmd.add_option("--tp", tp, "tensor-parallel size");
    cmd.add_option("--pp", pp, "pipeline stages");
    cmd.add_option("--vpp", vpp, "model chunks per pipeline stage (interleaved schedule)");
    cmd.add_option("--zero", zero, "ZeRO stage 0, 1, 2 or 3");
    cmd.add_option("--fsdp", fsdp, "FSDP: full_shard, shard_grad_op, no_shard, hybrid_shard");
    cmd.add_option("--micro-batch", microBatch, "samples per GPU per micro-batch");
    cmd.add_option("--recompute", recompute, "activation recompute: none, selective, full");
    cmd.add_option("--schedule", schedule, "pipeline schedule: gpipe, 1f1b, interleaved");
    cmd.add_option("--offload", offload, "ZeRO-Offload / ZeRO-Infinity: none, optimizer, optimizer+params")->capture_default_str();
    cmd.add_option("--offload-device", offloadDevice, "where offloaded states go: cpu (host memory) or nvme")->capture_default_str();
  }
  cmd.add_option("--global-batch", globalBatch, "samples per optimizer step");
  cmd.add_option("--seq", seq, "tokens per sample");
  cmd.add_option("--precision", precision, "mixed (bf16/fp16 + fp32 master) or fp32");
  cmd.add_option("--optimizer", optimizer, "adam, adamw, sgd-momentum, sgd");
  cmd.add_option("--flash-attention", flash, "fused attention: on or off")->capture_default_str();
  cmd.add_option("--sequence-parallel", sequenceParallel, "Megatron sequence parallelism with --tp: on or off")->capture_default_str();
  cmd.add_option("--overlap-grad-reduce", overlap, "overlap the gradient reduction with the backward pass: on or off")->capture_default_str();
  cmd.add_option("--framework-overhead", framework, "per-GPU allowance for the CUDA context and allocator (K/M/G)")->capture_default_str();
  cmd.add_option("--tokens", tokens, "training budget in tokens (default: 20 per parameter, Chinchilla)");
  cmd.add_option("--deepspeed", deepspeed, "take ZeRO, offload, batch and precision settings from a DeepSpeed ds_config.json");
  cmd.add_flag("--json", json, "print one JSON object instead of the report");
}

ModelCard TrainingOptions::loadModelCard() const { return loadModel(model); }

Cluster TrainingOptions::loadClusterShape() const {
  Cluster c = loadCluster(cluster);
  reshape(c, nodes, gpusPerNode);
  return c;
}

TrainConfig TrainingOptions::config(const Cluster& cluster) const {
  if (model.empty() == !params.has_value()) throw InputError("give the model: --model <card|config.json>, or --params <count> for model states only");
  if (params && !(*params >= 1)) throw InputError(fmt::format("--params must be at least 1 (got {:g})", *params));
  TrainConfig c;
  if (!deepspeed.empty()) applyDeepSpeedConfig(deepspeed, c);
  c.gpus = gpus.value_or(cluster.gpus());
  if (dp) c.dp = *dp;
  if (tp) c.tp = *tp;
  if (pp) c.pp = *pp;
  if (vpp) c.vpp = *vpp;
  if (zero && !fsdp.empty()) throw InputError("--zero and --fsdp choose the same thing: give one");
  if (zero) setZeroStage(c, *zero);
  if (!fsdp.empty()) {
    c.sharding = parseFsdp(fsdp);
    c.shardingName = "fsdp-" + fsdp;
  }
  if (!precision.empty()) c.precision = parsePrecision(precision);
  if (!optimizer.empty()) c.optimizer = parseOptimizer(optimizer);
  if (globalBatch) c.globalBatch = *globalBatch;
  if (microBatch) c.microBatch = *microBatch;
  if (seq) c.seq = *seq;
  if (!recompute.empty()) c.recompute = parseRecompute(recompute);
  if (!schedule.empty()) c.schedule = parseSchedule(schedule);
  c.flashAttention = onOff(flash, "--flash-attention");
  c.sequenceParallel = onOff(sequenceParallel, "--sequence-parallel");
  c.overlapGradReduce = onOff(overlap, "--overlap-grad-reduce");
  c.frameworkBytes = static_cast<double>(parseSize(framework, "--framework-overhead"));
  OffloadTarget device = OffloadTarget::Cpu;
  if (offloadDevice == "nvme") {
    device = OffloadTarget::Nvme;
  } else if (offloadDevice != "cpu") {
    throw InputError(fmt::format("unknown --offload-device '{}' (valid: cpu, nvme)", offloadDevice));
  }
  if (offload == "optimizer") {
    c.offloadOptimizer = device;
  } else if (offload == "optimizer+params") {
    c.offloadOptimizer = c.offloadParams = device;
  } else if (offload != "none") {
    throw InputError(fmt::format("unknown --offload '{}' (valid: none, optimizer, optimizer+params)", offload));
  }
  if (c.offloadParams != OffloadTarget::None && c.sharding != StateSharding::Everything) {
    throw InputError("offloading parameters needs ZeRO-3 (--zero 3), as in DeepSpeed's ZeRO-Infinity");
  }
  if (tokens) c.tokens = *tokens;
  c.statesOnly = params.has_value();
  return c;
}

}  // namespace cclab::sim::cli
