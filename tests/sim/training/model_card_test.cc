// Model cards: exact parameter counts from the architecture, real Hugging Face config.json files,
// clear errors for configs that lack what the simulator needs.

#include <gtest/gtest.h>

#include "collectives/errors.h"
#include "sim/training/model_card.h"

namespace cclab::sim {
namespace {

std::string data(const std::string& file) { return std::string(CCLAB_TEST_DATA) + "/training/" + file; }

TEST(ModelCard, ParameterCountsAreExact) {
  // Hugging Face's num_parameters() for the transformers (BERT with its pooler), torchvision's for
  // ResNet-50; GPT-3's from its paper's shape (96 x 12288, 96 heads, 50257-token vocabulary, 2048 positions);
  // GPT-3 1.3B and 2.7B as scripts/torch_step.py's model counted them on the H100 (padded vocabulary
  // there: 47 rows of the embedding more).
  const std::vector<std::pair<std::string, std::uint64_t>> expected = {
      {"gpt2", 124'439'808},           {"gpt2-medium", 354'823'168},     {"gpt2-large", 774'030'080},
      {"gpt2-xl", 1'557'611'200},      {"gpt3-175b", 174'604'259'328},   {"bert-large", 335'141'888},
      {"llama2-7b", 6'738'415'616},    {"llama2-13b", 13'015'864'320},   {"llama2-70b", 68'976'648'192},
      {"llama3-8b", 8'030'261'248},    {"llama3-70b", 70'553'706'496},   {"llama3-405b", 405'853'388'800},
      {"resnet50", 25'557'032},        {"gpt3-1.3b", 1'315'723'264},     {"gpt3-2.7b", 2'651'553'280},
      {"t5-11b", 11'307'321'344},      {"t5-v1_1-xl", 2'849'757'184},    {"t5-v1_1-xxl", 11'135'332'352},
  };
  for (const auto& [card, count] : expected) EXPECT_EQ(loadModel(card).parameters(), count) << card;
  EXPECT_EQ(modelCardNames().size(), expected.size());
}

TEST(ModelCard, ReadsDownloadedHuggingFaceConfigs) {
  const ModelCard llama = loadModel(data("llama-2-7b-hf-config.json"));
  EXPECT_EQ(llama.parameters(), 6'738'415'616u);
  EXPECT_TRUE(llama.gatedMlp);
  EXPECT_FALSE(llama.tiedEmbeddings);
  EXPECT_FALSE(llama.biases);
  EXPECT_EQ(llama.kvHeads, 32);
  const ModelCard gpt2 = loadModel(data("gpt2-config.json"));
  EXPECT_EQ(gpt2.parameters(), 124'439'808u);  // tied embeddings: the head reuses the token embedding
  EXPECT_TRUE(gpt2.tiedEmbeddings);
  EXPECT_EQ(gpt2.intermediate, 4 * 768);       // GPT-2 configs leave n_inner null: 4h
  // Untying GPT-2's head adds exactly one vocabulary x hidden matrix.
  results::Json untied = results::Json::parse(R"({"model_type":"gpt2","n_embd":768,"n_layer":12,"n_head":12,
      "n_positions":1024,"vocab_size":50257,"tie_word_embeddings":false})");
  EXPECT_EQ(modelFromJson(untied, "inline", "untied").parameters(), 124'439'808u + 50257u * 768u);
}

TEST(ModelCard, GroupedQueryAttentionShrinksKeyValueProjections) {
  const ModelCard l3 = loadModel("llama3-8b");
  EXPECT_EQ(l3.kvHeads, 8);
  // Per layer: q, o (h x h), k, v (h x kv), three MLP matrices, two RMSNorm weights.
  const std::uint64_t h = 4096, kv = 1024, i = 14336;
  EXPECT_EQ(l3.layerParameters(), 2 * h * h + 2 * h * kv + 3 * h * i + 2 * h);
}

// T5: an encoder of num_layers layers and a decoder of as many, each decoder layer with a
// cross-attention block; attention 128 heads of d_kv 128 = 16,384 wide on a 1,024-wide model; RMS
// norms and no biases; a relative position table per stack; tied embeddings.
TEST(ModelCard, EncoderDecoderCountsItsCrossAttention) {
  // t5-small as Hugging Face counts it (num_parameters(): 60,506,624, the figure its model card quotes).
  const results::Json small = results::Json::parse(R"({"model_type":"t5","d_model":512,"d_kv":64,"d_ff":2048,"num_heads":8,
      "num_layers":6,"vocab_size":32128,"n_positions":512,"feed_forward_proj":"relu"})");
  const ModelCard t5 = modelFromJson(small, "inline", "t5-small");
  EXPECT_EQ(t5.parameters(), 60'506'624u);
  EXPECT_EQ(t5.architecture, Architecture::EncoderDecoder);
  EXPECT_EQ(t5.layers, 12);
  EXPECT_EQ(t5.crossAttentionLayers, 6);
  // By hand: embedding 32128 x 512; an encoder layer 4 x 512^2 + 2 x 512 x 2048 + 2 norms; a
  // decoder layer one attention block (4 x 512^2) and one norm more; two final norms; two tables of
  // 32 buckets x 8 heads.
  const std::uint64_t encoder = 4 * 512 * 512 + 2 * 512 * 2048 + 2 * 512, decoder = encoder + 4 * 512 * 512 + 512;
  EXPECT_EQ(t5.parameters(), 32128u * 512 + 6 * encoder + 6 * decoder + 2 * 512 + 2 * 32 * 8);
  EXPECT_DOUBLE_EQ(t5.layerParameters(), (encoder + decoder) / 2.0);  // the mean layer the step prices
  // t5-11b: attention wider than the model (128 x 128 = 16,384 against 1,024).
  const ModelCard big = loadModel("t5-11b");
  EXPECT_EQ(big.attentionWidth(), 16384);
  EXPECT_EQ(big.headDim(), 128);
  EXPECT_FALSE(big.gatedMlp);
  // T5 v1.1's gated GELU and a decoder of its own depth.
  const results::Json v11 = results::Json::parse(R"({"model_type":"t5","d_model":512,"d_kv":64,"d_ff":1024,"num_heads":6,
      "num_layers":8,"num_decoder_layers":4,"vocab_size":32128,"feed_forward_proj":"gated-gelu","tie_word_embeddings":false})");
  const ModelCard gated = modelFromJson(v11, "inline", "t5-v1_1");
  EXPECT_TRUE(gated.gatedMlp);
  EXPECT_EQ(gated.layers, 12);
  EXPECT_EQ(gated.crossAttentionLayers, 4);
}

TEST(ModelCard, MissingOrBadFieldsAreNamed) {
  try {
    loadModel(data("missing-layers-config.json"));
    FAIL() << "a config without a layer count was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("num_hidden_layers"), std::string::npos) << e.what();
  }
  EXPECT_THROW(loadModel("no-such-card"), InputError);
  results::Json badHeads = results::Json::parse(R"({"model_type":"llama","hidden_size":4096,"num_hidden_layers":2,
      "num_attention_heads":30,"intermediate_size":11008,"vocab_size":32000})");
  EXPECT_THROW(modelFromJson(badHeads, "inline", "bad"), InputError);
}

}  // namespace
}  // namespace cclab::sim
