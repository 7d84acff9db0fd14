#pragma once

// One optimizer step as the frameworks issue it: tasks on streams with dependencies, for one
// representative rank of each pipeline stage (every data-parallel and tensor-parallel rank of a
// stage does the same work at the same time, so one stands for all: a 16,384-GPU job is at most
// `pp` ranks here). ccsim train prices the step by simulating this graph (timeline.h); ccbench
// train runs the same graph with real collectives and GEMMs. docs/training.md draws the graph.
//
// Streams, per stage, as CUDA streams: the compute stream (kernels, and the collectives that
// block it: tensor-parallel all-reduces, pipeline sends and receives), two data-parallel streams
// as FSDP keeps them (gathers: ZeRO-3/FSDP parameter all-gathers and ZeRO-1/2's gather of the
// updated parameters; reductions: DDP buckets, reduce-scatters, HYBRID_SHARD's replica
// all-reduce) and the offload stream (PCIe/NVMe copies, the CPU optimizer). A stream runs its tasks
// in the order they were issued; a task also waits for its dependencies.

#include <string>
#include <vector>

#include "collectives/vocabulary.h"
#include "sim/cluster.h"
#include "sim/training/compute.h"
#include "sim/training/model_card.h"
#include "sim/training/train_config.h"

namespace cclab::sim {

enum class StreamKind { Compute, Gather, Reduce, Offload };
inline constexpr int kStreamKinds = 4;
inline bool isCollectiveStream(StreamKind kind) { return kind == StreamKind::Gather || kind == StreamKind::Reduce; }

// What a task's time counts as in the step's breakdown (StepTime's parts).
enum class Part { Compute, TensorComm, PipeComm, DataComm, ShardComm, Offload, Optimizer, Overhead };
inline constexpr int kParts = 8;
std::string_view name(Part part);

enum class Pass { Forward, Backward, Recompute, Step };
std::string_view name(StreamKind stream);  // "compute", "gathers", "reductions", "offload"
std::string_view name(Pass pass);          // "forward", "backward", "recompute", "step"

// Which of a rank's groups a collective runs on (Megatron-LM's process groups): its tensor-parallel
// group, its data-parallel group, ZeRO-3/FSDP's shard group (HYBRID_SHARD: inside the node; else the
// data-parallel group), HYBRID_SHARD's replica group, or the neighbouring pipeline stage.
enum class Group { Tensor, Data, Shard, Replica, Pipeline };

// One collective a task runs: the group it spans and the bytes of the nccl-tests size column.
struct GroupCollective {
  Collective collective = Collective::AllReduce;
  double bytes = 0;
  int ranks = 1;
  int nodes = 1;
  Group group = Group::Data;
};

struct Task {
  int stage = 0;
  StreamKind stream = StreamKind::Compute;
  Part part = Part::Compute;
  Pass pass = Pass::Forward;
  int microBatch = -1;  // -1: once per step
  int layer = -1;       // the stage's layer (0 .. layers on the stage - 1); -1: not a layer's
  // Seconds at full speed, with the GPU to itself; for a collective, filled by the pricer.
  double seconds = 0;
  // A compute task's parts other than its kernels (blocking tensor-parallel collectives, launch
  // overhead): seconds already in `seconds`, attributed to their parts.
  double tensorCommSeconds = 0, overheadSeconds = 0;
  int kernels = 0;                        // launches the task makes (eager: many)
  // What a compute task runs (ccbench train): its GEMMs (an index into StepGraph::gemmSets; -1:
  // none), the bytes its element-wise kernels move, the times it runs the graph's tensor-parallel
  // collectives (StepGraph::tensorCollectives, blocking), and the parameters an optimizer updates.
  int gemmSet = -1;
  double memoryBytes = 0;
  int tensorCollectiveRuns = 0;
  double parameters = 0;
  // What a communication task runs, in order; a pipeline send's message (SendRecv to the stage
  // that waits for it).
  std::vector<GroupCollective> collectives;
  std::vector<int> after;                 // tasks that must finish first
  double allocatesBytes = 0;              // memory taken when it starts ...
  double freesBytes = 0;                  // ... and given back when it ends
  std::string label;                      // "fwd L3 mb2", for traces
};

// A collective: a task on a collective stream that moves data between GPUs over their links, so it
// shares them and interferes with compute. ZeRO-1/2's gradient copies to the host are ordered on
// the reduction stream (DeepSpeed issues them there) but run on the copy engines over PCIe.
inline bool isCollective(const Task& task) { return isCollectiveStream(task.stream) && task.part != Part::Offload; }

struct StepGraph {
  int stages = 1;
  std::vector<Task> tasks;      // in issue order: a stream runs its tasks in this order
  std::vector<double> residentBytes;  // per stage: what is allocated the whole step (model states, buffers)
  std::vector<std::vector<Gemm>> gemmSets;          // shared by the tasks that run them
  std::vector<GroupCollective> tensorCollectives;   // one run of a layer's tensor-parallel collectives
  // Whole-step facts the report needs.
  int microBatches = 1;
};

// Where a layout's groups sit, with ranks numbered as Megatron-LM numbers them: tensor ranks
// adjacent, then data-parallel, then pipeline stages.
struct Placement {
  int dpNodes = 1;                     // nodes one data-parallel group spans
  bool pipelineCrossesNodes = false;   // neighbouring stages on different nodes
  int shardRanks = 1, shardNodes = 1;  // ZeRO-3/FSDP's gather group (HYBRID_SHARD: inside the node)
  int replicas = 1;                    // HYBRID_SHARD: copies of the shard group across nodes
};
Placement placement(const TrainConfig& config, int gpusPerNode);

class TrainingPricer;

// The most tasks a step graph may have (memory: a few hundred bytes each). Megatron-LM's 1T model
// on 3,072 GPUs (64 stages, 512 micro-batches) needs about 260,000; a step of millions of
// micro-batches is refused rather than simulated.
inline constexpr double kMaxStepTasks = 1'000'000;
// An upper bound on the tasks of the step of `config`, computed without building it.
double estimatedStepTasks(const ModelCard& model, const TrainConfig& config);

// Builds the step of `config` (resolved) for `model` on the job's cluster, pricing kernels with
// the cluster's GPU and collectives with `pricer`. The layout's groups are placed as Megatron-LM
// places them (tensor ranks adjacent, then data-parallel, then pipeline stages). InputError when
// the step would have more than kMaxStepTasks tasks.
StepGraph buildStepGraph(const ModelCard& model, const TrainConfig& config, TrainingPricer& pricer);

}  // namespace cclab::sim
