// cclab's results schema: results::parseJson then results::fromJson, and the file written back
// (toJson, dumped with invalid UTF-8 replaced) must read again to the same rows.
#include "results/json_reader.h"
#include "results/results.h"
#include "tests/fuzz/fuzz_target.h"

CCLAB_FUZZ_TARGET(results_json) {
  using namespace cclab::results;
  cclab::fuzz::expectRefusalOrSuccess([&] {
    const ResultsFile file = fromJson(parseJson(input, "fuzz.json"), "fuzz.json");
    const ResultsFile again = fromJson(parseJson(dumpJson(toJson(file)), "again.json"), "again.json");
    if (again.rows.size() != file.rows.size()) throw std::logic_error("results_json: a file written back reads to other rows");
  });
}
