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

// The model types the shape rules below know (docs/training.md); any other is refused rather than
// priced as something it is not.
bool isKnownType(const std::string& type) { return type == "gpt2" || type == "bert" || type == "resnet" || isLlamaLike(type); }

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
    in.fail("model_type", fmt::format("unknown type '{}' (known: gpt2, llama, mistral, qwen2, gemma, bert; or give num_parameters and "
                                      "forward_flops_per_sample for any model)", m.modelType));
  }
  m.architecture = m.modelType == "bert" ? Architecture::Encoder : Architecture::Decoder;
  m.hidden = intField(in, {"hidden_size", "n_embd", "d_model"}, std::nullopt, kMaxWidth / 4);
  m.layers = intField(in, {"num_hidden_layers", "n_layer", "num_layers"}, std::nullopt, kMaxLayers);
  m.heads = intField(in, {"num_attention_heads", "n_head"});
  m.kvHeads = intField(in, {"num_key_value_heads"}, m.heads);
  m.intermediate = intField(in, {"intermediate_size", "n_inner", "ffn_dim"}, 4 * m.hidden);
  m.vocab = intField(in, {"vocab_size"}, std::nullopt, kMaxVocab);
  m.maxPositions = intField(in, {"max_position_embeddings", "n_positions"}, 0);
  if (m.hidden % m.heads != 0) in.fail("num_attention_heads", fmt::format("{} heads do not divide hidden size {}", m.heads, m.hidden));
  if (m.heads % m.kvHeads != 0) in.fail("num_key_value_heads", fmt::format("{} key/value heads do not divide {} heads", m.kvHeads, m.heads));

  const bool llama = isLlamaLike(m.modelType);
  const std::string activation = stringField(in, {"hidden_act", "activation_function"}, llama ? "silu" : "gelu");
  m.gatedMlp = llama || activation.find("glu") != std::string::npos;
  m.biases = !llama || in.get<bool>("attention_bias", false);
  m.layerNorm = !llama;
  m.learnedPositions = !llama;
  if (m.learnedPositions && m.maxPositions == 0) in.fail("max_position_embeddings", "missing (learned position embeddings need it)");
  m.tiedEmbeddings = in.get<bool>("tie_word_embeddings", true);  // Hugging Face's default
  if (m.architecture == Architecture::Encoder) m.typeVocab = intField(in, {"type_vocab_size"}, 2);
  return m;
}

std::uint64_t ModelCard::layerParameters() const {
  if (architecture == Architecture::Given) return 0;
  const std::uint64_t h = static_cast<std::uint64_t>(hidden), i = static_cast<std::uint64_t>(intermediate);
  const std::uint64_t kv = static_cast<std::uint64_t>(kvHeads) * static_cast<std::uint64_t>(headDim());
  // Attention: q and o are h x h, k and v are h x (kv heads x head dim).
  std::uint64_t attention = 2 * h * h + 2 * h * kv;
  if (biases) attention += h + 2 * kv + h;
  // MLP: up (and gate) h x i, down i x h.
  std::uint64_t mlp = (gatedMlp ? 3 : 2) * h * i;
  if (biases) mlp += (gatedMlp ? 2 : 1) * i + h;
  const std::uint64_t norms = 2 * (layerNorm ? 2 * h : h);
  return attention + mlp + norms;
}

std::uint64_t ModelCard::embeddingParameters() const {
  if (architecture == Architecture::Given) return 0;
  const std::uint64_t h = static_cast<std::uint64_t>(hidden), v = static_cast<std::uint64_t>(vocab);
  std::uint64_t p = v * h;
  if (learnedPositions) p += static_cast<std::uint64_t>(maxPositions) * h;
  if (architecture == Architecture::Encoder) {
    p += static_cast<std::uint64_t>(typeVocab) * h + 2 * h;  // token types, embedding LayerNorm
    p += h * h + h;                                          // pooler
  } else {
    p += layerNorm ? 2 * h : h;  // final norm
    if (!tiedEmbeddings) p += v * h;  // a separate output head
  }
  return p;
}

std::uint64_t ModelCard::parameters() const {
  if (architecture == Architecture::Given) return givenParameters;
  return static_cast<std::uint64_t>(layers) * layerParameters() + embeddingParameters();
}

std::vector<std::string> modelCardNames() { return descriptionNames("cards"); }

ModelCard loadModel(const std::string& cardOrPath) {
  const Description d = readDescription(cardOrPath, "cards", "model card", "or give a path to a config.json");
  return modelFromJson(d.doc, d.path.string(), d.path.stem().string());
}

}  // namespace cclab::sim
