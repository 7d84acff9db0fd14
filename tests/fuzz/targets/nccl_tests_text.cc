// nccl-tests (and ccbench) text output: results::importNcclTestsText.
#include "results/results.h"
#include "tests/fuzz/fuzz_target.h"

CCLAB_FUZZ_TARGET(nccl_tests_text) {
  cclab::fuzz::expectRefusalOrSuccess([&] { cclab::results::importNcclTestsText(input, "fuzz.txt"); });
}
