#pragma once

// FLOPs and compute time of training (docs/training.md, "Compute time"). FLOPs count every
// matrix multiply: 6 per parameter per token for forward + backward plus attention, as
// Megatron-LM counts them. Time prices each kernel on the GPU: GEMMs at the peak times the
// efficiency their smallest dimension reaches (tensor parallelism makes matrices smaller),
// attention fused (flash) or as batched GEMMs plus a memory-bound softmax, and the element-wise
// work (norms, activations, dropout, residuals) at the memory bandwidth.

#include <vector>

#include "sim/cluster.h"
#include "sim/training/model_card.h"
#include "sim/training/train_config.h"

namespace cclab::sim {

struct TrainingFlops {
  double modelPerStep = 0;     // forward + backward, the whole job (for MFU)
  double hardwarePerStep = 0;  // plus what recompute runs again (for HFU)
};
TrainingFlops trainingFlops(const ModelCard& model, const TrainConfig& config);

// Megatron-LM's count of one iteration with full recompute: 96 B s l h^2 (1 + s/6h + V/16lh).
double megatronFlopsPerStep(double batch, double seq, double layers, double hidden, double vocab);

// A matrix multiply C(m x n) = A(m x k) B(k x n), run `count` times (attention's batched GEMMs:
// one per micro-batch sample and head). ccbench train runs these shapes.
struct Gemm {
  double m = 0, k = 0, n = 0;
  double count = 1;
  double flops() const { return 2 * m * k * n * count; }
};
// The two GEMMs of a forward GEMM's backward pass: the input gradient dA = dC B^T (m x k, over n)
// and the weight gradient dB = A^T dC (k x n, over m).
std::vector<Gemm> backwardGemms(const std::vector<Gemm>& forward);

// Whether the output layer's GEMMs run on rows that are not 16-byte aligned: a 16-bit vocabulary
// slice (vocabulary / tp) that is not a multiple of 8, as GPT-2's 50,257 unpadded. Such GEMMs take
// the GPU description's unaligned_gemm_slowdown times longer; --vocab-multiple pads it away.
bool unalignedVocabulary(const ModelCard& model, const TrainConfig& config);

// One transformer layer's kernels on one tensor-parallel rank for one micro-batch, in seconds on
// the GPU alone (no launch or dispatch overhead), and how many kernels run: the unit the step
// graph prices layers in. The output layer (logits, softmax, loss) is the last stage's.
struct LayerTimes {
  double forward = 0, backward = 0;
  double recompute = 0;          // run again before the backward (full: the forward; selective: attention)
  double logitsForward = 0, logitsBackward = 0;
  int forwardKernels = 0, backwardKernels = 0, recomputeKernels = 0;
  // What the kernels are, for ccbench train: the forward's GEMMs (projections, then attention's
  // QK^T and AV), the bytes its element-wise kernels move (an unfused attention's passes over its
  // scores included: attentionMemoryBytes, what a selective recompute moves again), and the
  // logits' GEMM and bytes.
  std::vector<Gemm> forwardGemms, logitsGemms;
  double forwardMemoryBytes = 0, attentionMemoryBytes = 0, logitsForwardBytes = 0, logitsBackwardBytes = 0;
};
LayerTimes layerTimes(const ModelCard& model, const TrainConfig& config, const Cluster& cluster);

// Seconds one GPU computes for one micro-batch on the slowest pipeline stage, without
// communication.
struct MicroBatchCompute {
  double forward = 0, backward = 0, recompute = 0;
  double total() const { return forward + backward + recompute; }
};
MicroBatchCompute microBatchCompute(const ModelCard& model, const TrainConfig& config, const Cluster& cluster);

// The GPU's dense peak for the training precision (mixed and fp8: bf16, else fp16, the peak MFU is
// quoted against; tf32: tf32; fp32: fp32), in FLOP/s. Throws InputError when the cluster does not
// give it.
double peakFlops(const Cluster& cluster, Precision precision);
// The peak the layers' GEMMs run at: fp8's for fp8 (Transformer Engine), else peakFlops.
double layerGemmPeakFlops(const Cluster& cluster, Precision precision);

// The fraction of peak a GEMM whose smallest dimension is `dim` reaches (the cluster's curve).
double gemmEfficiency(const Cluster& cluster, double dim);

}  // namespace cclab::sim
