#include "bench/tuner.h"

#include <algorithm>

#include <filesystem>
#include <limits>

#include <fmt/format.h>

#include "collectives/algorithms/algorithms.h"
#include "collectives/errors.h"
#include "sim/descriptions.h"

namespace cclab::bench {
namespace {

// The shape the simulator prices: hosts as nodes. Emulated nodes (--ranks-per-node) change only
// how the hierarchical algorithm groups ranks, not the links between them.
sim::Cluster reshaped(sim::Cluster cluster, int ranks, int ranksPerHost) {
  const int perHost = ranksPerHost > 0 && ranks % ranksPerHost == 0 ? ranksPerHost : ranks;
  const int hosts = ranks / perHost;
  if (hosts > 1 && cluster.nics.perNode == 0) {
    throw InputError(fmt::format("--algo auto: cluster '{}' has no NICs, so it cannot price ranks on {} hosts (give --cluster a description with a network)",
                                 cluster.name, hosts));
  }
  sim::reshape(cluster, hosts, perHost);
  return cluster;
}

// A preset's shipped calibration (over shared memory on the CPU, that transport's own first: the
// algorithms' costs there are not their costs over MPI point-to-point), else the preset itself.
// `why` says how the preset was chosen, for the header line.
TuningCluster shippedFor(const std::string& preset, const std::string& why, bool onGpu, const std::string& transport) {
  const std::filesystem::path dir = sim::modelsDirectory() / "calibrations";
  const bool shm = transport == "shm" && !onGpu;
  if (shm && std::filesystem::exists(dir / (preset + "-shm.json"))) {
    return {sim::loadCluster((dir / (preset + "-shm.json")).string()),
            fmt::format("models/calibrations/{}-shm.json (calibrated for {} over shared memory)", preset, why)};
  }
  if (std::filesystem::exists(dir / (preset + ".json"))) {
    return {sim::loadCluster((dir / (preset + ".json")).string()),
            fmt::format("models/calibrations/{}.json (calibrated for {}{})", preset, why, shm ? " over MPI point-to-point: none shipped for shm" : "")};
  }
  return {sim::loadCluster(preset), fmt::format("preset {} ({}; not calibrated)", preset, why)};
}

}  // namespace

TuningCluster tuningCluster(const std::string& clusterOption, const sim::DeviceIdentity& device, bool onGpu,
                            const std::string& transport) {
  if (!clusterOption.empty()) return {sim::loadCluster(clusterOption), clusterOption};
  const std::string preset = sim::presetForDevice(device);
  if (!preset.empty()) return shippedFor(preset, fmt::format("'{}'", device.name), onGpu, transport);
  // No preset names the device: the closest of its kind. On the CPU a shared-memory preset with as
  // many cores if there is one (a VM of the same size runs the same transport and the same
  // oversubscription), then one of the same vendor (the device name's first word, "AMD" or
  // "Intel(R)", among its `matches`: its memcpy and single-copy thresholds are the nearer), and its
  // calibration: a fitted machine prices the algorithms' relative costs closer than described
  // constants do.
  const std::string vendor = device.name.substr(0, device.name.find(' '));
  auto sameVendor = [&](const sim::Cluster& c) {
    if (vendor.empty() || !c.document.contains("matches")) return false;
    for (const auto& m : c.document["matches"]) {
      if (m.is_string() && m.get<std::string>().rfind(vendor, 0) == 0) return true;
    }
    return false;
  };
  std::string closest;
  int closestScore = -1;
  for (const std::string& name : sim::presetNames()) {
    const sim::Cluster c = sim::loadCluster(name);
    if ((c.intra.kind == sim::FabricKind::SharedMemory) == onGpu) continue;
    const int score = onGpu ? 0 : 2 * (c.intra.cores == device.cpuCores) + sameVendor(c);
    if (score > closestScore) closest = name, closestScore = score;  // ties: the first by name
    if (onGpu) break;
  }
  if (closest.empty()) throw InputError("--algo auto: no cluster preset to tune on (give --cluster)");
  TuningCluster tuning =
      shippedFor(closest, fmt::format("preset {}'s machine, the closest: no preset matches '{}'", closest, device.name), onGpu, transport);
  // Its cores are this machine's: whether ranks outnumber the cores (and wait by yielding them) is
  // a fact of the host, and a 2-core preset would price 4 ranks on 16 cores as sharing two.
  // scripts/describe_cpu_host.sh writes a description of the machine itself, to calibrate.
  if (!onGpu && device.cpuCores > 0 && tuning.cluster.intra.cores != device.cpuCores) {
    tuning.source += fmt::format(", with this machine's {} cores for its {}", device.cpuCores, tuning.cluster.intra.cores);
    tuning.cluster.intra.cores = device.cpuCores;
  }
  return tuning;
}

SingleCopy describedSingleCopy(const std::string& clusterOption, const sim::DeviceIdentity& device) {
  const TuningCluster machine = tuningCluster(clusterOption, device, false, "shm");
  const auto bytes = static_cast<std::size_t>(machine.cluster.intra.singleCopyBytes);
  const auto rooted = static_cast<std::size_t>(machine.cluster.intra.singleCopyRootedBytes);
  return {bytes, rooted, bytes > 0 || rooted > 0 ? machine.cluster.name : std::string()};
}

CopyPiece describedCopyPiece(const std::string& clusterOption, const sim::DeviceIdentity& device) {
  const TuningCluster machine = tuningCluster(clusterOption, device, false, "shm");
  const double bytes = machine.cluster.intra.copyPieceBytes;
  if (bytes == static_cast<double>(HostDevice::kDefaultCopyPieceBytes)) return {};
  return {static_cast<std::size_t>(bytes), machine.cluster.name};
}

LastCache describedLastCache(const std::string& clusterOption, const sim::DeviceIdentity& device) {
  // The description's own sizes, not a calibration's: a fit takes the capacity its rows behave as.
  const std::string preset = clusterOption.empty() ? sim::presetForDevice(device) : clusterOption;
  if (preset.empty()) return {};
  const sim::Cluster machine = sim::loadCluster(preset);
  double bytes = 0;
  for (const sim::CacheLevel& level : machine.intra.caches) bytes = std::max(bytes, level.bytes);
  return {static_cast<std::size_t>(bytes), bytes > 0 ? machine.name : std::string()};
}

SimulatorChooser::SimulatorChooser(const sim::Cluster& cluster, int ranks, int ranksPerHost, int ranksPerDevice)
    : cluster_(reshaped(cluster, ranks, ranksPerHost)),
      predictor_(cluster_),
      ranks_(ranks),
      nodes_(cluster_.nodes),
      ranksPerDevice_(ranksPerDevice) {}

double SimulatorChooser::predictUs(Collective collective, std::string_view algorithm, std::size_t bytes, bool inPlace) const {
  sim::Query q;
  q.collective = collective;
  q.algo = algorithm;
  q.bytes = static_cast<double>(bytes);
  q.ranks = ranks_;
  q.nodes = nodes_;
  q.inPlace = inPlace;
  q.implementation = kOwnBackend;
  q.perDevice = ranksPerDevice_;
  return predictor_.predict(q).timeUs;
}

const Algorithm& SimulatorChooser::choose(Collective collective, std::size_t bytes, bool inPlace) {
  const Key key{collective, bytes, inPlace};
  if (last_ && last_->first == key) return *last_->second;
  if (auto it = picked_.find(key); it != picked_.end()) {
    last_.emplace(key, it->second);
    return *it->second;
  }
  // Where the cluster's calibration measured some of this collective's algorithms, auto chooses
  // among those: another is priced with the pooled link constants, not a measurement of its own.
  auto calibrated = [&](std::string_view algo) {
    return std::any_of(cluster_.calibrations.begin(), cluster_.calibrations.end(), [&](const sim::Calibration& c) {
      return c.implementation == kOwnBackend && c.collective == collective && (algo.empty() || c.algo == algo);
    });
  };
  const bool measuredOnly = calibrated("");
  const Algorithm* best = nullptr;
  double bestUs = std::numeric_limits<double>::infinity();
  for (const Algorithm& a : allAlgorithms()) {
    if (a.collective != collective) continue;
    // On one node the hierarchical algorithm is the ring with extra steps (NCCL's tuner does not
    // offer it there either); its calibration comes from emulated nodes, a layout auto never runs.
    if (a.name == "hier" && nodes_ == 1) continue;
    if (measuredOnly && !calibrated(a.name)) continue;
    try {
      const double us = predictUs(collective, a.name, bytes, inPlace);
      if (us < bestUs) {
        best = &a;
        bestUs = us;
      }
    } catch (const InputError&) {
      // an algorithm this cluster cannot run (a plan that needs what it lacks): not a candidate
    }
  }
  if (best == nullptr) {
    throw InputError(fmt::format("--algo auto: cluster '{}' prices none of cclab's {} algorithms", cluster_.name, name(collective)));
  }
  picked_.emplace(key, best);
  last_.emplace(key, best);
  return *best;
}

}  // namespace cclab::bench
