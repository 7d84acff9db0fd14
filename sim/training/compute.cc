#include "sim/training/compute.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "collectives/errors.h"
#include "sim/training/memory.h"
#include "sim/training/pipeline.h"

namespace cclab::sim {
namespace {

// Forward FLOPs per token of one layer's matrix multiplies (2 per weight), and of attention's two
// batched products (QK^T and AV: 2 x 2 x s x a per token, a the attention width, the full square
// as Megatron counts it). An encoder-decoder's mean layer adds its share of a cross-attention
// (queries and output over the decoder's tokens, keys and values over the encoder's: the same
// sequence length here).
double layerGemmFlopsPerToken(const ModelCard& m) {
  const double h = m.hidden, a = m.attentionWidth(), kv = static_cast<double>(m.kvHeads) * m.headDim(), i = m.intermediate;
  const double attentionBlocks = 1 + m.crossAttentionShare();
  return 2 * (attentionBlocks * (2 * h * a + 2 * h * kv) + (m.gatedMlp ? 3 : 2) * h * i);
}
double attentionFlopsPerToken(const ModelCard& m, double seq) { return (1 + m.crossAttentionShare()) * 4 * seq * m.attentionWidth(); }
// The share of the attention's work under a causal mask, which a fused kernel skips half of: all of
// a decoder's; of an encoder-decoder's, the decoder's self-attention (not the encoder's, not the
// cross-attention).
double causalShare(const ModelCard& m) {
  if (m.architecture == Architecture::Decoder) return 1.0;
  if (m.architecture == Architecture::EncoderDecoder) return m.crossAttentionShare() / (1 + m.crossAttentionShare());
  return 0.0;
}
double logitsFlopsPerToken(const ModelCard& m) { return 2.0 * m.hidden * m.vocab; }

}  // namespace

double megatronFlopsPerStep(double b, double s, double l, double h, double v) {
  return 96 * b * s * l * h * h * (1 + s / (6 * h) + v / (16 * l * h));
}

TrainingFlops trainingFlops(const ModelCard& m, const TrainConfig& c) {
  TrainingFlops f;
  const double samples = c.globalBatch;
  if (m.architecture == Architecture::Given) {
    f.modelPerStep = 3 * m.givenForwardFlopsPerSample * samples;
    f.hardwarePerStep = f.modelPerStep;
    return f;
  }
  const double tokens = samples * c.seq;
  const double layerForward = layerGemmFlopsPerToken(m) + attentionFlopsPerToken(m, c.seq);
  const double forward = m.layers * layerForward + logitsFlopsPerToken(m);
  f.modelPerStep = 3 * forward * tokens;  // backward costs twice the forward
  double recomputed = 0;
  if (c.recompute == Recompute::Full) {
    int layers = 0;  // the stages' recomputing layers (recomputeLayers of each, or all)
    for (int s = 0; s < c.pp; ++s) layers += recomputedLayers(c, stageLayers(m.layers, c.pp, s));
    recomputed = layers * layerForward;
  }
  if (c.recompute == Recompute::Selective) recomputed = m.layers * attentionFlopsPerToken(m, c.seq);
  f.hardwarePerStep = f.modelPerStep + recomputed * tokens;
  return f;
}

namespace {

double peakOf(const Cluster& cluster, const std::vector<std::string>& keys, std::string_view what) {
  const auto& peaks = cluster.gpu.peakTflops;
  for (const std::string& key : keys) {
    if (auto it = peaks.find(key); it != peaks.end()) return it->second * 1e12;
  }
  throw InputError(fmt::format("cluster '{}': gpu.peak_tflops gives no {} peak, which training needs", cluster.name, what));
}

}  // namespace

double peakFlops(const Cluster& cluster, Precision precision) {
  switch (precision) {
    case Precision::Mixed:
    case Precision::Fp8: return peakOf(cluster, {"bf16", "fp16"}, "bf16/fp16");
    case Precision::Tf32: return peakOf(cluster, {"tf32"}, "tf32");
    case Precision::Fp32: break;
  }
  return peakOf(cluster, {"fp32"}, "fp32");
}

double layerGemmPeakFlops(const Cluster& cluster, Precision precision) {
  return precision == Precision::Fp8 ? peakOf(cluster, {"fp8"}, "fp8") : peakFlops(cluster, precision);
}

double gemmEfficiency(const Cluster& cluster, double dim) {
  const auto& curve = cluster.gpu.gemmEfficiency;
  if (curve.empty()) return 0.7;  // no curve in the description: a middling constant
  if (dim <= curve.front().first) return curve.front().second * dim / curve.front().first;
  if (dim >= curve.back().first) return curve.back().second;
  for (std::size_t k = 1; k < curve.size(); ++k) {
    if (dim <= curve[k].first) {  // interpolate in log2(dim)
      const double x = std::log2(dim / curve[k - 1].first) / std::log2(curve[k].first / curve[k - 1].first);
      return curve[k - 1].second + x * (curve[k].second - curve[k - 1].second);
    }
  }
  return curve.back().second;
}

namespace {

// Kernels one layer launches, by execution: fused (Megatron-LM's fused bias+GeLU, bias+dropout+
// residual, layer norm and softmax kernels; torch.compile) or eager PyTorch (a kernel per operator:
// each norm, bias, activation, dropout and residual add on its own). Counted from the operators of
// a GPT block (docs/training.md, "The step as a timeline"): forward 8 fused / 22 eager, backward about twice.
struct KernelCounts {
  int forward, backward;
  double elementwiseTraffic;  // memory traffic of the element-wise work relative to fused kernels
};
// Eager's element-wise traffic, 1.3x the fused kernels': the element-wise kernel time of profiled
// eager steps on an H100 (PyTorch 2.11; widths 768-4096, less the logits chain and the weight
// casts) is 1.20-1.43x the fused bytes at the memory bandwidth (docs/training.md).
KernelCounts kernelCounts(Execution execution, bool flashAttention) {
  const int attention = flashAttention ? 1 : 5;  // fused attention, or two batched GEMMs + scale, mask/softmax, dropout
  if (execution == Execution::Eager) return {17 + attention, 34 + 2 * attention, 1.3};
  return {7 + attention, 14 + 2 * attention, 1.0};
}

// What eager PyTorch adds for the parts of a layer a GPT block does not have, whose operators it
// runs one kernel each (a GPT block's LayerNorm is one native kernel, its positions an embedding
// added once): RMSNorm (LLaMA, T5) and the rotary embedding (LLaMA). Counted from Hugging Face
// transformers' eager code, not fitted. LlamaRMSNorm and T5LayerNorm: up to fp32 (v + 4 bytes an
// element with v-byte values; none in fp32), pow (8), mean (4), multiply by the rsqrt (8), back
// down (4 + v), times the weight (2v): 36 bytes an element in 16-bit, 28 in fp32, where a fused
// norm reads and writes 2v; 7 kernels more than one. apply_rotary_pos_emb, for Q and K: q * cos
// (2v), rotate_half's neg of one half and cat (v + 2v), * sin (2v), add (3v): 10v bytes an
// element against a fused kernel's 2v; 5 kernels each. Bytes a token and layer beyond the fused
// kernels', on one tensor-parallel rank (the norms' inputs are whole unless sequence-parallel).
struct EagerExtra {
  double bytesPerToken = 0;
  int kernels = 0;
};
EagerExtra eagerNormsAndRotary(const ModelCard& m, const TrainConfig& c) {
  EagerExtra e;
  if (c.execution != Execution::Eager || m.architecture == Architecture::Given) return e;
  const double v = activationValueBytes(c.precision), tp = c.tp;
  if (!m.layerNorm) {
    const double norms = 2 + m.crossAttentionShare();  // before attention (and cross-attention) and the MLP
    const double casts = v < 4 ? (v + 4) + (4 + v) : 0.0;
    const double extra = casts + 8 + 4 + 8 + 2 * v - 2 * v;
    e.bytesPerToken += norms * extra * m.hidden / (c.sequenceParallel ? tp : 1);
    e.kernels += static_cast<int>(std::lround(norms * 7));
  }
  const bool rotary = !m.learnedPositions && m.relativeBuckets == 0;
  if (rotary) {
    const double qk = (m.attentionWidth() + static_cast<double>(m.kvHeads) * m.headDim()) / tp;
    e.bytesPerToken += (10 * v - 2 * v) * qk;
    e.kernels += 10;
  }
  return e;
}

}  // namespace

bool unalignedVocabulary(const ModelCard& m, const TrainConfig& c) {
  // The logits are a tokens x vocabulary/tp matrix in every layout the frameworks use (row-major,
  // the vocabulary its leading dimension), an operand or the result of all three of its GEMMs.
  if (fp32States(c.precision) || m.architecture == Architecture::Given || c.tp < 1) return false;
  return m.vocab % c.tp != 0 || (m.vocab / c.tp) % 8 != 0;  // 8 16-bit elements: 16 bytes
}

std::vector<Gemm> backwardGemms(const std::vector<Gemm>& forward) {
  std::vector<Gemm> backward;
  for (const Gemm& g : forward) {
    backward.push_back({g.m, g.n, g.k, g.count});  // dA = dC B^T
    backward.push_back({g.k, g.m, g.n, g.count});  // dB = A^T dC
  }
  return backward;
}

LayerTimes layerTimes(const ModelCard& m, const TrainConfig& c, const Cluster& cluster) {
  const double peak = peakFlops(cluster, c.precision), layerPeak = layerGemmPeakFlops(cluster, c.precision);
  const double memoryBandwidth = cluster.gpu.memoryBandwidthGBps * 1e9 * cluster.gpu.memoryEfficiency;
  KernelCounts kernels = kernelCounts(c.execution, c.flashAttention);
  const EagerExtra eagerExtra = eagerNormsAndRotary(m, c);
  kernels.forward += eagerExtra.kernels;
  kernels.backward += 2 * eagerExtra.kernels;
  LayerTimes t;
  if (m.architecture == Architecture::Given) {
    // A model given by its FLOPs: the whole model as one "layer", at the card's measured fraction
    // of peak (convolutions, norms and activations together).
    const double efficiency = m.givenEfficiency > 0 ? m.givenEfficiency : gemmEfficiency(cluster, 1024);
    t.forward = m.givenForwardFlopsPerSample * c.microBatch / (peak * efficiency);
    t.backward = 2 * t.forward;
    return t;
  }
  const double tokens = static_cast<double>(c.microBatch) * c.seq;
  const double h = m.hidden, a = m.attentionWidth(), kv = static_cast<double>(m.kvHeads) * m.headDim(), i = m.intermediate, tp = c.tp;
  const double v = activationValueBytes(c.precision);  // bytes of an activation value
  // The layer's projections at the layer GEMMs' peak (fp8: Transformer Engine's); attention and
  // the logits at the 16-bit (or fp32) one.
  auto gemmAt = [&](double flopsPeak, double k, double n) { return 2 * tokens * k * n / (flopsPeak * gemmEfficiency(cluster, std::min(k, n))); };
  // A linear layer, k inputs to n outputs: with memory-centric tiling, `tiles` GEMMs of n / tiles
  // outputs each (the same FLOPs at a narrower GEMM's efficiency).
  const double tiles = c.tiles;
  auto gemm = [&](double k, double n) { return tiles * gemmAt(layerPeak, k, n / tiles); };

  // One layer's forward on one tensor-parallel rank (an encoder-decoder's mean layer: its share of
  // a cross-attention's projections more, the same shapes).
  const double attentionBlocks = 1 + m.crossAttentionShare();
  const double projections = attentionBlocks * (gemm(h, (a + 2 * kv) / tp) + gemm(a / tp, h)) + gemm(h, (m.gatedMlp ? 2 : 1) * i / tp) +
                             gemm(i / tp, h);
  t.forwardGemms = {{tokens, h, (a + 2 * kv) / tp / tiles, attentionBlocks * tiles},
                    {tokens, a / tp, h / tiles, attentionBlocks * tiles},
                    {tokens, h, (m.gatedMlp ? 2 : 1) * i / tp / tiles, tiles},
                    {tokens, i / tp, h / tiles, tiles}};
  // Tiling's own traffic (TiledLinear): forward, each linear's tile outputs concatenated (its
  // output read and written); backward, the tiles' gradients of the shared input summed (tiles - 1
  // additions, two read and one written). And its kernels: a GEMM more per extra tile and the
  // concatenation forward, two GEMMs and an addition per extra tile backward.
  double tilingForwardBytes = 0, tilingBackwardBytes = 0;
  if (c.tiles > 1) {
    double outputs = 0, inputs = 0, linears = 0;  // per token, over the layer's linear modules
    for (const LinearModule& linear : linearModules(m, c.tp)) {
      const double times = linear.attention ? attentionBlocks : 1.0;
      outputs += times * linear.outputs;
      inputs += times * linear.inputs;
      linears += times;
    }
    tilingForwardBytes = 2 * v * tokens * outputs;
    tilingBackwardBytes = (tiles - 1) * 3 * v * tokens * inputs;
    kernels.forward += static_cast<int>(std::lround(linears)) * c.tiles;
    kernels.backward += static_cast<int>(std::lround(linears)) * 3 * (c.tiles - 1);
  }
  const double headsHere = static_cast<double>(m.heads) / tp * c.microBatch * attentionBlocks;
  t.forwardGemms.push_back({static_cast<double>(c.seq), static_cast<double>(m.headDim()), static_cast<double>(c.seq), headsHere});  // Q K^T
  t.forwardGemms.push_back({static_cast<double>(c.seq), static_cast<double>(c.seq), static_cast<double>(m.headDim()), headsHere});  // scores V
  const double attentionFlops = attentionFlopsPerToken(m, c.seq) * tokens / tp;
  double attention, attentionPasses = 0;  // the latter in bytes
  if (c.flashAttention) {
    // A fused kernel skips the masked half of the causal part.
    attention = attentionFlops * (1 - 0.5 * causalShare(m)) / (peak * cluster.gpu.flashAttentionEfficiency);
  } else {
    // Batched GEMMs QK^T and AV: (s x d)(d x s) per head, with d the head dimension. Their large
    // s x s outputs make them memory-bound rather than tile-bound, so they are priced by roofline:
    // the slower of their FLOPs at a large GEMM's efficiency and their bytes (inputs and the
    // scores, v bytes a value) at the memory bandwidth. Then the scores go through scale/mask,
    // softmax and dropout in memory (read and written by each: 6v bytes per score, 12 in 16-bit).
    const double scores = attentionBlocks * m.heads / tp * c.seq * tokens;
    const double gemmBytes = v * (2 * scores + attentionBlocks * 4.0 * tokens * a / tp);  // scores written and read, Q K V in
    attentionPasses = scores * 6 * v;
    attention = std::max(attentionFlops / (peak * gemmEfficiency(cluster, c.seq)), gemmBytes / memoryBandwidth) +
                attentionPasses / memoryBandwidth;
  }
  // Element-wise kernels read and write about what the layer stores for backward (Korthikanti's
  // accounting without the scores): twice those bytes.
  TrainConfig stored = c;
  stored.recompute = Recompute::None;
  stored.flashAttention = true;
  const double elementwise =
      (kernels.elementwiseTraffic * 2 * activationBytesPerLayer(m, stored) + eagerExtra.bytesPerToken * tokens) / memoryBandwidth;
  // Eager PyTorch under autocast keeps fp32 weights: each forward casts them to bf16 (4 bytes read,
  // 2 written) and each backward casts their bf16 gradients to fp32 (2 read, 4 written). Sharded
  // weights (ZeRO-3, FSDP) are cast on the shard before the gather: a 1/dp share, left out.
  const bool castsWeights = c.execution == Execution::Eager && c.precision == Precision::Mixed &&
                            c.sharding != StateSharding::Everything && c.sharding != StateSharding::EverythingWithinNode;
  const double casts = castsWeights ? 6.0 * m.layerParameters() / tp / memoryBandwidth : 0;
  // Fp8 (Transformer Engine): each of the four GEMMs quantizes its activation input (16-bit read,
  // fp8 written: 3 bytes an element; the attention and MLP inputs h wide, the output projection's
  // a/t, the down projection's i/t), forward; backward the same for the gradients. The weights'
  // fp8 copies are cast once a step (left out).
  const double fp8Casts = c.precision == Precision::Fp8 ? 3.0 * tokens * (attentionBlocks * (h + a / tp) + h + i / tp) / memoryBandwidth : 0.0;
  t.forward = projections + attention + elementwise + casts + fp8Casts + tilingForwardBytes / memoryBandwidth;
  t.forwardMemoryBytes = (elementwise + casts + fp8Casts) * memoryBandwidth + attentionPasses + tilingForwardBytes;
  t.attentionMemoryBytes = attentionPasses;
  // Backward: twice the forward's GEMMs (input and weight gradients); a fused attention
  // recomputes its scores (2.5x its forward); element-wise kernels about twice.
  const double attentionBackward = c.flashAttention ? 2.5 * attention : 2 * attention;
  t.backward = 2 * projections + attentionBackward + 2 * elementwise + casts + fp8Casts + tilingBackwardBytes / memoryBandwidth;
  t.forwardKernels = kernels.forward;
  t.backwardKernels = kernels.backward;
  if (c.recompute == Recompute::Full) t.recompute = t.forward, t.recomputeKernels = kernels.forward;
  if (c.recompute == Recompute::Selective && !c.flashAttention) t.recompute = attention, t.recomputeKernels = 5;
  // The output logits with their softmax and loss: a GEMM against the vocabulary (backward: two),
  // and the logits' memory traffic. Fused (Megatron-LM's vocab-parallel cross-entropy, llm.c): the
  // logits written, then read once by a softmax+loss kernel that writes their gradient in place:
  // v + 2v bytes per logit. Eager PyTorch: the logits written (v), upcast to fp32 in a 16-bit run
  // (read 2, write 4), log-softmax and the loss over fp32 (8); backward the same fp32 chain (8)
  // and the gradient cast back down (read 4, write 2): 16 and 14 bytes per logit in 16-bit, 12
  // and 8 in fp32.
  const double logits = tokens * m.vocab / tp;
  const bool eager = c.execution == Execution::Eager;
  const double casts16 = fp32States(c.precision) ? 0.0 : 6.0;
  const double logitForwardBytes = eager ? v + casts16 + 8 : v, logitBackwardBytes = eager ? 8 + casts16 : 2 * v;
  const double logitsGemm = gemmAt(peak, h, m.vocab / tp) * (unalignedVocabulary(m, c) ? cluster.gpu.unalignedGemmSlowdown : 1.0);
  t.logitsForward = logitsGemm + logits * logitForwardBytes / memoryBandwidth;
  t.logitsBackward = 2 * logitsGemm + logits * logitBackwardBytes / memoryBandwidth;
  t.logitsGemms = {{tokens, h, m.vocab / tp}};
  t.logitsForwardBytes = logits * logitForwardBytes;
  t.logitsBackwardBytes = logits * logitBackwardBytes;
  return t;
}

MicroBatchCompute microBatchCompute(const ModelCard& m, const TrainConfig& c, const Cluster& cluster) {
  const LayerTimes layer = layerTimes(m, c, cluster);
  MicroBatchCompute t;
  if (m.architecture == Architecture::Given) {
    t.forward = layer.forward;
    t.backward = layer.backward;
    return t;
  }
  // The slowest stage: the last with its layers and the output logits, or (an uneven split, whose
  // ends are lighter) a stage with one layer more and no logits.
  const double last = stageLayers(m.layers, c.pp, c.pp - 1), most = maxStageLayers(m.layers, c.pp);
  auto recomputing = [&](double layers) {  // of a stage's layers, those that run layer.recompute
    return c.recompute == Recompute::Full ? recomputedLayers(c, static_cast<int>(layers)) : layers;
  };
  const bool logitsStage = recomputing(last) * layer.recompute + last * (layer.forward + layer.backward) + layer.logitsForward +
                               layer.logitsBackward >=
                           most * (layer.forward + layer.backward) + recomputing(most) * layer.recompute;
  const double layers = logitsStage ? last : most;
  t.forward = layers * layer.forward + (logitsStage ? layer.logitsForward : 0.0);
  t.backward = layers * layer.backward + (logitsStage ? layer.logitsBackward : 0.0);
  t.recompute = recomputing(layers) * layer.recompute;
  return t;
}

}  // namespace cclab::sim
