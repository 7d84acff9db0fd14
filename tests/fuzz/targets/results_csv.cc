// cclab's results CSV: results::rowsFromCsv, and the rows written back read again alike.
#include <stdexcept>

#include "results/results.h"
#include "tests/fuzz/fuzz_target.h"

CCLAB_FUZZ_TARGET(results_csv) {
  using namespace cclab::results;
  cclab::fuzz::expectRefusalOrSuccess([&] {
    const std::vector<Row> rows = rowsFromCsv(input, "fuzz.csv");
    if (rowsFromCsv(toCsv(rows), "again.csv").size() != rows.size()) throw std::logic_error("results_csv: rows written back read to other rows");
  });
}
