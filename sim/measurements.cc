#include "sim/measurements.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <utility>

#include <fmt/format.h>

#include "collectives/algorithms/algorithms.h"
#include "collectives/errors.h"

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

Launches parseLaunches(const std::string& text, const std::string& flag) {
  if (text == "fastest") return Launches::Fastest;
  if (text == "median") return Launches::Median;
  throw InputError(fmt::format("{} must be fastest or median (got '{}')", flag, text));
}

std::vector<Measurement> loadMeasurements(const std::vector<std::string>& paths, Launches launches) {
  std::vector<Measurement> all;
  for (const auto& path : paths) {
    const results::Import imported = results::readResults(path);
    const int nodes = std::max(1, imported.file.run.nodes);
    const int perDevice = ranksPerDevice(imported.file.run);
    const int emulatedPerNode = results::emulatedRanksPerNode(imported.file.run);
    const int copies = results::cclabCopiesPerMessage(imported.file.run);
    const bool yield = results::cclabWaitingRanksYield(imported.file.run);
    for (const auto& row : imported.file.rows) {
      if (row.backend == results::kPredictedBackend) continue;
      if (row.sizeBytes == 0) continue;
      all.push_back(Measurement{row, std::min(nodes, std::max(1, row.nranks)), std::min(perDevice, std::max(1, row.nranks)),
                                emulatedPerNode, row.backend == kOwnBackend ? copies : 0, row.backend == kOwnBackend && yield, path});
      if (row.backend == kOwnBackend) {
        all.back().singleCopyBytes = results::cclabSingleCopyBytes(imported.file.run, row.collective);
        all.back().packedBytes = results::cclabPackedBytes(imported.file.run);
        all.back().hostCopyPieceBytes = results::cclabHostCopyPieceBytes(imported.file.run);
        all.back().sharedHostBuffers = results::cclabSharedHostBuffers(imported.file.run);
      }
    }
  }
  return mergeRepeats(all, launches);
}

std::vector<Measurement> mergeRepeats(const std::vector<Measurement>& rows, Launches launches) {
  using Key = std::tuple<std::string, std::string, int, int, int, int, bool, std::uint64_t, int, int, int, int, int, bool, double, double, double, bool>;
  auto keyOf = [](const Measurement& m) {
    const results::Row& r = m.row;
    return Key{r.backend, r.algo, static_cast<int>(r.collective), static_cast<int>(r.dtype), r.op ? static_cast<int>(*r.op) : -1,
               r.root, r.inPlace, r.sizeBytes, r.nranks, m.nodes, m.perDevice, m.emulatedPerNode, m.copiesPerMessage,
               m.waitingRanksYield, m.singleCopyBytes, m.packedBytes, m.hostCopyPieceBytes, m.sharedHostBuffers};  // the transport, the host copies and buffers
  };
  std::map<Key, std::vector<const Measurement*>> same;
  std::vector<Key> order;
  for (const Measurement& m : rows) {
    auto& group = same[keyOf(m)];
    if (group.empty()) order.push_back(keyOf(m));
    group.push_back(&m);
  }
  std::vector<Measurement> merged;
  merged.reserve(order.size());
  for (const Key& key : order) {
    std::vector<const Measurement*> group = same[key];
    std::sort(group.begin(), group.end(), [](const Measurement* a, const Measurement* b) { return a->row.timeUs < b->row.timeUs; });
    const std::size_t n = group.size();
    const bool fastest = launches == Launches::Fastest;
    Measurement m = *group[fastest ? 0 : (n - 1) / 2];
    const double time = fastest || n % 2 == 1 ? m.row.timeUs : (m.row.timeUs + group[n / 2]->row.timeUs) / 2;
    if (time > 0 && m.row.timeUs > 0) {
      m.row.algbwGBps *= m.row.timeUs / time;
      m.row.busbwGBps *= m.row.timeUs / time;
    }
    m.row.timeUs = time;
    m.source = same[key].front()->source;
    m.repeats = static_cast<int>(n);
    merged.push_back(std::move(m));
  }
  return merged;
}

std::string repeatsNote(const std::vector<Measurement>& rows, Launches launches) {
  int fewest = 0, most = 0;
  for (const Measurement& m : rows) {
    fewest = fewest == 0 ? m.repeats : std::min(fewest, m.repeats);
    most = std::max(most, m.repeats);
  }
  if (most <= 1) return "";
  const std::string which = launches == Launches::Fastest ? ", each the fastest of " : ", each the median of ";
  return which + (fewest == most ? std::to_string(most) : std::to_string(fewest) + " to " + std::to_string(most)) + " launches";
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
