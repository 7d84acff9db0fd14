// nccl-tests -J output: results::parseJson then results::importNcclTestsJson.
#include "results/json_reader.h"
#include "results/results.h"
#include "tests/fuzz/fuzz_target.h"

CCLAB_FUZZ_TARGET(nccl_tests_json) {
  cclab::fuzz::expectRefusalOrSuccess([&] { cclab::results::importNcclTestsJson(cclab::results::parseJson(input, "fuzz.json"), "fuzz.json"); });
}
