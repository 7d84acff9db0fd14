#pragma once

// What a user says about one training run — the flags of `ccsim train` — as one struct, read and
// written as a plan file: a JSON object whose keys are those flags' names without the dashes
// ({"model": "gpt3-175b", "cluster": "dgx-a100", "gpus": 1024, "tp": 8, ...}). ccsim's flags, the
// GUI's settings panel and `ccsim train --plan` all go through this one table, so a plan saved in
// ccplan re-runs from the command line and in CI with the same numbers.

#include <optional>
#include <string>
#include <string_view>

#include "results/results.h"
#include "sim/cluster.h"
#include "sim/training/estimate.h"
#include "sim/training/step_graph.h"
#include "sim/training/timeline.h"
#include "sim/training/model_card.h"
#include "sim/training/train_config.h"

namespace cclab::sim {

struct TrainingSettings {
  std::string model, cluster, deepspeed;
  std::optional<double> params;
  std::optional<int> nodes, gpusPerNode, gpus, dp, tp, pp, vpp, zero, globalBatch, microBatch, seq, scale, vocabMultiple, recomputeLayers;
  std::string fsdp, precision, optimizer, recompute, flash = "on", sequenceParallel = "off", schedule, offload = "none",
      offloadDevice = "cpu";
  std::string framework = "2G", execution = "fused", collectives;
  // Empty: as the DeepSpeed config says (overlap_comm: on for ZeRO-3 only, DeepSpeed's default;
  // cpu_checkpointing, offload_optimizer.pin_memory and its pipeline_read / pipeline_write: off),
  // and without one on, off, off and off.
  std::string overlap, cpuCheckpointing, pinMemory, swapPipeline;
  std::optional<int> prefetch, tiles;
  std::optional<double> tokens;

  // Throws InputError for a number no run can have (tp 0, a batch of -1, NaN tokens, ...): one
  // check, used by ccsim's flags, plan files and the GUI alike.
  void check() const;
  // The pieces, validated (InputError names the setting); the config is not resolved yet.
  ModelCard loadModelCard() const;  // scaled, then its vocabulary padded (vocab-multiple)
  Cluster loadClusterShape() const;
  TrainConfig config(const Cluster& cluster) const;
};

// Layout settings are what `ccsim plan` searches (it takes the others only).
enum class SettingScope { Common, Layout };

// Calls visit(name, field, help, scope) for every setting, in the order flags and files list them.
// `name` is the flag without "--" and the plan file's key; `field` is a std::string&,
// std::optional<int>& or std::optional<double>& (const with a const Settings).
// `help` is a std::string_view; the lists of choices in it come from the tables that parse them.
template <class Settings, class Visit>
void forEachSetting(Settings& s, Visit&& visit) {
  using enum SettingScope;
  static const std::string fsdp = "FSDP: " + namesOf(fsdpStrategies());
  static const std::string recompute = "activation recompute: " + namesOf(recomputes());
  static const std::string schedule = "pipeline schedule: " + namesOf(schedules());
  static const std::string offload = "ZeRO-Offload / ZeRO-Infinity: " + namesOf(offloadStates());
  static const std::string offloadDevice = "where offloaded states go: " + namesOf(offloadDevices(), " or ") + " (host memory or NVMe)";
  static const std::string precision = namesOf(precisions(), " or ") +
                                       " (mixed: bf16/fp16 with an fp32 master copy; tf32: fp32 with TF32 tensor-core GEMMs; fp8: mixed with "
                                       "the layers' GEMMs in fp8, as Transformer Engine runs them)";
  static const std::string optimizer = namesOf(optimizers());
  static const std::string flash = "fused attention: " + namesOf(switches(), " or ");
  static const std::string sequenceParallel = "Megatron sequence parallelism with --tp: " + namesOf(switches(), " or ");
  static const std::string overlap = "overlap the gradient reduction with the backward pass: " + namesOf(switches(), " or ") +
                                     " (default on; with --deepspeed its overlap_comm, whose default is on for ZeRO-3 only)";
  static const std::string cpuCheckpointing =
      "with --recompute full: keep each layer's checkpoint in host memory, copied out after its forward and back before its recompute "
      "(DeepSpeed's cpu_checkpointing): " + namesOf(switches(), " or ");
  static const std::string pinMemory =
      "with --offload to host memory: the optimizer's host buffers pinned (DeepSpeed's offload_optimizer.pin_memory; off, its default "
      "until 2026-08 (PR #8207 made it on): each gradient copy to pageable memory holds the host until it is done): " +
      namesOf(switches(), " or ");
  static const std::string swapPipeline =
      "with --offload-device nvme: DeepSpeed's NVMe swapper reads the next sub-group's optimizer states while CPU-Adam updates one "
      "and writes the last behind it (offload_optimizer.pipeline_read and pipeline_write; off, its default: read, update and "
      "write in turn): " + namesOf(switches(), " or ");
  static const std::string execution = "how layers run: " + namesOf(executions(), " or ") + " (fused: Megatron-LM, torch.compile)";
  visit("model", s.model, "a model card (models/cards/) or a Hugging Face config.json", Common);
  visit("params", s.params, "a model known only by its parameter count (model states only), e.g. 7.5e9", Common);
  visit("cluster", s.cluster, "a preset (models/clusters/) or a cluster JSON file", Common);
  visit("nodes", s.nodes, "override the cluster's node count", Common);
  visit("gpus-per-node", s.gpusPerNode, "override the GPUs per node", Common);
  visit("gpus", s.gpus, "GPUs the job uses (default: the whole cluster)", Common);
  visit("dp", s.dp, "data-parallel size (default: the GPUs left by tp x pp)", Layout);
  visit("tp", s.tp, "tensor-parallel size", Layout);
  visit("pp", s.pp, "pipeline stages", Layout);
  visit("vpp", s.vpp, "model chunks per pipeline stage (interleaved schedule)", Layout);
  visit("zero", s.zero, "ZeRO stage 0, 1, 2 or 3", Layout);
  visit("fsdp", s.fsdp, fsdp, Layout);
  visit("micro-batch", s.microBatch, "samples per GPU per micro-batch", Layout);
  visit("recompute", s.recompute, recompute, Layout);
  visit("recompute-layers", s.recomputeLayers,
        "with --recompute full: the layers of each pipeline stage that recompute, spread evenly (FSDP's checkpointing of every k-th "
        "block, Megatron-LM's --recompute-num-layers; default: all)",
        Layout);
  visit("schedule", s.schedule, schedule, Layout);
  visit("offload", s.offload, offload, Layout);
  visit("offload-device", s.offloadDevice, offloadDevice, Layout);
  visit("cpu-checkpointing", s.cpuCheckpointing, cpuCheckpointing, Common);
  visit("pin-memory", s.pinMemory, pinMemory, Common);
  visit("swap-pipeline", s.swapPipeline, swapPipeline, Common);
  visit("global-batch", s.globalBatch, "samples per optimizer step", Common);
  visit("seq", s.seq, "tokens per sample", Common);
  visit("precision", s.precision, precision, Common);
  visit("optimizer", s.optimizer, optimizer, Common);
  visit("flash-attention", s.flash, flash, Common);
  visit("sequence-parallel", s.sequenceParallel, sequenceParallel, Common);
  visit("overlap-grad-reduce", s.overlap, overlap, Common);
  visit("execution", s.execution, execution, Common);
  visit("prefetch", s.prefetch, "ZeRO-3/FSDP: layers whose parameters are gathered ahead (default 1)", Layout);
  visit("tiles", s.tiles,
        "DeepSpeed ZeRO-3: memory-centric tiling, each linear layer split into N tiles along its output, gathered one at a time "
        "(ZeRO-Infinity; DeepSpeed's TiledLinear with out_splits N; default 1)",
        Layout);
  visit("framework-overhead", s.framework, "per-GPU allowance for the CUDA context and allocator (K/M/G)", Common);
  visit("tokens", s.tokens, "training budget in tokens (default: 20 per parameter, Chinchilla)", Common);
  visit("collectives", s.collectives, "price the collectives with the cluster's calibration of mpi, cclab or nccl (ccbench train sets its --backend; default: the cluster's own figures)", Common);
  visit("scale", s.scale, "shrink the model S times: hidden, FFN, vocabulary and sequence divided by S, layers and heads kept (ccbench train on a small machine)", Common);
  visit("vocab-multiple", s.vocabMultiple, "pad the vocabulary up to a multiple of N, as the frameworks do for aligned GEMMs: Megatron-LM (--make-vocab-size-divisible-by x tp: give the product), llm.c 128, nanoGPT 64 (default: the card's vocabulary as it is)", Common);
  visit("deepspeed", s.deepspeed, "take ZeRO, offload, batch and precision settings from a DeepSpeed ds_config.json", Common);
}

// Writes a resolved config's layout (what `ccsim plan` chooses: sizes, ZeRO stage, micro-batch,
// recompute, schedule, offload with its pinned buffers or pipelined swapper, checkpoints in host
// memory, tiles) into `settings`, so that the
// settings price that layout (ccplan loads a planner's row this way).
void setLayout(TrainingSettings& settings, const TrainConfig& config);

// The plan file: every setting that is given (non-empty, or holding a value).
results::Json toJson(const TrainingSettings& settings);
// Applies the keys of a plan file's JSON over `settings`. Throws InputError naming `source` and an
// unknown key or a value of the wrong type. `skipLayout` ignores the layout keys (ccsim plan).
void applyJson(const results::Json& plan, TrainingSettings& settings, const std::string& source, bool skipLayout = false);
// Reads a plan file (InputError: unreadable, not JSON, not an object, bad keys).
TrainingSettings readPlanFile(const std::string& path, bool skipLayout = false);

// One training run evaluated as `ccsim train` does: the model (or a parameter count), the job's
// cluster, the resolved config and the estimate.
struct TrainingRun {
  std::string modelName;
  Cluster job;
  TrainingEstimate estimate;
  StepGraph graph;     // the step simulated (empty for --params)
  Timeline timeline;   // and its timeline (ccsim train --trace)
};
TrainingRun runTraining(const TrainingSettings& settings);

// What the layout planner (`ccsim plan`, ccplan's planner) starts from: the model, the job's
// cluster and the base config, checked as `ccsim plan` checks them (a model shape, a global batch).
struct PlanningInputs {
  ModelCard model;
  Cluster job;
  TrainConfig base;
};
PlanningInputs planningInputs(const TrainingSettings& settings);

}  // namespace cclab::sim
