#include "sim/training/report.h"

#include <algorithm>

#include <fmt/format.h>

#include "sim/training/compute.h"

namespace cclab::sim {
namespace {

constexpr double kGiB = 1024.0 * 1024 * 1024;

}  // namespace

std::string formatCount(double value) {
  if (value >= 1e12) return fmt::format("{:.2f} T", value / 1e12);
  if (value >= 1e9) return fmt::format("{:.2f} B", value / 1e9);
  if (value >= 1e6) return fmt::format("{:.2f} M", value / 1e6);
  if (value >= 1e3) return fmt::format("{:.2f} k", value / 1e3);
  return fmt::format("{:.3g}", value);
}

std::string formatDuration(double seconds) {
  if (seconds >= 86400 * 2) return fmt::format("{:.1f} days", seconds / 86400);
  if (seconds >= 3600) return fmt::format("{:.1f} hours", seconds / 3600);
  return fmt::format("{:.1f} s", seconds);
}

std::string describeLayout(const TrainConfig& c) {
  std::string s = fmt::format("dp {} x tp {} x pp {}", c.dp, c.tp, c.pp);
  if (c.vpp > 1) s += fmt::format(" x vpp {}", c.vpp);
  s += fmt::format(", {}", c.shardingName);
  if (c.pp > 1) s += fmt::format(", {}", name(c.schedule));
  if (!c.statesOnly) s += fmt::format(", micro-batch {}, recompute {}", c.microBatch, name(c.recompute));
  if (c.recompute == Recompute::Full && c.recomputeLayers > 0) s += fmt::format(" ({} layers a stage)", c.recomputeLayers);
  if (c.tiles > 1) s += fmt::format(", {} tiles a linear layer", c.tiles);
  if (offloadedStates(c) != OffloadStates::None) s += fmt::format(", offload {} to {}", name(offloadedStates(c)), name(c.offloadOptimizer));
  if (c.offloadPinned) s += " (pinned buffers)";
  if (swapperPipelined(c)) s += " (pipelined swapper)";
  if (c.checkpointsOnHost) s += ", checkpoints in host memory";
  return s;
}

std::string placementLabel(const TrainConfig& c) {
  std::string s;
  if (offloadedStates(c) != OffloadStates::None) s = fmt::format("{}:{}", name(offloadedStates(c)), name(c.offloadOptimizer));
  if (c.offloadPinned) s += " pinned";
  if (swapperPipelined(c)) s += " pipelined";
  if (c.checkpointsOnHost) s += std::string(s.empty() ? "" : " ") + "ckpt:cpu";
  if (c.tiles > 1) s += fmt::format("{}tiles:{}", s.empty() ? "" : " ", c.tiles);
  return s.empty() ? "-" : s;
}

results::Json toJson(const StepTime& s) {
  return {{"compute", s.compute},     {"tp_comm", s.tpComm},           {"pp_comm", s.ppComm},       {"dp_comm", s.dpComm},
          {"shard_comm", s.shardComm}, {"offload", s.offload},        {"pipeline_bubble", s.bubble}, {"optimizer", s.optimizer},
          {"overhead", s.overhead},   {"interference", s.interference}, {"total", s.total}};
}

results::Json toJson(const TrainingEstimate& e, const std::string& model, const Cluster& cluster) {
  const TrainConfig& c = e.config;
  const MemoryBreakdown& m = e.memory;
  results::Json j = {
      {"model", model},
      {"cluster", cluster.name},
      {"gpus", c.gpus},
      {"layout",
       {{"dp", c.dp}, {"tp", c.tp}, {"pp", c.pp}, {"vpp", c.vpp}, {"sharding", c.shardingName}, {"schedule", std::string(name(c.schedule))},
        {"micro_batch", c.microBatch}, {"global_batch", c.globalBatch}, {"accumulation_steps", c.accumulation}, {"seq", c.seq},
        {"recompute", std::string(name(c.recompute))}, {"recompute_layers", c.recomputeLayers}, {"flash_attention", c.flashAttention}, {"sequence_parallel", c.sequenceParallel},
        {"offload", std::string(name(offloadedStates(c)))}, {"offload_device", std::string(name(c.offloadOptimizer))},
        {"cpu_checkpointing", c.checkpointsOnHost}, {"pin_memory", c.offloadPinned},
        {"pipeline_read", c.swapReadsAhead}, {"pipeline_write", c.swapWritesBehind}, {"tiles", c.tiles},
        {"precision", std::string(name(c.precision))}, {"layers_per_stage", e.layersPerStage}}},
      {"params", e.parameters},
      {"memory_per_gpu_bytes",
       {{"parameters", m.parameters}, {"gradients", m.gradients}, {"optimizer_states", m.optimizerStates}, {"activations", m.activations},
        {"other", m.other}, {"total", m.total}}},
      {"memory_detail_bytes",
       {{"activations_per_layer_per_micro_batch", m.activationsPerLayerBytes}, {"in_flight_chunks", m.inFlightChunks},
        {"logits", m.logitsBytes}, {"communication_buffers", m.bufferBytes}, {"framework", m.frameworkBytes},
        {"allocator", m.allocatorBytes},
        {"offloaded_to_host", m.hostBytes}, {"offloaded_to_nvme", m.nvmeBytes}, {"checkpoints_in_host_memory", m.hostCheckpointBytes},
        {"host_memory_per_gpu", m.hostCapacity}}},
      {"gpu_memory_bytes", m.capacity},
      {"fits", m.fits},
      {"host_memory_fits", m.hostFits()},
      {"headroom_bytes", m.capacity - m.total},
  };
  if (c.statesOnly) return j;
  const StepTime& s = e.step;
  j["step_time_s"] = toJson(s);
  j["closed_form_step_time_s"] = e.closedForm.total;
  j["communication_s"] = e.communication;
  j["communication_hidden_fraction"] = e.hiddenFraction;
  j["bubble_fraction"] = e.bubbleFraction;
  j["bubble_over_ideal"] = e.bubbleOverIdeal;
  j["bubble_share_of_step"] = e.bubbleShare;
  j["tokens_per_s"] = e.perSample ? results::Json() : results::Json(e.tokensPerSecond);
  j["samples_per_s"] = e.samplesPerSecond;
  j["model_flops_per_step"] = e.flops.modelPerStep;
  j["hardware_flops_per_step"] = e.flops.hardwarePerStep;
  j["mfu"] = e.mfu;
  j["hfu"] = e.hfu;
  j["peak_flops_per_gpu"] = e.peakFlopsPerGpu;
  if (e.perSample) {
    j["train_samples"] = e.trainSamples;
  } else {
    j["train_tokens"] = e.trainTokens;
  }
  j["train_time_s"] = e.trainSeconds;
  j["gpu_hours"] = e.gpuHours;
  j["cost_usd"] = e.costUsd;
  return j;
}

std::string formatReport(const TrainingEstimate& e, const std::string& model, const Cluster& cluster) {
  const TrainConfig& c = e.config;
  const MemoryBreakdown& m = e.memory;
  std::string r = fmt::format("# ccsim train: {} on {} ({} GPUs: {} node{} x {})\n", model, cluster.name, c.gpus, cluster.nodes,
                              cluster.nodes == 1 ? "" : "s", cluster.gpusPerNode);
  r += fmt::format("layout            {}\n", describeLayout(c));
  // An uneven split (the ends one layer lighter), said once: "7 on the first and last stage, 8 on the others".
  if (!e.layersPerStage.empty() && e.layersPerStage.front() != *std::max_element(e.layersPerStage.begin(), e.layersPerStage.end())) {
    const int most = *std::max_element(e.layersPerStage.begin(), e.layersPerStage.end());
    std::vector<std::size_t> lighter;
    for (std::size_t s = 0; s < e.layersPerStage.size(); ++s) {
      if (e.layersPerStage[s] < most) lighter.push_back(s);
    }
    std::string list = fmt::format("{}", lighter.front());
    for (std::size_t k = 1; k < lighter.size(); ++k) list += fmt::format("{}{}", k + 1 == lighter.size() ? " and " : ", ", lighter[k]);
    r += fmt::format("stages            {} layers on stage{} {}, {} on each of the others (the ends hold the embedding and the logits)\n",
                     most - 1, lighter.size() == 1 ? "" : "s", list, most);
  }
  const std::string precision(name(c.precision));
  if (e.perSample) {
    r += fmt::format("batch             global {} = micro {} x accumulation {} x dp {}, {} precision\n", c.globalBatch, c.microBatch,
                     c.accumulation, c.dp, precision);
  } else if (!c.statesOnly) {
    const char* sequenceParallel = c.sequenceParallel ? ", sequence parallel" : c.sequenceParallelDropped ? ", sequence parallelism off (it needs --tp > 1)" : "";
    r += fmt::format("batch             global {} = micro {} x accumulation {} x dp {}, seq {}, {} precision, flash attention {}{}\n",
                     c.globalBatch, c.microBatch, c.accumulation, c.dp, c.seq, precision, c.flashAttention ? "on" : "off", sequenceParallel);
  }
  r += fmt::format("parameters        {} ({:.0f})\n", formatCount(e.parameters), e.parameters);
  r += fmt::format("memory per GPU    parameters {:.2f} + gradients {:.2f} + optimizer {:.2f} + activations {:.2f} + other {:.2f} = {:.2f} GiB of {:.1f}: {}\n",
                   m.parameters / kGiB, m.gradients / kGiB, m.optimizerStates / kGiB, m.activations / kGiB, m.other / kGiB, m.total / kGiB,
                   m.capacity / kGiB,
                   !m.gpuFits()   ? fmt::format("DOES NOT FIT, {:.2f} GiB over", (m.total - m.capacity) / kGiB)
                   : !m.hostFits() ? fmt::format("DOES NOT FIT in host memory, {:.2f} GiB over its share", (m.hostBytes - m.hostCapacity) / kGiB)
                                   : fmt::format("fits, {:.2f} GiB spare", (m.capacity - m.total) / kGiB));
  if (m.hostBytes > 0 || m.nvmeBytes > 0) {
    r += fmt::format("offloaded         {:.2f} GiB per GPU to host memory{}, {:.2f} GiB to NVMe\n", m.hostBytes / kGiB,
                     m.hostCapacity > 0 ? fmt::format(" (its share of the node's: {:.2f} GiB)", m.hostCapacity / kGiB) : "",
                     m.nvmeBytes / kGiB);
  }
  if (e.perSample) {
    r += "  activations     not given by the model card (it gives parameters and FLOPs only)\n";
  } else if (!c.statesOnly) {
    r += fmt::format("  activations     {:.3f} GiB per layer per micro-batch x {} chunk{} in flight; logits {:.2f} GiB{}\n",
                     m.activationsPerLayerBytes / kGiB, m.inFlightChunks, m.inFlightChunks == 1 ? "" : "s", m.logitsBytes / kGiB,
                     m.hostCheckpointBytes > 0 ? fmt::format("; checkpoints {:.2f} GiB in host memory", m.hostCheckpointBytes / kGiB) : "");
  }
  if (!c.statesOnly) {
    r += fmt::format("  other           communication buffers {:.2f} GiB, framework allowance {:.2f} GiB", m.bufferBytes / kGiB,
                     m.frameworkBytes / kGiB);
    if (m.allocatorBytes > 0) r += fmt::format(", allocator {:.2f} GiB", m.allocatorBytes / kGiB);
    r += "\n";
    const StepTime& s = e.step;
    r += fmt::format("step time         {:.4g} s = compute {:.4g}", s.total, s.compute);
    for (auto [label, value] : {std::pair{"tp", s.tpComm}, {"pp", s.ppComm}, {"dp", s.dpComm}, {"shard", s.shardComm},
                                {"offload", s.offload}, {"bubble", s.bubble}, {"optimizer", s.optimizer},
                                {"overhead", s.overhead}, {"interference", s.interference}}) {
      if (value > 0) r += fmt::format(" + {} {:.4g}", label, value);
    }
    r += "\n";
    if (e.communication > 0) {
      r += fmt::format("overlap           {:.1f}% of {:.4g} s of data-parallel communication hidden behind compute (closed forms: step {:.4g} s)\n",
                       100 * e.hiddenFraction, e.communication, e.closedForm.total);
    }
    if (c.pp > 1) {
      r += fmt::format("pipeline bubble   {:.1f}% of the step, simulated (the stage that ends last waiting); the schedule alone: "
                       "{:.1f}% ((p-1)/(vm+p-1)), {:.1f}% over the ideal ((p-1)/(vm))\n",
                       100 * e.bubbleShare, 100 * e.bubbleFraction, 100 * e.bubbleOverIdeal);
    }
    if (e.perSample) {
      r += fmt::format("throughput        {} samples/s\n", formatCount(e.samplesPerSecond));
    } else {
      r += fmt::format("throughput        {} tokens/s, {:.4g} samples/s\n", formatCount(e.tokensPerSecond), e.samplesPerSecond);
    }
    r += fmt::format("utilisation       MFU {:.1f}%, HFU {:.1f}%", 100 * e.mfu, 100 * e.hfu);
    // FP8 runs are quoted against the 16-bit peak (as NVIDIA and MLPerf quote them), which the
    // layers' fp8 GEMMs can pass: say so where the figures could read as over 100%.
    if (c.precision == Precision::Fp8) {
      r += fmt::format(" of the bf16 peak (the layers' fp8 GEMMs run at up to {:.1f}x it)",
                       layerGemmPeakFlops(cluster, Precision::Fp8) / e.peakFlopsPerGpu);
    }
    r += "\n";
    if (e.perSample && e.trainSamples <= 0) {
      r += "to train on       no budget: give --tokens as a number of samples\n";
    } else {
      r += fmt::format("to train on       {} {}: {}, {} GPU-hours, ${}\n", formatCount(e.perSample ? e.trainSamples : e.trainTokens),
                       e.perSample ? "samples" : "tokens", formatDuration(e.trainSeconds), formatCount(e.gpuHours), formatCount(e.costUsd));
    }
  }
  return r;
}

}  // namespace cclab::sim
