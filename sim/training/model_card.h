#pragma once

// A model as the simulator sees it: read from a Hugging Face config.json (or a model card in the
// same shape, models/cards/), with the parameter count computed exactly from the architecture.
// Non-transformers (ResNet-50) give their parameters and FLOPs per sample directly.
//
// An encoder-decoder (T5) is one stack of `layers` layers, the encoder's and then the decoder's,
// of which `crossAttentionLayers` (the decoder's) also attend to the encoder's output. The step
// prices them as that many layers of their mean shape: a layer's parameters, FLOPs and activations
// are the encoder layer's plus the cross-attention's share, crossAttentionLayers / layers.

#include <cstdint>
#include <string>

#include "results/results.h"

namespace cclab::sim {

enum class Architecture {
  Decoder,         // GPT-2/GPT-3 (learned positions, LayerNorm, biases) or LLaMA (RoPE, RMSNorm, no biases)
  Encoder,         // BERT: learned positions and token types, post-LayerNorm, pooler
  EncoderDecoder,  // T5: relative position biases, RMS norms, no biases; the decoder's layers add cross-attention
  Given,    // parameters and FLOPs per sample given directly (ResNet-50)
};

struct ModelCard {
  std::string name;
  std::string modelType;  // config.json model_type
  Architecture architecture = Architecture::Decoder;
  int hidden = 0;
  int layers = 0;
  int heads = 0;
  int kvHeads = 0;          // grouped-query attention: fewer key/value heads
  int headDimension = 0;    // per head, where the config gives it (T5's d_kv, Gemma's head_dim); 0: hidden / heads
  int crossAttentionLayers = 0;  // encoder-decoder: the decoder's layers, of the `layers`
  int relativeBuckets = 0;  // T5's relative position buckets (a buckets x heads table per stack)
  bool dropout = true;      // trained with dropout (GPT-2/GPT-3, BERT, T5); LLaMA without
  // Its eager (Hugging Face) code runs the attention's softmax in fp32 whatever the run's precision:
  // T5's softmax(scores.float()), LLaMA's softmax(..., dtype=torch.float32). GPT-2's and minGPT's
  // run in the scores' type (fp32 only under autocast, which FSDP's mixed precision is not).
  bool softmaxInFp32 = false;
  int intermediate = 0;     // MLP width
  int vocab = 0;
  int maxPositions = 0;
  int typeVocab = 0;        // BERT token types
  bool tiedEmbeddings = true;
  bool gatedMlp = false;    // SwiGLU/GeGLU: three MLP matrices instead of two
  bool biases = true;       // linear layers carry biases
  bool layerNorm = true;    // LayerNorm (weight + bias) or RMSNorm (weight)
  bool learnedPositions = true;
  // Given architecture only.
  std::uint64_t givenParameters = 0;
  double givenForwardFlopsPerSample = 0;
  double givenTrainSamples = 0;  // the usual training budget in samples (0: none given)
  double givenEfficiency = 0;    // fraction of the dense peak its training reaches (0: the GEMM curve's at 1024)

  int headDim() const { return headDimension > 0 ? headDimension : hidden / heads; }
  // The width of the attention's queries and output: heads x head dimension (the hidden size
  // unless the config sets the head dimension apart).
  int attentionWidth() const { return heads * headDim(); }
  // The share of layers with a cross-attention (0 but for an encoder-decoder).
  double crossAttentionShare() const { return layers > 0 ? static_cast<double>(crossAttentionLayers) / layers : 0.0; }
  // Exact parameter count.
  std::uint64_t parameters() const;
  // Parameters of one layer, the mean over the stack (an encoder-decoder's decoder layers carry a
  // cross-attention more), and outside the layers (embeddings, final norms, head).
  double layerParameters() const;
  std::uint64_t embeddingParameters() const;
};

// A card name (models/cards/<name>.json) or a path to a config.json. Throws InputError naming the
// file and the missing or bad field.
ModelCard loadModel(const std::string& cardOrPath);
// A vocabulary padded up to a multiple of `multiple`, as the frameworks pad it for aligned GEMMs
// (Megatron-LM, llm.c, nanoGPT): the padded rows are parameters too.
inline int paddedVocabulary(int vocab, int multiple) { return (vocab + multiple - 1) / multiple * multiple; }
ModelCard modelFromJson(const results::Json& config, const std::string& source, const std::string& name);
std::vector<std::string> modelCardNames();

}  // namespace cclab::sim
