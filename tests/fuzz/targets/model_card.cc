// A model card or Hugging Face config.json: sim::modelFromJson, then its parameter count.
#include "results/json_reader.h"
#include "sim/training/model_card.h"
#include "tests/fuzz/fuzz_target.h"

CCLAB_FUZZ_TARGET(model_card) {
  using namespace cclab;
  fuzz::expectRefusalOrSuccess([&] {
    const sim::ModelCard model = sim::modelFromJson(results::parseJson(input, "config.json"), "config.json", "fuzz");
    (void)model.parameters();
  });
}
