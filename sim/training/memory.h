#pragma once

// Memory per GPU (docs/training.md, "Memory per GPU"): model states by data-parallel scheme
// (the ZeRO paper's accounting), what offload moves to the host or NVMe, activations after
// Korthikanti et al. 2022 with what a pipeline stage keeps in flight, the output logits, and the
// buffers and framework allowance that estimators that stop at model states leave out.

#include <vector>

#include "sim/cluster.h"
#include "sim/training/model_card.h"
#include "sim/training/train_config.h"

namespace cclab::sim {

// Bytes per parameter of each model state before sharding: mixed precision with Adam is 2 + 2 +
// 12 (fp32 master, momentum, variance: the ZeRO paper's K = 12); pure fp32 Adam 4 + 4 + 8.
struct StateBytes {
  double parameters = 0, gradients = 0, optimizer = 0;
};
StateBytes stateBytesPerParameter(Precision precision, Optimizer optimizer);

struct MemoryBreakdown {
  double parameters = 0, gradients = 0, optimizerStates = 0, activations = 0, other = 0;
  double total = 0;
  double capacity = 0;        // the GPU's memory
  bool fits = false;
  double hostBytes = 0;       // per GPU: states offloaded to host memory
  double nvmeBytes = 0;       // per GPU: states offloaded to NVMe
  double hostCheckpointBytes = 0;  // of hostBytes: full recompute's checkpoints (checkpointsOnHost)
  double hostCapacity = 0;    // a GPU's share of its node's host memory (0: not described)
  // How activations and "other" are made up (for the report).
  double activationsPerLayerBytes = 0;
  double inFlightChunks = 0;  // chunks of layers whose activations the worst stage holds at once
  double logitsBytes = 0;
  double bufferBytes = 0;
  double frameworkBytes = 0;
  double allocatorBytes = 0;  // the caching allocator's rounding and fragmentation (timeline only)

  bool gpuFits() const { return total <= capacity; }
  // What is offloaded to host memory fits the GPU's share of it (where the host's size is known).
  bool hostFits() const { return hostCapacity <= 0 || hostBytes <= hostCapacity; }
  // Sets `fits`: the GPU holds its total and the host what is offloaded to it.
  void settleFit() { fits = gpuFits() && hostFits(); }
};

// Parameters one GPU of pipeline stage `stage` holds before data-parallel sharding: the stage's
// layers (stageLayers), its tensor-parallel share, and the embeddings on the first stage (the
// output head, or a tied copy of the embedding, on the last).
double stageParameters(const ModelCard& model, const TrainConfig& config, int stage);
// The same on the stage that holds the most: what one GPU's memory must carry.
double parametersPerModelShard(const ModelCard& model, const TrainConfig& config, double totalParameters);

// Model states only (what `--params` asks about).
MemoryBreakdown modelStates(double parametersPerShard, const TrainConfig& config, const Cluster& cluster);
// Everything.
MemoryBreakdown trainingMemory(const ModelCard& model, const TrainConfig& config, const Cluster& cluster);

// Activation bytes one transformer layer stores for one micro-batch (Korthikanti et al. 2022:
// sbh(34 + 5as/h) in 16-bit for GPT's shapes, generalised to GQA and gated MLPs).
double activationBytesPerLayer(const ModelCard& model, const TrainConfig& config);
// Bytes one attention score (an element of the b x heads x s x s tensor an unfused attention
// writes) keeps for backward: a fused scale-mask-softmax kernel's v-byte output, its 1-byte dropout
// mask and v-byte dropout output (Korthikanti's 5 in 16-bit); eager code whose softmax runs in fp32
// (ModelCard::softmaxInFp32) keeps that fp32 output and the v-byte copy the next operator saves
// (4 + 1 + v with dropout: 7 in 16-bit).
double savedScoreBytes(const ModelCard& model, const TrainConfig& config);
// What an eager backward of one unfused attention holds besides the saved activations: the
// softmax's incoming and outgoing gradients, new tensors of the softmax's type (fp32 where the
// model's code upcasts, else v bytes), over one micro-batch's scores on one tensor rank. 0 with a
// fused attention kernel or fused execution (Megatron's fused softmax backward works in place).
double attentionGradientBytes(const ModelCard& model, const TrainConfig& config);
// The bytes of one value of T5's position biases: Hugging Face builds the mask they are added to
// in the stack's parameter type (`ModuleUtilsMixin.dtype`). PyTorch's mixed precision keeps the
// modules' parameters in fp32 (autocast casts per operator; FSDP's MixedPrecision casts a unit's
// shard only while that unit runs, and the stack reads its first block's fp32 shard), so eager
// mixed-precision code builds fp32 biases: the 16-bit learned bias plus the fp32 mask promotes.
// Code whose modules hold 16-bit parameters (fused, Megatron-style) builds them in the activations'.
double positionBiasValueBytes(const TrainConfig& config);
// T5's position biases as Hugging Face's code builds them: the learned relative bias of each stack
// plus the padding (decoder: causal) mask, materialised at b x heads x s x s by the stack's first
// layer and passed to every layer, so alive from a micro-batch's first forward to its last
// backward; the decoder's cross-attention gets one more (zeros plus the encoder's mask). 0 for a
// model without relative position biases.
double positionBiasBytes(const ModelCard& model, const TrainConfig& config);
// The gradient of one of those biases, in the biases' type, accumulated over its stack's layers
// during the backward (the cross-attention's has none: nothing it is built from is learned, and
// with the non-reentrant checkpoint its zeros never require a gradient).
double positionBiasGradientBytes(const ModelCard& model, const TrainConfig& config);
// A transformer layer's linear layers as its code's nn.Modules, on one of `tp` tensor ranks (the
// attention's input projections and the MLP's first layers split their outputs, the output
// projection and the MLP's last layer their inputs, as Megatron-LM splits them). GPT-style layers
// (Megatron-LM's, GPT-2's) project Q, K and V in one module; gated (LLaMA-family) layers, in
// Hugging Face's code, project Q, K, V, gate and up separately. `attention` marks the attention's
// modules, which a decoder layer of an encoder-decoder has twice (its cross-attention). Empty for a
// model without shapes.
struct LinearModule {
  double inputs = 0, outputs = 0;
  bool attention = false;
};
std::vector<LinearModule> linearModules(const ModelCard& model, int tp);
// Memory-centric tiling's transients (DeepSpeed's TiledLinear), on one tensor rank for one
// micro-batch, held while a layer's pass runs: forward, a linear layer's tile outputs beside their
// concatenation (torch.cat), one more output of the widest; backward, the gradient of a linear
// layer's input summed over its tiles beside a tile's own, one more input of the widest. 0 without
// tiling.
struct TilingWorkBytes {
  double forward = 0, backward = 0;
};
TilingWorkBytes tilingWorkBytes(const ModelCard& model, const TrainConfig& config);
// The parameters of a layer's largest nn.Module, before tensor parallelism, what DeepSpeed's ZeRO-3
// gathers at once: one MLP matrix (h x i), or the attention's input projection, fused QKV in GPT-
// style layers (Megatron-LM's, GPT-2's), Q alone in gated (LLaMA-family) layers, whose Hugging Face
// code projects Q, K, V, gate and up separately. 0 for a model without shapes.
double largestModuleParameters(const ModelCard& model);
// ZeRO-3's parameters gathered at once for a layer of `layerShard` parameters on one tensor rank:
// the whole layer (FSDP), or with gathersByModule its largest module (DeepSpeed), a tile of it with
// memory-centric tiling (config.tiles); its gradient is held at that size until reduced.
double gatheredUnitParameters(const ModelCard& model, const TrainConfig& config, double layerShard);
// DeepSpeed's ZeRO-3 reduces gradients through one contiguous bucket of reduce_bucket_size elements
// (default 5e8, or the shard if smaller), allocated all step: its bytes for a stage of `shard`
// parameters (0 for FSDP, which reduce-scatters each unit's gradient as it is).
double moduleGatherReduceBucketBytes(const TrainConfig& config, double shard);

// One micro-batch's b x s x h activations between layers (0 for a model given by its FLOPs): what
// a tensor-parallel all-reduce and a pipeline send carry (the send split across tensor ranks).
double layerOutputBytes(const ModelCard& model, const TrainConfig& config);
// Bytes a logit keeps from the loss's forward to its backward: its value plus an fp32 copy for the
// softmax and loss (a 16-bit run's 2 + 4; fp32's 4 + 4).
inline double savedLogitBytes(Precision p) { return activationValueBytes(p) + 4; }

}  // namespace cclab::sim
