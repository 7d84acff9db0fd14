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
