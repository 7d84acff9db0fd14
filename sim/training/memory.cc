#include "sim/training/memory.h"

#include <algorithm>

#include "sim/training/pipeline.h"

namespace cclab::sim {

StateBytes stateBytesPerParameter(Precision precision, Optimizer optimizer) {
  StateBytes b;
  if (!fp32States(precision)) {  // mixed and fp8 keep the same states
    b.parameters = 2;  // fp16/bf16 working copy
    b.gradients = 2;
    // fp32 master copy + the optimizer's own states in fp32.
    b.optimizer = optimizer == Optimizer::Adam ? 4 + 4 + 4 : optimizer == Optimizer::SgdMomentum ? 4 + 4 : 4;
  } else {
    b.parameters = 4;
    b.gradients = 4;
    b.optimizer = optimizer == Optimizer::Adam ? 4 + 4 : optimizer == Optimizer::SgdMomentum ? 4 : 0;
  }
  return b;
}

double stageParameters(const ModelCard& model, const TrainConfig& c, int stage) {
  const double layers = stageLayers(model.layers, c.pp, stage) * static_cast<double>(model.layerParameters());
  // The first stage holds the input embeddings, the last the output head (or, tied, its own copy
  // of the embedding): the same size.
  double embeddings = static_cast<double>(model.embeddingParameters());
  if (c.pp > 1 && !model.tiedEmbeddings) embeddings /= 2;  // input on the first stage, head on the last
  const bool end = stage == 0 || stage == c.pp - 1;
  return (layers + (end ? embeddings : 0.0)) / c.tp;
}

double parametersPerModelShard(const ModelCard& model, const TrainConfig& c, double total) {
  if (model.architecture == Architecture::Given || c.statesOnly) return total / (c.tp * c.pp);
  double most = 0;
  for (int s = 0; s < c.pp; ++s) most = std::max(most, stageParameters(model, c, s));
  return most;
}

namespace {

// Data-parallel ranks that share (shard) each state.
int shardDegree(const TrainConfig& c, const Cluster& cluster) {
  if (c.sharding == StateSharding::EverythingWithinNode) {
    const int modelParallelPerNode = std::max(1, cluster.gpusPerNode / (c.tp * c.pp));
    return std::max(1, std::min(c.dp, modelParallelPerNode));
  }
  return c.dp;
}

void finish(MemoryBreakdown& m, const Cluster& cluster) {
  m.total = m.parameters + m.gradients + m.optimizerStates + m.activations + m.other;
  m.capacity = cluster.gpu.memoryBytes;
  m.hostCapacity = cluster.host.memoryBytes / cluster.gpusPerNode;
  m.settleFit();
}

}  // namespace

MemoryBreakdown modelStates(double shard, const TrainConfig& c, const Cluster& cluster) {
  const StateBytes per = stateBytesPerParameter(c.precision, c.optimizer);
  const double n = shardDegree(c, cluster);
  const bool optimizerSharded = c.sharding != StateSharding::None;
  const bool gradientsSharded = c.sharding == StateSharding::OptimizerGradients || c.sharding == StateSharding::Everything ||
                                c.sharding == StateSharding::EverythingWithinNode;
  const bool parametersSharded = c.sharding == StateSharding::Everything || c.sharding == StateSharding::EverythingWithinNode;
  MemoryBreakdown m;
  m.parameters = shard * per.parameters / (parametersSharded ? n : 1);
  m.gradients = shard * per.gradients / (gradientsSharded ? n : 1);
  m.optimizerStates = shard * per.optimizer / (optimizerSharded ? n : 1);
  // ZeRO-Offload / ZeRO-Infinity: the optimizer states (with an fp32 gradient copy for the CPU
  // optimizer) and, with parameter offload, the 16-bit parameters move off the GPU. With the
  // gradients sharded (ZeRO-2, 3) none stays on the GPU either: DeepSpeed copies each reduced
  // gradient into the host's fp32 copy and frees it (stage_1_and_2.py's copy_grads_in_partition,
  // "param.grad = None  # offload only"; stage 3 keeps its gradient partitions in host memory), so
  // the GPU holds only the reduction buckets (the buffers below). That is how a 10B model trains
  // on one 32 GB V100 (ZeRO-Offload's headline run).
  auto offload = [&](OffloadTarget target, double bytes) { (target == OffloadTarget::Nvme ? m.nvmeBytes : m.hostBytes) += bytes; };
  if (c.offloadOptimizer != OffloadTarget::None) {
    offload(c.offloadOptimizer, m.optimizerStates + shard * 4 / (gradientsSharded ? n : 1));
    m.optimizerStates = 0;
    if (gradientsSharded) m.gradients = 0;
  }
  if (c.offloadParams != OffloadTarget::None) {
    offload(c.offloadParams, m.parameters);
    m.parameters = 0;  // gathered a layer at a time: counted in the buffers
  }
  finish(m, cluster);
  return m;
}

namespace {
// One micro-batch's b x heads x s x s scores of one attention block, on one tensor rank.
double scoreCount(const ModelCard& model, const TrainConfig& c) {
  return static_cast<double>(c.microBatch) * model.heads / c.tp * c.seq * c.seq;
}
}  // namespace

double activationBytesPerLayer(const ModelCard& model, const TrainConfig& c) {
  const double s = c.seq, b = c.microBatch, h = model.hidden, t = c.tp;
  const double kv = static_cast<double>(model.kvHeads) * model.headDim(), width = model.attentionWidth();
  const double i = model.intermediate;
  const bool dropout = model.dropout;
  const double sb = s * b;
  const double cross = model.crossAttentionShare();  // an encoder-decoder's mean layer
  const double v = activationValueBytes(c.precision);
  // Full recompute keeps only each layer's input (split across tensor ranks with sequence parallelism).
  if (c.recompute == Recompute::Full) return v * sb * h / (c.sequenceParallel ? t : 1);
  // Korthikanti et al. 2022, per layer, in bytes (16-bit values, 1-byte dropout masks; with v
  // bytes a value, each 2 below is v: fp32 runs keep twice the values, the same masks):
  //   replicated across tensor ranks (split too with sequence parallelism): layer-norm inputs
  //   4sbh, attention and MLP inputs 2sbh each, dropout masks sbh each;
  //   split across tensor ranks: Q 2sbh, K and V 2sb(kv), attention output 2sbh, MLP hidden
  //   values 2 x 2sbi (gated: 4 x 2sbi);
  //   attention scores 5as^2b (softmax 2, dropout mask 1, dropout output 2; savedScoreBytes, which
  //   eager code with an fp32 softmax raises to 7), split, and gone with selective recompute or a
  //   fused (flash) attention kernel.
  // Q and the attention output are `width` wide (the hidden size unless the config sets the head
  // dimension apart). A cross-attention (an encoder-decoder's decoder layers) keeps the same again
  // for its block: its norm's input, its input, its dropout mask, Q K V, output and scores.
  const double attentionReplicated = v * h + v * h + (dropout ? h : 0);
  const double replicated = sb * ((1 + cross) * attentionReplicated + v * h + v * h + (dropout ? h : 0));
  const double split = sb * ((1 + cross) * v * (width + 2 * kv + width) + (model.gatedMlp ? 4 : 2) * v * i);
  const bool scoresStored = c.recompute == Recompute::None && !c.flashAttention;
  const double scores = scoresStored ? (1 + cross) * savedScoreBytes(model, c) * scoreCount(model, c) : 0.0;
  return replicated / (c.sequenceParallel ? t : 1) + split / t + scores;
}

double savedScoreBytes(const ModelCard& model, const TrainConfig& c) {
  const double v = activationValueBytes(c.precision);
  if (c.execution == Execution::Eager && model.softmaxInFp32 && v < 4) return 4 + v + (model.dropout ? 1 : 0);
  return model.dropout ? 2 * v + 1 : v;
}

double attentionGradientBytes(const ModelCard& model, const TrainConfig& c) {
  if (model.architecture == Architecture::Given || c.flashAttention || c.execution != Execution::Eager) return 0.0;
  const double softmaxBytes = model.softmaxInFp32 ? 4.0 : activationValueBytes(c.precision);
  return 2 * softmaxBytes * scoreCount(model, c);
}

double positionBiasValueBytes(const TrainConfig& c) {
  return c.execution == Execution::Eager ? 4.0 : activationValueBytes(c.precision);
}

double positionBiasBytes(const ModelCard& model, const TrainConfig& c) {
  if (model.relativeBuckets <= 0) return 0.0;
  const int biases = model.crossAttentionLayers > 0 ? 3 : 1;  // encoder, decoder, cross-attention
  return biases * positionBiasValueBytes(c) * scoreCount(model, c);
}

double positionBiasGradientBytes(const ModelCard& model, const TrainConfig& c) {
  return model.relativeBuckets > 0 ? positionBiasValueBytes(c) * scoreCount(model, c) : 0.0;
}

std::vector<LinearModule> linearModules(const ModelCard& model, int tp) {
  if (model.architecture == Architecture::Given) return {};
  const double h = model.hidden, a = model.attentionWidth(), kv = static_cast<double>(model.kvHeads) * model.headDim(),
               i = model.intermediate, t = tp;
  if (model.gatedMlp) {
    return {{h, a / t, true}, {h, kv / t, true}, {h, kv / t, true}, {a / t, h, true}, {h, i / t, false}, {h, i / t, false}, {i / t, h, false}};
  }
  return {{h, (a + 2 * kv) / t, true}, {a / t, h, true}, {h, i / t, false}, {i / t, h, false}};
}

TilingWorkBytes tilingWorkBytes(const ModelCard& model, const TrainConfig& c) {
  TilingWorkBytes work;
  if (c.tiles <= 1) return work;
  const double values = activationValueBytes(c.precision) * c.microBatch * c.seq;  // bytes per feature
  for (const LinearModule& linear : linearModules(model, c.tp)) {
    work.forward = std::max(work.forward, values * linear.outputs);
    work.backward = std::max(work.backward, values * linear.inputs);
  }
  return work;
}

double largestModuleParameters(const ModelCard& model) {
  double largest = 0;
  for (const LinearModule& linear : linearModules(model, 1)) largest = std::max(largest, linear.inputs * linear.outputs);
  return largest;
}

double gatheredUnitParameters(const ModelCard& model, const TrainConfig& c, double layerShard) {
  if (!c.gathersByModule || model.architecture == Architecture::Given) return layerShard;
  return std::min(layerShard, largestModuleParameters(model) / c.tp / c.tiles);
}

double moduleGatherReduceBucketBytes(const TrainConfig& c, double shard) {
  if (!c.gathersByModule) return 0.0;
  return std::min(5e8, shard) * stateBytesPerParameter(c.precision, c.optimizer).gradients;
}

double layerOutputBytes(const ModelCard& model, const TrainConfig& c) {
  if (model.architecture == Architecture::Given) return 0.0;
  return activationValueBytes(c.precision) * c.microBatch * c.seq * model.hidden;
}

MemoryBreakdown trainingMemory(const ModelCard& model, const TrainConfig& c, const Cluster& cluster) {
  const double shard = parametersPerModelShard(model, c, static_cast<double>(model.parameters()));
  MemoryBreakdown m = modelStates(shard, c, cluster);
  const double h = model.hidden, sb = static_cast<double>(c.seq) * c.microBatch;

  if (model.architecture == Architecture::Given) {
    // A model known by its parameters and FLOPs: activations are given per sample in the card
    // (none given: only the model states are known).
    m.activations = 0;
  } else {
    auto layersOf = [&](int stage) { return stageLayers(model.layers, c.pp, stage); };
    m.activationsPerLayerBytes = activationBytesPerLayer(model, c);
    if (c.recompute == Recompute::Full && c.recomputeLayers > 0) {
      // Some layers recompute: a layer's mean over the first stage's.
      TrainConfig kept = c;
      kept.recompute = Recompute::None;
      const double layers = layersOf(0), recomputed = recomputedLayers(c, layersOf(0));
      m.activationsPerLayerBytes = (recomputed * m.activationsPerLayerBytes + (layers - recomputed) * activationBytesPerLayer(model, kept)) / layers;
    }
    const PipelineShape shape{c.schedule, c.pp, c.accumulation, c.vpp};
    // The first stage holds the most micro-batches in flight; the last also holds the logits.
    m.inFlightChunks = c.pp == 1 ? 1 : peakInFlightChunks(shape);
    const double layersPerChunk = static_cast<double>(layersOf(0)) / c.vpp;
    if (c.checkpointsOnHost) {
      // The recomputing layers' checkpoints wait in host memory; the GPU holds one at a time, while
      // it is copied out or back (the timeline's peak has it).
      const double recomputedShare = static_cast<double>(recomputedLayers(c, layersOf(0))) / layersOf(0);
      const double checkpoint = activationBytesPerLayer(model, c);
      m.activationsPerLayerBytes -= recomputedShare * checkpoint;
      m.hostCheckpointBytes = m.inFlightChunks * layersPerChunk * recomputedShare * checkpoint;
      m.hostBytes += m.hostCheckpointBytes;
    }
    const double v = activationValueBytes(c.precision);
    const double embeddingOutput = (v + 1) * sb * h / (c.sequenceParallel ? c.tp : 1);  // values + dropout mask
    // T5's position biases live from the first layer's forward to the last one's backward, in every
    // micro-batch in flight; the gradient accumulated into one of them during a backward, once.
    const double firstStage =
        m.inFlightChunks * (layersPerChunk * m.activationsPerLayerBytes + embeddingOutput / c.vpp + positionBiasBytes(model, c)) +
        positionBiasGradientBytes(model, c);
    // Logits b*s*V, split across the tensor ranks (vocabulary-parallel output layer): the values
    // plus an fp32 copy for the softmax and loss. They dominate small models with large vocabularies.
    m.logitsBytes = sb * model.vocab * savedLogitBytes(c.precision) / c.tp;
    const double lastStage = (c.pp == 1 ? 0 : layersOf(c.pp - 1) * m.activationsPerLayerBytes) + m.logitsBytes;
    // An uneven split (lighter ends): the first stage with more layers than the first holds one
    // micro-batch fewer per stage before it under 1F1B (all of them under GPipe).
    double heavierStage = 0;
    for (int s = 1; s < c.pp - 1; ++s) {
      if (layersOf(s) > layersOf(0)) {
        const int held = c.schedule == Schedule::GPipe ? c.accumulation : std::min(c.pp - s, c.accumulation);
        heavierStage = held * layersOf(s) * m.activationsPerLayerBytes;
        break;
      }
    }
    m.activations = c.pp == 1 ? firstStage + m.logitsBytes : std::max({firstStage, lastStage, heavierStage});
  }

  // Buffers the communication keeps: PyTorch DDP copies gradients into buckets as large as the
  // gradients themselves; ZeRO-1/2 keep a reduce and an all-gather bucket (DeepSpeed's default
  // 5e8 elements each, or the model shard if smaller); ZeRO-3/FSDP gather a layer's parameters
  // ahead (two layers in 16-bit; DeepSpeed's ZeRO-3 two modules, and its reduction bucket).
  const StateBytes per = stateBytesPerParameter(c.precision, c.optimizer);
  const double layerShard = model.architecture == Architecture::Given ? shard : static_cast<double>(model.layerParameters()) / c.tp;
  switch (c.sharding) {
    case StateSharding::None: m.bufferBytes = c.dp > 1 ? shard * per.gradients : 0; break;
    case StateSharding::Optimizer:
    case StateSharding::OptimizerGradients: m.bufferBytes = 2 * std::min(5e8, shard) * per.gradients; break;
    case StateSharding::Everything:
    case StateSharding::EverythingWithinNode:
      m.bufferBytes = 2 * gatheredUnitParameters(model, c, layerShard) * per.parameters + moduleGatherReduceBucketBytes(c, shard);
      break;
  }
  m.frameworkBytes = c.frameworkBytes;
  m.other = m.bufferBytes + m.frameworkBytes;
  finish(m, cluster);
  return m;
}

}  // namespace cclab::sim
