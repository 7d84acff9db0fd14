#include "sim/training/model_card.h"

#include <algorithm>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "results/json_reader.h"
#include "collectives/errors.h"
#include "sim/descriptions.h"

namespace cclab::sim {
namespace {

using results::JsonReader;

// Limits that keep every count the models compute within 64 bits (a layer's parameters are about
// 3 x hidden x intermediate, times the layers): larger than any model trained.
constexpr int kMaxLayers = 1 << 16;
constexpr int kMaxWidth = 1 << 22;  // hidden, intermediate, heads, positions
constexpr int kMaxVocab = 1 << 24;

// The first of several names a field goes by (GPT-2 configs say n_embd where LLaMA says
// hidden_size). Throws naming all of them when none is there.
int intField(const JsonReader& in, std::initializer_list<const char*> names, std::optional<int> fallback = std::nullopt,
             int max = kMaxWidth) {
  for (const char* n : names) {
    if (in.has(n)) return in.within<int>(n, 1, max);
  }
  if (fallback) return *fallback;
  std::string all;
  for (const char* n : names) all += fmt::format("{}{}", all.empty() ? "" : " or ", n);
  in.fail(*names.begin(), fmt::format("missing (a transformer config needs {})", all));
}

std::string stringField(const JsonReader& in, std::initializer_list<const char*> names, const std::string& fallback) {
  for (const char* n : names) {
    if (in.has(n)) return in.get<std::string>(n);
  }
  return fallback;
}

bool isLlamaLike(const std::string& type) {
  return type == "llama" || type == "mistral" || type == "qwen2" || type == "gemma";
}

bool isT5Like(const std::string& type) { return type == "t5" || type == "mt5"; }

// The model types the shape rules below know (docs/training.md); any other is refused rather than
// priced as something it is not.
bool isKnownType(const std::string& type) {
  return type == "gpt2" || type == "bert" || type == "resnet" || isLlamaLike(type) || isT5Like(type);
}

// T5's relative position biases: a table of buckets x heads in the first layer of each stack.
constexpr int kDefaultRelativeBuckets = 32;

}  // namespace

ModelCard modelFromJson(const results::Json& config, const std::string& source, const std::string& name) {
  if (!config.is_object()) throw InputError(fmt::format("{}: a model config must be a JSON object", source));
  const JsonReader in(config, source);
  ModelCard m;
  m.name = in.get<std::string>("name", name);
  m.modelType = stringField(in, {"model_type"}, "");
  if (m.modelType.empty()) in.fail("model_type", "missing (e.g. \"gpt2\", \"llama\", \"bert\", \"resnet\")");
  if (in.has("num_parameters")) {  // a model given by its totals: any type
    m.architecture = Architecture::Given;
    const double parameters = in.positive("num_parameters");
    if (parameters > 1e15) in.fail("num_parameters", fmt::format("{:g} is more than any model (at most 1e15)", parameters));
    m.givenParameters = static_cast<std::uint64_t>(parameters);
    m.givenForwardFlopsPerSample = in.positive("forward_flops_per_sample");
    m.givenTrainSamples = in.positive("train_samples", 0.0);
    m.givenEfficiency = in.positive("training_efficiency", 0.0);
    if (m.givenEfficiency > 1) in.fail("training_efficiency", fmt::format("must be in (0, 1] (got {})", m.givenEfficiency));
    return m;
  }
  if (m.modelType == "resnet") in.fail("num_parameters", "missing (a ResNet is given by num_parameters and forward_flops_per_sample)");
  if (!isKnownType(m.modelType)) {
    in.fail("model_type", fmt::format("unknown type '{}' (known: gpt2, llama, mistral, qwen2, gemma, bert, t5; or give num_parameters and "
                                      "forward_flops_per_sample for any model)", m.modelType));
  }
  const bool t5 = isT5Like(m.modelType);
  m.architecture = m.modelType == "bert" ? Architecture::Encoder : t5 ? Architecture::EncoderDecoder : Architecture::Decoder;
  m.hidden = intField(in, {"hidden_size", "n_embd", "d_model"}, std::nullopt, kMaxWidth / 4);
  m.layers = intField(in, {"num_hidden_layers", "n_layer", "num_layers"}, std::nullopt, kMaxLayers);
  if (t5) {  // num_layers is the encoder's; the decoder has as many unless num_decoder_layers says
    m.crossAttentionLayers = intField(in, {"num_decoder_layers"}, m.layers, kMaxLayers);
    m.layers += m.crossAttentionLayers;
  }
  m.heads = intField(in, {"num_attention_heads", "n_head", "num_heads"});
  m.kvHeads = intField(in, {"num_key_value_heads"}, m.heads);
  m.headDimension = intField(in, {"head_dim", "d_kv"}, 0);
  m.intermediate = intField(in, {"intermediate_size", "n_inner", "ffn_dim", "d_ff"}, 4 * m.hidden);
  m.vocab = intField(in, {"vocab_size"}, std::nullopt, kMaxVocab);
  m.maxPositions = intField(in, {"max_position_embeddings", "n_positions"}, 0);
  if (m.headDimension == 0 && m.hidden % m.heads != 0) {
    in.fail("num_attention_heads", fmt::format("{} heads do not divide hidden size {}", m.heads, m.hidden));
  }
  if (m.heads % m.kvHeads != 0) in.fail("num_key_value_heads", fmt::format("{} key/value heads do not divide {} heads", m.kvHeads, m.heads));

  const bool llama = isLlamaLike(m.modelType);
  // T5's feed_forward_proj: "relu" (the original T5) or "gated-gelu" (T5 v1.1, mT5).
  const std::string activation = stringField(in, {"hidden_act", "activation_function", "feed_forward_proj"}, llama ? "silu" : "gelu");
  m.gatedMlp = llama || activation.find("glu") != std::string::npos || activation.rfind("gated", 0) == 0;
  m.biases = !llama && !t5 ? true : in.get<bool>("attention_bias", false);
  m.layerNorm = !llama && !t5;  // T5's norm scales by the root mean square: a weight, no bias
  m.learnedPositions = !llama && !t5;
  m.dropout = t5 ? in.get<double>("dropout_rate", 0.1) > 0 : !llama;
  if (t5) m.relativeBuckets = intField(in, {"relative_attention_num_buckets"}, kDefaultRelativeBuckets);
  m.softmaxInFp32 = t5 || llama;
  if (m.learnedPositions && m.maxPositions == 0) in.fail("max_position_embeddings", "missing (learned position embeddings need it)");
  m.tiedEmbeddings = in.get<bool>("tie_word_embeddings", true);  // Hugging Face's default
  if (m.architecture == Architecture::Encoder) m.typeVocab = intField(in, {"type_vocab_size"}, 2);
  return m;
}

namespace {

// One attention block: q is h x a (a: heads x head dimension), o is a x h, k and v are h x (kv
// heads x head dimension); its norm.
std::uint64_t attentionParameters(const ModelCard& m) {
  const std::uint64_t h = static_cast<std::uint64_t>(m.hidden), a = static_cast<std::uint64_t>(m.attentionWidth());
  const std::uint64_t kv = static_cast<std::uint64_t>(m.kvHeads) * static_cast<std::uint64_t>(m.headDim());
  std::uint64_t p = 2 * h * a + 2 * h * kv;
  if (m.biases) p += a + 2 * kv + h;
  return p + (m.layerNorm ? 2 * h : h);
}

// A layer without cross-attention: attention, the MLP (up and gate h x i, down i x h), their norms.
std::uint64_t selfLayerParameters(const ModelCard& m) {
  const std::uint64_t h = static_cast<std::uint64_t>(m.hidden), i = static_cast<std::uint64_t>(m.intermediate);
  std::uint64_t mlp = (m.gatedMlp ? 3 : 2) * h * i;
  if (m.biases) mlp += (m.gatedMlp ? 2 : 1) * i + h;
  return attentionParameters(m) + mlp + (m.layerNorm ? 2 * h : h);
}

}  // namespace

double ModelCard::layerParameters() const {
  if (architecture == Architecture::Given) return 0;
  // A decoder layer of an encoder-decoder adds a cross-attention block of the same shape.
  return static_cast<double>(selfLayerParameters(*this)) + crossAttentionShare() * static_cast<double>(attentionParameters(*this));
}

std::uint64_t ModelCard::embeddingParameters() const {
  if (architecture == Architecture::Given) return 0;
  const std::uint64_t h = static_cast<std::uint64_t>(hidden), v = static_cast<std::uint64_t>(vocab);
  std::uint64_t p = v * h;
  if (learnedPositions) p += static_cast<std::uint64_t>(maxPositions) * h;
  if (architecture == Architecture::Encoder) {
    p += static_cast<std::uint64_t>(typeVocab) * h + 2 * h;  // token types, embedding LayerNorm
    p += h * h + h;                                          // pooler
  } else if (architecture == Architecture::EncoderDecoder) {
    p += 2 * h;                                                                      // each stack's final norm
    p += 2 * static_cast<std::uint64_t>(relativeBuckets) * static_cast<std::uint64_t>(heads);  // each stack's position biases
    if (!tiedEmbeddings) p += v * h;
  } else {
    p += layerNorm ? 2 * h : h;  // final norm
    if (!tiedEmbeddings) p += v * h;  // a separate output head
  }
  return p;
}

std::uint64_t ModelCard::parameters() const {
  if (architecture == Architecture::Given) return givenParameters;
  return static_cast<std::uint64_t>(layers) * selfLayerParameters(*this) +
         static_cast<std::uint64_t>(crossAttentionLayers) * attentionParameters(*this) + embeddingParameters();
}

std::vector<std::string> modelCardNames() { return descriptionNames("cards"); }

ModelCard loadModel(const std::string& cardOrPath) {
  const Description d = readDescription(cardOrPath, "cards", "model card", "or give a path to a config.json");
  return modelFromJson(d.doc, d.path.string(), d.path.stem().string());
}

}  // namespace cclab::sim
