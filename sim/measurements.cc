#include "sim/measurements.h"

#include <algorithm>

namespace cclab::sim {

std::vector<Measurement> loadMeasurements(const std::vector<std::string>& paths) {
  std::vector<Measurement> all;
  for (const auto& path : paths) {
    const results::Import imported = results::readResults(path);
    const int nodes = std::max(1, imported.file.run.nodes);
    for (const auto& row : imported.file.rows) {
      if (row.backend == results::kPredictedBackend) continue;
      if (row.sizeBytes == 0) continue;
      all.push_back(Measurement{row, std::min(nodes, std::max(1, row.nranks)), path});
    }
  }
  return all;
}

std::vector<Measurement> selectMeasurements(const std::vector<Measurement>& all, const std::vector<int>& ranks, double minBytes) {
  std::vector<Measurement> kept;
  for (const auto& m : all) {
    const bool rankOk = ranks.empty() || std::find(ranks.begin(), ranks.end(), m.row.nranks) != ranks.end();
    if (rankOk && static_cast<double>(m.row.sizeBytes) >= minBytes) kept.push_back(m);
  }
  return kept;
}

}  // namespace cclab::sim
