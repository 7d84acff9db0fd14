#include "sim/measurements.h"

#include <algorithm>
#include <map>
#include <utility>

namespace cclab::sim {
namespace {

// The most ranks placed on one GPU (by host and bus id, else device index); 1 without GPUs.
int ranksPerDevice(const results::RunInfo& run) {
  std::map<std::pair<std::string, std::string>, int> perDevice;
  int most = 1;
  for (const auto& r : run.ranks) {
    if (r.device < 0) continue;
    const std::string device = r.busId.empty() ? std::to_string(r.device) : r.busId;
    most = std::max(most, ++perDevice[{r.host, device}]);
  }
  return most;
}

}  // namespace

std::vector<Measurement> loadMeasurements(const std::vector<std::string>& paths) {
  std::vector<Measurement> all;
  for (const auto& path : paths) {
    const results::Import imported = results::readResults(path);
    const int nodes = std::max(1, imported.file.run.nodes);
    const int perDevice = ranksPerDevice(imported.file.run);
    const int emulatedPerNode = results::emulatedRanksPerNode(imported.file.run);
    for (const auto& row : imported.file.rows) {
      if (row.backend == results::kPredictedBackend) continue;
      if (row.sizeBytes == 0) continue;
      all.push_back(Measurement{row, std::min(nodes, std::max(1, row.nranks)), std::min(perDevice, std::max(1, row.nranks)),
                                emulatedPerNode, path});
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
