// A DeepSpeed ds_config.json: sim::applyDeepSpeedConfig onto a config.
#include "results/json_reader.h"
#include "sim/training/train_config.h"
#include "tests/fuzz/fuzz_target.h"

CCLAB_FUZZ_TARGET(deepspeed) {
  using namespace cclab;
  fuzz::expectRefusalOrSuccess([&] {
    sim::TrainConfig config;
    sim::applyDeepSpeedConfig(results::parseJson(input, "ds_config.json"), "ds_config.json", config);
  });
}
