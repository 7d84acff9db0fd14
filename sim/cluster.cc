#include "sim/cluster.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "results/error_summary.h"
#include "results/json_reader.h"
#include "collectives/errors.h"
#include "collectives/names.h"
#include "sim/descriptions.h"

namespace cclab::sim {
namespace {

using results::JsonReader;

constexpr Named<FabricKind> kFabricKinds[] = {
    {"nvswitch", FabricKind::NVSwitch}, {"nvlink", FabricKind::NVLink}, {"pcie", FabricKind::PCIe}, {"shared_memory", FabricKind::SharedMemory}};
constexpr Named<NetworkTopology> kTopologies[] = {{"fat-tree", NetworkTopology::FatTree}, {"rail-optimized", NetworkTopology::RailOptimized}};
constexpr Named<LinkClass> kLinks[] = {{"local", LinkClass::Local}, {"intra", LinkClass::Intra}, {"inter", LinkClass::Inter}};

template <class Table>
auto pick(const JsonReader& in, const std::string& field, const Table& table) {
  const std::string value = in.get<std::string>(field);
  if (auto found = findIn(table, value)) return *found;
  in.fail(field, fmt::format("unknown value '{}' (valid: {})", value, namesOf(table)));
}

// Node and GPU counts: the simulator models up to 16,384 GPUs.
constexpr int kMaxGpus = 16384;

int wholePositive(const JsonReader& in, const std::string& field, int fallback = -1) {
  if (fallback >= 0 && !in.has(field)) return fallback;
  const std::int64_t value = in.get<std::int64_t>(field);
  if (value < 1) in.fail(field, fmt::format("must be at least 1 (got {})", value));
  if (value > kMaxGpus) in.fail(field, fmt::format("must be at most {}: the simulator models up to {} GPUs (got {})", kMaxGpus, kMaxGpus, value));
  return static_cast<int>(value);
}

double fraction(const JsonReader& in, const std::string& field, double fallback) {
  if (!in.has(field)) return fallback;
  const double value = in.get<double>(field);
  if (value <= 0 || value > 1) in.fail(field, fmt::format("must be in (0, 1] (got {})", value));
  return value;
}

GpuSpec readGpu(const JsonReader& in) {
  GpuSpec gpu;
  gpu.name = in.get<std::string>("name");
  if (in.has("peak_tflops")) {
    const JsonReader peaks = in.child("peak_tflops");
    for (const auto& [precision, value] : peaks.json().items()) {
      if (precision == "source") continue;
      gpu.peakTflops[precision] = peaks.positive(precision);
    }
  }
  gpu.memoryBytes = in.positive("memory_bytes");
  gpu.memoryBandwidthGBps = in.positive("memory_bandwidth_gbps");
  gpu.launchLatencyUs = in.positive("launch_latency_us", 0.0, true);
  gpu.copyLatencyUs = in.positive("copy_latency_us", 0.0, true);
  gpu.copyGBps = in.positive("copy_gbps", 0.0, true);
  if (in.has("gemm_efficiency")) {
    const Json& curve = in.array("gemm_efficiency");
    if (curve.empty()) in.fail("gemm_efficiency", "expected a list of {\"dim\", \"efficiency\"} points");
    for (std::size_t i = 0; i < curve.size(); ++i) {
      const JsonReader point = in.element("gemm_efficiency", i);
      const double dim = point.positive("dim"), efficiency = point.positive("efficiency");
      if (efficiency > 1) point.fail("efficiency", fmt::format("must be in (0, 1] (got {})", efficiency));
      if (!gpu.gemmEfficiency.empty() && dim <= gpu.gemmEfficiency.back().first) point.fail("dim", "points must grow in dim");
      gpu.gemmEfficiency.emplace_back(dim, efficiency);
    }
  }
  gpu.flashAttentionEfficiency = fraction(in, "flash_attention_efficiency", 0.5);
  gpu.memoryEfficiency = fraction(in, "memory_efficiency", 0.8);
  if (in.has("unaligned_gemm_slowdown")) {
    gpu.unalignedGemmSlowdown = in.positive("unaligned_gemm_slowdown");
    if (gpu.unalignedGemmSlowdown < 1 || gpu.unalignedGemmSlowdown > 100) {
      in.fail("unaligned_gemm_slowdown", fmt::format("must be from 1 to 100 (got {})", gpu.unalignedGemmSlowdown));
    }
  }
  if (in.has("step")) {
    const JsonReader step = in.child("step");
    auto factor = [&](const char* field, double max) {
      const double value = step.positive(field, 0.0, /*allowZero=*/true);
      if (value > max) step.fail(field, fmt::format("must be at most {} (got {})", max, value));
      return value;
    };
    gpu.step.computeSlowdown = factor("compute_slowdown", 10);
    gpu.step.commSlowdown = factor("comm_slowdown", 10);
    gpu.step.kernelLaunchUs = factor("kernel_launch_us", 1000);
    gpu.step.eagerDispatchUs = factor("eager_dispatch_us", 1000);
    gpu.step.allocatorOverhead = factor("allocator_overhead", 10);
    gpu.step.oversubscriptionSlowdown = factor("oversubscription_slowdown", 10);
  }
  return gpu;
}

IntraNode readIntra(const JsonReader& in) {
  IntraNode intra;
  intra.kind = pick(in, "kind", kFabricKinds);
  intra.bandwidthGBps = in.positive("bandwidth_gbps");
  intra.latencyUs = in.positive("latency_us", true);
  intra.efficiency = fraction(in, "efficiency", 1.0);
  intra.nvls = in.get<bool>("nvls", false);
  if (intra.nvls) {
    if (intra.kind != FabricKind::NVSwitch) in.fail("nvls", "needs kind \"nvswitch\" (the reduction happens in the switch)");
    intra.nvlsEfficiency = fraction(in, "nvls_efficiency", intra.efficiency);
  }
  if (intra.kind == FabricKind::PCIe) {
    intra.gpusPerSwitch = wholePositive(in, "gpus_per_switch");
    intra.switchUplinkGBps = in.positive("switch_uplink_gbps");
  }
  intra.oversubscribedLatencyUs = in.positive("oversubscribed_latency_us", 0.0, true);
  if (intra.kind == FabricKind::SharedMemory) {
    intra.cores = wholePositive(in, "cores");
    intra.eagerLimitBytes = in.positive("eager_limit_bytes", 0.0, true);
    intra.rendezvousLatencyUs = in.positive("rendezvous_latency_us", 0.0, true);
    intra.copiesPerMessage = static_cast<int>(in.get<std::int64_t>("copies_per_message", 1));
    if (intra.copiesPerMessage != 1 && intra.copiesPerMessage != 2) in.fail("copies_per_message", "must be 1 or 2");
    intra.waitingRanksYield = in.get<bool>("waiting_ranks_yield", false);
    intra.waitingRanksTakeTurns = in.get<bool>("waiting_ranks_take_turns", false);
    intra.packedMaxBytes = in.positive("packed_max_bytes", 0.0, true);
    if (in.has("packed_oversubscribed_latency_us")) intra.packedOversubscribedLatencyUs = in.positive("packed_oversubscribed_latency_us", true);
    intra.singleCopyBytes = in.positive("single_copy_bytes", 0.0, true);
    intra.singleCopyRootedBytes = in.positive("single_copy_rooted_bytes", intra.singleCopyBytes, true);
    intra.copyPieceBytes = in.positive("copy_piece_bytes", intra.copyPieceBytes, true);
    if (intra.copyPieceBytes > 0x1p40 || intra.copyPieceBytes != std::floor(intra.copyPieceBytes)) {
      in.fail("copy_piece_bytes", "must be a whole number of bytes up to 1 TiB");
    }
    if (in.has("caches")) {
      for (std::size_t i = 0; i < in.array("caches").size(); ++i) {
        const JsonReader level = in.element("caches", i);
        intra.caches.push_back(CacheLevel{level.positive("bytes"), level.get<bool>("per_core", false), level.positive("bandwidth_gbps")});
      }
    }
  }
  return intra;
}

Nics readNics(const JsonReader& in) {
  Nics nics;
  nics.perNode = in.within<int>("per_node", 0, kMaxGpus, 0);
  if (nics.perNode == 0) return nics;
  nics.gpusPerNic = wholePositive(in, "gpus_per_nic", 1);
  nics.bandwidthGBps = in.positive("bandwidth_gbps");
  nics.latencyUs = in.positive("latency_us", true);
  nics.efficiency = fraction(in, "efficiency", 1.0);
  return nics;
}

Calibration readCalibration(const JsonReader& in) {
  Calibration c;
  c.implementation = in.get<std::string>("implementation");
  try {
    c.collective = parseCollective(in.get<std::string>("collective"));
  } catch (const InputError& e) {
    in.fail("collective", e.what());
  }
  c.algo = in.get<std::string>("algo");
  c.inPlace = in.get<bool>("in_place", false);
  c.link = pick(in, "link", kLinks);
  c.latencyUs = in.positive("latency_us", true);
  c.oversubscribedLatencyUs = in.positive("oversubscribed_latency_us", 0.0, true);
  c.packedOversubscribedLatencyUs = in.positive("packed_oversubscribed_latency_us", c.oversubscribedLatencyUs, true);
  c.rendezvousLatencyUs = in.positive("rendezvous_latency_us", 0.0, true);
  c.callOverheadUs = in.positive("call_overhead_us", 0.0, true);
  c.bandwidthGBps = in.positive("bandwidth_gbps");
  if (in.has("cache_bandwidth_gbps")) {
    for (const auto& b : in.array("cache_bandwidth_gbps")) {
      if (!b.is_number() || !std::isfinite(b.get<double>()) || b.get<double>() <= 0) in.fail("cache_bandwidth_gbps", "expected positive numbers");
      c.cacheBandwidthGBps.push_back(b.get<double>());
    }
  }
  c.freshBandwidthGBps = in.positive("fresh_bandwidth_gbps", 0.0, true);
  if (in.has("fit")) {
    const JsonReader fit = in.child("fit");
    c.fit.rows = fit.within<int>("rows", 0, std::numeric_limits<int>::max(), 0);
    c.fit.r2 = fit.get<double>("r2", 0.0);
    c.fit.medianAbsErrorPct = fit.get<double>(results::medianAbsErrorKeyIn(fit.json()), 0.0);
    c.fit.maxAbsErrorPct = fit.get<double>(results::maxAbsErrorKeyIn(fit.json()), 0.0);
    if (fit.has("ranks")) {
      for (const auto& r : fit.array("ranks")) {
        if (!r.is_number_integer() || r.get<std::int64_t>() < 1 || r.get<std::int64_t>() > results::kMaxRanks) {
          fit.fail("ranks", fmt::format("expected rank counts, found {}", results::quoted(r)));
        }
        c.fit.ranks.push_back(r.get<int>());
      }
    }
  }
  return c;
}

Json calibrationToJson(const Calibration& c) {
  Json j = {{"implementation", c.implementation},
            {"collective", std::string(name(c.collective))},
            {"algo", c.algo},
            {"in_place", c.inPlace},
            {"link", std::string(nameIn(kLinks, c.link))},
            {"latency_us", c.latencyUs},
            {"bandwidth_gbps", c.bandwidthGBps}};
  if (c.oversubscribedLatencyUs > 0) j["oversubscribed_latency_us"] = c.oversubscribedLatencyUs;
  if (c.packedOversubscribedLatencyUs != c.oversubscribedLatencyUs) j["packed_oversubscribed_latency_us"] = c.packedOversubscribedLatencyUs;
  if (c.rendezvousLatencyUs > 0) j["rendezvous_latency_us"] = c.rendezvousLatencyUs;
  if (c.callOverheadUs > 0) j["call_overhead_us"] = c.callOverheadUs;
  if (!c.cacheBandwidthGBps.empty()) j["cache_bandwidth_gbps"] = c.cacheBandwidthGBps;
  if (c.freshBandwidthGBps > 0) j["fresh_bandwidth_gbps"] = c.freshBandwidthGBps;
  j["fit"] = {{"rows", c.fit.rows},
              {"r2", c.fit.r2},
              {std::string(results::kMedianAbsErrorKey), c.fit.medianAbsErrorPct},
              {std::string(results::kMaxAbsErrorKey), c.fit.maxAbsErrorPct},
              {"ranks", c.fit.ranks}};
  return j;
}

}  // namespace

std::string_view name(LinkClass link) { return nameIn(kLinks, link); }

Cluster clusterFromJson(const Json& given, const std::string& source) {
  if (!given.is_object()) throw InputError(fmt::format("{}: a cluster description must be a JSON object", source));
  Json doc = given;
  if (doc.contains("gpu") && doc["gpu"].is_string()) {
    // A GPU named from models/gpus/: its description goes inline, so the document is complete.
    const std::string gpu = doc["gpu"].get<std::string>();
    try {
      doc["gpu"] = readDescription(gpu, "gpus", "GPU", "or describe it inline as an object").doc;
    } catch (const InputError& e) {
      throw InputError(fmt::format("{}: gpu: {}", source, e.what()));
    }
    if (!doc["gpu"].is_object()) throw InputError(fmt::format("models/gpus/{}.json: a GPU description must be a JSON object", gpu));
  }
  const JsonReader in(doc, source);
  Cluster c;
  c.document = doc;
  c.name = in.get<std::string>("name");
  c.description = in.get<std::string>("description", "");
  c.nodes = wholePositive(in, "nodes");
  c.gpusPerNode = wholePositive(in, "gpus_per_node");
  c.gpu = readGpu(in.child("gpu"));
  c.intra = readIntra(in.child("intra_node"));
  if (in.has("nics")) c.nics = readNics(in.child("nics"));
  if (in.has("network")) {
    const JsonReader net = in.child("network");
    c.network.topology = pick(net, "topology", kTopologies);
    c.network.oversubscription = net.get<double>("oversubscription", 1.0);
    if (c.network.oversubscription > 1e6) net.fail("oversubscription", fmt::format("{} is not a ratio a network has", c.network.oversubscription));
    if (c.network.oversubscription < 1) net.fail("oversubscription", fmt::format("must be 1 or more (got {})", c.network.oversubscription));
  }
  if (in.has("host")) {
    const JsonReader host = in.child("host");
    c.host.memoryBytes = host.positive("memory_bytes", 0.0);
    c.host.memoryBandwidthGBps = host.positive("memory_bandwidth_gbps", 0.0);
    c.host.memoryEfficiency = fraction(host, "memory_efficiency", kCpuOptimizerMemoryEfficiency);
    c.host.pcieBandwidthGBps = host.positive("pcie_bandwidth_gbps", 0.0);
    c.host.pcieNodeBandwidthGBps = host.positive("pcie_node_bandwidth_gbps", 0.0);
    if (host.has("pcie_switch_gpus")) {
      c.host.pcieSwitchGpus = host.within<int>("pcie_switch_gpus", 1, c.gpusPerNode);
      if (c.host.pcieNodeBandwidthGBps <= 0) host.fail("pcie_switch_gpus", "needs pcie_node_bandwidth_gbps (what the uplinks carry together)");
      if (c.gpusPerNode % c.host.pcieSwitchGpus != 0) {
        host.fail("pcie_switch_gpus", fmt::format("{} does not divide the node's {} GPUs", c.host.pcieSwitchGpus, c.gpusPerNode));
      }
      c.host.pcieSwitchBandwidthGBps = c.host.pcieNodeBandwidthGBps * c.host.pcieSwitchGpus / c.gpusPerNode;
    }
    c.host.nvmeBandwidthGBps = host.positive("nvme_bandwidth_gbps", 0.0);
  }
  c.costPerGpuHourUsd = in.positive("cost_per_gpu_hour_usd", 0.0, true);
  if (c.nodes > 1 && c.nics.perNode == 0) in.fail("nics", fmt::format("{} nodes need NICs between them (nics.per_node is 0)", c.nodes));
  if (in.has("calibration")) {
    for (std::size_t i = 0; i < in.array("calibration").size(); ++i) c.calibrations.push_back(readCalibration(in.element("calibration", i)));
  }
  return c;
}

Json toJson(const Cluster& cluster) {
  // Start from the document read (keeping its sources and anything else in it) and write back
  // every number the simulator uses, so a calibrated cluster is complete.
  Json doc = cluster.document;
  doc["name"] = cluster.name;
  doc["nodes"] = cluster.nodes;
  doc["gpus_per_node"] = cluster.gpusPerNode;
  Json& gpu = doc["gpu"];
  gpu["memory_bandwidth_gbps"] = cluster.gpu.memoryBandwidthGBps;
  gpu["launch_latency_us"] = cluster.gpu.launchLatencyUs;
  if (cluster.gpu.copyLatencyUs > 0) gpu["copy_latency_us"] = cluster.gpu.copyLatencyUs;
  if (cluster.gpu.copyGBps > 0) gpu["copy_gbps"] = cluster.gpu.copyGBps;
  const GpuSpec::Step& step = cluster.gpu.step;
  if (step.computeSlowdown > 0 || step.commSlowdown > 0 || step.kernelLaunchUs > 0 || step.eagerDispatchUs > 0 || step.allocatorOverhead > 0 ||
      step.oversubscriptionSlowdown > 0) {
    Json& knobs = gpu["step"];
    knobs["compute_slowdown"] = step.computeSlowdown;
    knobs["comm_slowdown"] = step.commSlowdown;
    knobs["kernel_launch_us"] = step.kernelLaunchUs;
    knobs["eager_dispatch_us"] = step.eagerDispatchUs;
    knobs["allocator_overhead"] = step.allocatorOverhead;
    if (step.oversubscriptionSlowdown > 0) knobs["oversubscription_slowdown"] = step.oversubscriptionSlowdown;
  }
  Json& intra = doc["intra_node"];
  intra["bandwidth_gbps"] = cluster.intra.bandwidthGBps;
  intra["latency_us"] = cluster.intra.latencyUs;
  intra["efficiency"] = cluster.intra.efficiency;
  if (cluster.intra.kind == FabricKind::PCIe) intra["switch_uplink_gbps"] = cluster.intra.switchUplinkGBps;
  if (cluster.intra.kind == FabricKind::SharedMemory || cluster.intra.oversubscribedLatencyUs > 0) {
    intra["oversubscribed_latency_us"] = cluster.intra.oversubscribedLatencyUs;
  }
  if (cluster.intra.kind == FabricKind::SharedMemory) {
    if (cluster.intra.eagerLimitBytes > 0) intra["rendezvous_latency_us"] = cluster.intra.rendezvousLatencyUs;
    if (cluster.intra.copiesPerMessage != 1) intra["copies_per_message"] = cluster.intra.copiesPerMessage;
    if (cluster.intra.singleCopyBytes > 0 || intra.contains("single_copy_bytes")) {
      intra["single_copy_bytes"] = static_cast<std::int64_t>(cluster.intra.singleCopyBytes);
    }
    if (cluster.intra.singleCopyRootedBytes != cluster.intra.singleCopyBytes || intra.contains("single_copy_rooted_bytes")) {
      intra["single_copy_rooted_bytes"] = static_cast<std::int64_t>(cluster.intra.singleCopyRootedBytes);
    }
    if (cluster.intra.copyPieceBytes != static_cast<double>(HostDevice::kDefaultCopyPieceBytes) || intra.contains("copy_piece_bytes")) {
      intra["copy_piece_bytes"] = static_cast<std::int64_t>(cluster.intra.copyPieceBytes);
    }
    if (cluster.intra.waitingRanksYield) intra["waiting_ranks_yield"] = true;
    if (cluster.intra.waitingRanksTakeTurns) intra["waiting_ranks_take_turns"] = true;
    if (cluster.intra.packedMaxBytes > 0 || intra.contains("packed_max_bytes")) {
      intra["packed_max_bytes"] = static_cast<std::int64_t>(cluster.intra.packedMaxBytes);
    }
    if (cluster.intra.packedOversubscribedLatencyUs >= 0 && cluster.intra.packedOversubscribedLatencyUs != cluster.intra.oversubscribedLatencyUs) {
      intra["packed_oversubscribed_latency_us"] = cluster.intra.packedOversubscribedLatencyUs;
    } else {
      intra.erase("packed_oversubscribed_latency_us");  // absent: the oversubscribed latency
    }
    for (std::size_t i = 0; i < cluster.intra.caches.size() && i < intra["caches"].size(); ++i) {
      intra["caches"][i]["bandwidth_gbps"] = cluster.intra.caches[i].bandwidthGBps;
      Json& level = intra["caches"][i];
      const double described = level.value("bytes", 0.0);
      if (cluster.intra.caches[i].bytes != described) {  // ccsim calibrate fits the capacity too
        level["capacity_source"] = fmt::format("ccsim calibrate: the capacity the measured rows behave as, fitted; {} bytes described",
                                               static_cast<std::int64_t>(described));
        level["bytes"] = static_cast<std::int64_t>(cluster.intra.caches[i].bytes);
      }
    }
  }
  if (cluster.nics.perNode > 0) {
    Json& nics = doc["nics"];
    nics["per_node"] = cluster.nics.perNode;
    nics["bandwidth_gbps"] = cluster.nics.bandwidthGBps;
    nics["latency_us"] = cluster.nics.latencyUs;
    nics["efficiency"] = cluster.nics.efficiency;
  }
  Json list = Json::array();
  for (const auto& c : cluster.calibrations) list.push_back(calibrationToJson(c));
  if (!list.empty()) doc["calibration"] = list;
  else doc.erase("calibration");
  return doc;
}

void reshape(Cluster& cluster, std::optional<int> nodes, std::optional<int> gpusPerNode) {
  if (nodes && *nodes < 1) throw InputError(fmt::format("--nodes must be at least 1 (got {})", *nodes));
  if (gpusPerNode && *gpusPerNode < 1) throw InputError(fmt::format("--gpus-per-node must be at least 1 (got {})", *gpusPerNode));
  if (nodes) cluster.nodes = *nodes;
  if (gpusPerNode) {
    cluster.gpusPerNode = *gpusPerNode;
    if (cluster.nics.perNode > 0) cluster.nics.perNode = (cluster.gpusPerNode + cluster.nics.gpusPerNic - 1) / cluster.nics.gpusPerNic;
  }
  if (static_cast<long long>(cluster.nodes) * cluster.gpusPerNode > kMaxGpus) {
    throw InputError(fmt::format("{} nodes x {} GPUs is more than the {} GPUs the simulator models", cluster.nodes,
                                 cluster.gpusPerNode, kMaxGpus));
  }
  if (cluster.nodes > 1 && cluster.nics.perNode == 0) {
    throw InputError(fmt::format("cluster '{}' has no NICs, so it cannot have {} nodes", cluster.name, cluster.nodes));
  }
}

std::vector<std::string> presetNames() { return descriptionNames("clusters"); }

std::string presetForDevice(const DeviceIdentity& device) {
  std::string best;
  std::size_t bestScore = 0;
  if (device.name.empty()) return best;
  for (const auto& preset : presetNames()) {
    const Json doc = readDescription(preset, "clusters", "cluster preset", "").doc;
    if (!doc.contains("matches") || !doc["matches"].is_array()) continue;
    if (doc.contains("match_cpu_cores") && doc["match_cpu_cores"] != device.cpuCores) continue;
    const bool namesFamily = doc.contains("match_cpu_family");
    if (namesFamily && doc["match_cpu_family"] != device.cpuFamily) continue;
    for (const auto& m : doc["matches"]) {
      if (!m.is_string()) continue;
      const std::string s = m.get<std::string>();
      // Twice the length, plus one for a family: a longer name wins, and of two as long the one
      // that also names the family.
      const std::size_t score = 2 * s.size() + (namesFamily ? 1 : 0);
      if (!s.empty() && device.name.find(s) != std::string::npos && score > bestScore) {
        best = preset;
        bestScore = score;
      }
    }
  }
  return best;
}

Cluster loadCluster(const std::string& presetOrPath) {
  const Description d = readDescription(presetOrPath, "clusters", "cluster preset", "or give a path to a cluster JSON file");
  const Json& doc = d.doc;
  const std::filesystem::path& path = d.path;
  if (doc.contains("schema") && doc["schema"] == results::kSchemaName) {
    throw InputError(fmt::format("{}: this is a results file, not a cluster description", path.string()));
  }
  return clusterFromJson(doc, path.string());
}

const Calibration* findCalibration(const std::vector<Calibration>& calibrations, std::string_view implementation,
                                   Collective collective, std::string_view algo, bool inPlace) {
  const Calibration* otherPlacement = nullptr;
  for (const auto& c : calibrations) {
    if (c.implementation != implementation || c.collective != collective || c.algo != algo) continue;
    if (c.inPlace == inPlace) return &c;
    otherPlacement = &c;
  }
  return otherPlacement;
}

}  // namespace cclab::sim
