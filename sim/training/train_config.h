#pragma once

// How a model is trained: the parallel layout, the data-parallel memory scheme, precision,
// optimizer, batch arithmetic, recompute and pipeline schedule. Filled from ccsim's flags and/or a
// DeepSpeed ds_config.json, then checked against the model and the cluster.

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "collectives/names.h"
#include "sim/cluster.h"
#include "sim/training/model_card.h"

namespace cclab::sim {

// How data-parallel ranks share the model states. FSDP's strategies map onto ZeRO's stages:
// NO_SHARD = DDP, SHARD_GRAD_OP = ZeRO-2, FULL_SHARD = ZeRO-3, HYBRID_SHARD = ZeRO-3 within a
// node and replicas across nodes.
enum class StateSharding { None, Optimizer, OptimizerGradients, Everything, EverythingWithinNode };
// ZeRO-1 or 2: the optimizer states (and ZeRO-2's gradients) sharded, the parameters whole.
inline bool zeroOneOrTwo(StateSharding s) { return s == StateSharding::Optimizer || s == StateSharding::OptimizerGradients; }
// Mixed: bf16/fp16 values and GEMMs with an fp32 master copy. Fp32: fp32 everything, GEMMs on the
// CUDA cores (PyTorch's default). Tf32: fp32 values, GEMMs on the TF32 tensor cores
// (allow_tf32, llm.c's fp32 build). Fp8: as mixed, with the layers' GEMMs in fp8 (Transformer
// Engine; attention and the logits stay bf16).
enum class Precision { Mixed, Fp32, Tf32, Fp8 };
// Whether values, gradients and model states are fp32 (fp32, tf32) rather than 16-bit with an fp32
// master copy (mixed, fp8).
inline bool fp32States(Precision p) { return p == Precision::Fp32 || p == Precision::Tf32; }
// Bytes of one activation value, and so of the element-wise passes over them and of the tensor-
// and pipeline-parallel messages that carry them: fp32 in fp32 and tf32 runs, 16-bit otherwise
// (Transformer Engine's fp8 runs keep bf16 activations between their GEMMs).
inline double activationValueBytes(Precision p) { return fp32States(p) ? 4.0 : 2.0; }
enum class Optimizer { Adam, SgdMomentum, Sgd };
enum class Recompute { None, Selective, Full };
enum class Schedule { GPipe, OneFOneB, Interleaved };
enum class OffloadTarget { None, Cpu, Nvme };
enum class OffloadStates { None, Optimizer, OptimizerAndParameters };  // --offload
// How the framework runs a layer's kernels: fused (Megatron-LM's fused kernels, torch.compile) or
// eager PyTorch (one kernel per operator, each dispatched from Python).
enum class Execution { Fused, Eager };

struct TrainConfig {
  int gpus = 0;
  int dp = 0, tp = 1, pp = 1, vpp = 1;  // dp 0: the GPUs left over
  StateSharding sharding = StateSharding::None;
  // Whose calibration in the cluster prices the step's collectives ("mpi", "cclab", "nccl"; empty:
  // the cluster's own figures, the simulator's fastest algorithm): ccbench train sets its backend.
  std::string collectives;
  std::string shardingName = "ddp";    // as the user said it: ddp, zero1..3, fsdp-...
  Precision precision = Precision::Mixed;
  Optimizer optimizer = Optimizer::Adam;
  int globalBatch = 0;
  int microBatch = 1;
  int seq = 0;
  Recompute recompute = Recompute::None;
  // Full recompute on some of the layers: the layers of each pipeline stage that recompute, spread
  // evenly (FSDP's checkpoint wrapper on every k-th block, Megatron-LM's --recompute-num-layers);
  // 0: every layer.
  int recomputeLayers = 0;
  bool flashAttention = true;
  bool sequenceParallel = false;
  Schedule schedule = Schedule::OneFOneB;
  OffloadTarget offloadOptimizer = OffloadTarget::None;
  OffloadTarget offloadParams = OffloadTarget::None;
  // Full recompute's checkpoints (each recomputing layer's input) kept in host memory: DeepSpeed's
  // activation_checkpointing.cpu_checkpointing (Megatron-DeepSpeed's --checkpoint-in-cpu). Its
  // checkpoint function copies each to the host after the layer's forward and back before its
  // recompute, with blocking copies on the compute stream.
  bool checkpointsOnHost = false;
  // With the optimizer on NVMe, DeepSpeed's swapper can read the next sub-group's states while
  // CPU-Adam updates this one (offload_optimizer.pipeline_read) and write the last one's back while
  // it does (pipeline_write); both off by default, as in DeepSpeed.
  bool swapReadsAhead = false, swapWritesBehind = false;
  // The host's fp32 buffers of an optimizer offloaded to host memory are pinned
  // (offload_optimizer.pin_memory; off by default, as in DeepSpeed until its PR #8207 of 2026-08
  // made it on: docs/training.md, "Which DeepSpeed the pinning default is"): the backward's gradient
  // copies then run beside the compute instead of holding the host (gradientOffloadHoldsTheHost).
  bool offloadPinned = false;
  bool overlapGradReduce = true;       // DDP overlaps the gradient all-reduce with the backward pass
  // The overlap a DeepSpeed config's overlap_comm or --overlap-grad-reduce asked for: kept whatever
  // the ZeRO stage. Without one a DeepSpeed run (deepSpeedDefaults, set by applyDeepSpeedConfig)
  // overlaps in ZeRO-3 only, as DeepSpeed defaults it (setZeroStage applies it); others overlap.
  std::optional<bool> overlapRequested;
  bool deepSpeedDefaults = false;
  Execution execution = Execution::Fused;
  int prefetch = 1;                    // ZeRO-3/FSDP: layers whose parameters are gathered ahead
  // ZeRO-3's unit of gathering. PyTorch FSDP gathers a wrapped unit (a transformer layer) whole;
  // DeepSpeed's ZeRO-3 (--zero 3, a ds_config's stage 3) gathers each nn.Module's parameters in
  // its pre-forward hook and releases them after (partitioned_param_coordinator.py), so at most a
  // layer's largest module is gathered at once (gatheredUnitParameters). setZeroStage(3) sets it.
  bool gathersByModule = false;
  // Memory-centric tiling (ZeRO-Infinity Sec. 5.1.3; DeepSpeed's TiledLinear with out_splits):
  // each linear layer of a transformer layer split along its output into this many tiles, each
  // its own module, so DeepSpeed's ZeRO-3 gathers (and holds the gradient of) one tile at a time.
  // The tiles' GEMMs are narrower, their outputs are concatenated and their input gradients summed.
  int tiles = 1;
  double bucketBytes = 25.0 * (1 << 20);       // DDP gradient bucket size
  double frameworkBytes = 2.0 * (1 << 30);     // CUDA context, allocator fragmentation, workspaces
  std::optional<double> tokens;        // training budget; default 20 tokens per parameter (Chinchilla)
  bool statesOnly = false;             // --params: model states only (no model shape, no step time)

  // Derived by resolve(): gradient accumulation steps (micro-batches per step per pipeline).
  int accumulation = 1;
  // A DeepSpeed config's gradient_accumulation_steps: resolve() checks DeepSpeed's rule with it.
  std::optional<int> requestedAccumulation;
  // Set by resolve(): sequence parallelism asked for without tensor parallelism, switched off as
  // Megatron-LM does (it splits the tensor-parallel group's activations); the report says so.
  bool sequenceParallelDropped = false;
};

// Parses flag values; throw InputError listing the valid ones.
StateSharding parseZeroStage(int stage);
// Sets the ZeRO stage and its name ("ddp" for stage 0, "zero1".."zero3"); stage 3 is DeepSpeed's,
// gathering module by module (gathersByModule). In a DeepSpeed run the overlap is the one
// requested, else DeepSpeed's default for the stage (on for stage 3 only).
void setZeroStage(TrainConfig& config, int stage);
StateSharding parseFsdp(std::string_view strategy);
Precision parsePrecision(std::string_view text);
Optimizer parseOptimizer(std::string_view text);
Recompute parseRecompute(std::string_view text);
Schedule parseSchedule(std::string_view text);
std::string_view name(StateSharding s);
std::string_view name(Schedule s);
std::string_view name(Recompute r);
std::string_view name(Precision p);
std::string_view name(OffloadStates s);
// The optimizer on NVMe with its swapper pipelined both ways (--swap-pipeline on: pipeline_read and
// pipeline_write), what the planner offers, the reports name and a plan file saves.
inline bool swapperPipelined(const TrainConfig& c) {
  return c.offloadOptimizer == OffloadTarget::Nvme && c.swapReadsAhead && c.swapWritesBehind;
}
std::string_view name(OffloadTarget t);  // cpu, nvme ("none" for None)
// What a config offloads, as --offload says it: nothing, the optimizer, or the parameters too.
OffloadStates offloadedStates(const TrainConfig& config);

// The names each setting takes, in the order help texts and the GUI list them (the one table
// behind parsing, help and choices; collectives/names.h). Aliases follow the name they stand for.
std::span<const Named<StateSharding>> fsdpStrategies();  // --fsdp
std::span<const Named<Precision>> precisions();
std::span<const Named<Optimizer>> optimizers();
std::span<const Named<Recompute>> recomputes();
std::span<const Named<Schedule>> schedules();
std::span<const Named<OffloadStates>> offloadStates();   // --offload
std::span<const Named<OffloadTarget>> offloadDevices();  // --offload-device (not None)
std::span<const Named<bool>> switches();                 // on, off
std::span<const Named<Execution>> executions();          // --execution

// The layers of a pipeline stage of `layers` that run their forward again before their backward
// (full recompute: all of them, or recomputeLayers of them; otherwise none), and whether the
// stage's layer `index` (0-based) is one of them: spread evenly, the k-th of n recomputing layers
// where k x layers / n rounds up to the index, as fms-fsdp places its checkpointed blocks.
int recomputedLayers(const TrainConfig& config, int layers);
bool recomputesLayer(const TrainConfig& config, int index, int layers);

// Fills `config` from a DeepSpeed ds_config.json: ZeRO stage, offload_optimizer / offload_param,
// train_batch_size / train_micro_batch_size_per_gpu / gradient_accumulation_steps, fp16/bf16,
// optimizer type, activation_checkpointing.cpu_checkpointing. Flags given on the command line win (the caller applies them after).
void applyDeepSpeedConfig(const std::string& path, TrainConfig& config);
void applyDeepSpeedConfig(const results::Json& doc, const std::string& source, TrainConfig& config);

// Completes the derived sizes (dp, accumulation, schedule) and checks that everything divides:
// throws InputError naming what does not.
void resolve(TrainConfig& config, const ModelCard& model, const Cluster& cluster);

}  // namespace cclab::sim
