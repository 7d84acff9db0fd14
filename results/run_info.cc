#include <algorithm>
#include <cstdint>
#include <ctime>
#include <set>

#include "results/results.h"

namespace cclab::results {

RunInfo startRun(std::string tool, std::string version, std::string gitCommit, std::vector<std::string> command) {
  RunInfo run;
  run.tool = std::move(tool);
  run.toolVersion = std::move(version);
  run.gitCommit = std::move(gitCommit);
  run.command = std::move(command);
  run.startTime = utcNow();
  return run;
}

std::string utcNow() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

void summarizeRanks(RunInfo& run) {
  std::set<std::string> hosts;
  for (const auto& r : run.ranks) hosts.insert(r.host);
  run.nranks = static_cast<int>(run.ranks.size());
  run.nodes = static_cast<int>(hosts.size());
  if (run.ranks.empty()) return;
  const RankPlacement& first = run.ranks.front();
  run.host = first.host;
  if (first.device >= 0) run.gpuModel = first.deviceName;
  else if (first.core >= 0) run.cpuModel = first.deviceName;
}

Json toJson(const PredictionConfig& c) {
  return {{"cluster", c.cluster}, {"nodes", c.nodes}, {"gpus_per_node", c.gpusPerNode}, {"algo", c.algo}, {"implementation", c.implementation}};
}

std::optional<PredictionConfig> predictionConfig(const RunInfo& run) {
  if (run.tool != "ccsim" || !run.config.is_object()) return std::nullopt;
  const Json& j = run.config;
  auto text = [&](const char* key, const char* fallback) {
    return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : std::string(fallback);
  };
  auto whole = [&](const char* key) { return j.contains(key) && j[key].is_number_integer() ? j[key].get<int>() : 0; };
  PredictionConfig c;
  c.cluster = text("cluster", "");
  c.nodes = whole("nodes");
  c.gpusPerNode = whole("gpus_per_node");
  c.algo = text("algo", "auto");  // ccsim's default
  c.implementation = text("implementation", "");
  return c;
}

namespace {

// The transport ccbench recorded for cclab's rows ("shm", "mpi"); "" where it recorded none.
std::string cclabTransport(const RunInfo& run) {
  if (run.tool != "ccbench" || !run.config.is_object()) return "";
  const auto transport = run.config.find(kTransportKey);
  return transport != run.config.end() && transport->is_string() ? transport->get<std::string>() : "";
}

}  // namespace

int cclabCopiesPerMessage(const RunInfo& run) {
  const std::string transport = cclabTransport(run);
  if (transport == "mpi") return 1;
  return transport == "shm" ? 2 : 0;
}

double cclabSingleCopyBytes(const RunInfo& run, Collective collective) {
  if (cclabTransport(run) != "shm") return 0;
  const char* key = hasRoot(collective) && run.config.contains(kShmSingleCopyRootedKey) ? kShmSingleCopyRootedKey : kShmSingleCopyKey;
  const auto singleCopy = run.config.find(key);
  return singleCopy != run.config.end() && singleCopy->is_number() ? std::max(0.0, singleCopy->get<double>()) : 0;
}

double cclabPackedBytes(const RunInfo& run) {
  if (cclabTransport(run) != "shm") return 0;
  const auto packed = run.config.find(kShmPackedKey);
  if (packed != run.config.end() && packed->is_number() && packed->get<double>() >= 0) return packed->get<double>();
  if (run.startTime.empty()) return -1;
  return run.startTime >= kShmPackedSince ? 24 : 0;  // ISO 8601 in UTC: ordered as text
}

bool cclabWaitingRanksYield(const RunInfo& run) { return cclabTransport(run) == "shm"; }

double cclabHostCopyPieceBytes(const RunInfo& run) {
  if (cclabTransport(run).empty()) return -1;
  const auto piece = run.config.find(kHostCopyPieceKey);
  return piece != run.config.end() && piece->is_number() && piece->get<double>() >= 0 ? piece->get<double>() : -1;
}

bool cclabSharedHostBuffers(const RunInfo& run) {
  if (cclabTransport(run).empty()) return false;
  const auto buffers = run.config.find(kHostBuffersKey);
  return buffers != run.config.end() && buffers->is_string() && buffers->get<std::string>() == "shared";
}

int emulatedRanksPerNode(const RunInfo& run) {
  if (run.tool != "ccbench" || !run.config.is_object()) return 0;
  const auto it = run.config.find(kRanksPerNodeKey);
  if (it == run.config.end() || !it->is_number_integer()) return 0;
  const auto k = it->get<std::int64_t>();
  return k > 0 && k <= kMaxRanks ? static_cast<int>(k) : 0;
}

}  // namespace cclab::results
