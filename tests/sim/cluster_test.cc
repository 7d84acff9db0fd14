#include "sim/cluster.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "collectives/errors.h"

namespace cclab::sim {
namespace {

namespace fs = std::filesystem;

// The message loadCluster throws for a file holding `text`, or "" when it loads.
std::string errorFor(const std::string& text) {
  const fs::path path = fs::temp_directory_path() / ("cclab_cluster_test_" + std::to_string(::getpid()) + ".json");
  std::ofstream(path) << text;
  std::string message;
  try {
    loadCluster(path.string());
  } catch (const InputError& e) {
    message = e.what();
  }
  fs::remove(path);
  return message;
}

// A valid cluster document to break one field at a time.
Json minimal() {
  return Json::parse(R"({
    "name": "test", "nodes": 2, "gpus_per_node": 4,
    "gpu": {"name": "g", "memory_bytes": 1e10, "memory_bandwidth_gbps": 1000, "source": "s"},
    "intra_node": {"kind": "nvswitch", "bandwidth_gbps": 100, "latency_us": 1, "efficiency": 0.8, "source": "s"},
    "nics": {"per_node": 4, "bandwidth_gbps": 25, "latency_us": 2, "source": "s"}
  })");
}

// A one-node description of shared memory between two cores, nothing else set.
Json sharedMemoryMinimal() {
  Json j = minimal();
  j["nodes"] = 1;
  j.erase("nics");
  j["intra_node"] = Json::parse(R"({"kind": "shared_memory", "cores": 2, "bandwidth_gbps": 10, "latency_us": 1, "source": "s"})");
  return j;
}

TEST(Cluster, EveryPresetLoads) {
  const std::vector<std::string> presets = presetNames();
  for (const char* expected : {"dgx-a100", "dgx-h100", "dgx-h200", "dgx-2h", "jean-zay-a100", "a100-400g", "h100-800g", "h100-pcie-8", "workstation-4x-a40", "ethernet-100g", "cpu-2core-amd-epyc",
                              "cpu-2core-intel-xeon"}) {
    EXPECT_NE(std::find(presets.begin(), presets.end(), expected), presets.end()) << expected;
  }
  for (const auto& name : presets) {
    const Cluster c = loadCluster(name);
    EXPECT_EQ(c.name, name);
    EXPECT_GE(c.gpus(), 1);
    EXPECT_GT(c.intra.bandwidthGBps, 0);
    EXPECT_GT(c.gpu.memoryBytes, 0);
  }
}

// Every number in a preset cites its public source: each object holding numbers has a "source"
// string (the top level's cost has "cost_source"; shape fields need none; a table of points is
// cited by the object holding it).
void expectSourced(const Json& object, const std::string& where) {
  bool hasNumbers = false;
  for (const auto& [key, value] : object.items()) {
    if (value.is_object()) expectSourced(value, where + "." + key);
    // A table of points (gpu.gemm_efficiency) is cited by the object that holds it.
    if (value.is_array() && !value.empty() && value[0].is_object()) hasNumbers = true;
    if (value.is_number() && where != "") hasNumbers = true;
  }
  if (hasNumbers) {
    ASSERT_TRUE(object.contains("source") && object["source"].is_string()) << where << " has numbers but no source";
    EXPECT_GT(object["source"].get<std::string>().size(), 10u) << where;
  }
}

TEST(Cluster, EveryPresetNumberCitesASource) {
  for (const auto& name : presetNames()) {
    const Cluster c = loadCluster(name);
    SCOPED_TRACE(name);
    for (const auto& [key, value] : c.document.items()) {
      if (value.is_object()) expectSourced(value, key);
    }
    if (c.costPerGpuHourUsd > 0) { EXPECT_TRUE(c.document.contains("cost_source")); }
  }
}

TEST(Cluster, BadDescriptionsNameTheFieldAndProblem) {
  EXPECT_NE(errorFor("{ nodes: 1").find("not valid JSON"), std::string::npos);
  EXPECT_NE(errorFor("[1, 2]").find("must be a JSON object"), std::string::npos);
  Json j = minimal();
  EXPECT_EQ(errorFor(j.dump()), "");
  j["gpu"].erase("memory_bytes");
  EXPECT_NE(errorFor(j.dump()).find("gpu.memory_bytes: missing"), std::string::npos);
  j = minimal();
  j["intra_node"]["bandwidth_gbps"] = -5;
  EXPECT_NE(errorFor(j.dump()).find("intra_node.bandwidth_gbps: must be positive (got -5)"), std::string::npos);
  j = minimal();
  j["gpus_per_node"] = 0;
  EXPECT_NE(errorFor(j.dump()).find("gpus_per_node: must be at least 1 (got 0)"), std::string::npos);
  j = minimal();
  j["nodes"] = 1.5;
  EXPECT_NE(errorFor(j.dump()).find("nodes: expected a whole number"), std::string::npos);
  j = minimal();
  j["intra_node"]["kind"] = "infiniband";
  EXPECT_NE(errorFor(j.dump()).find("intra_node.kind: unknown value 'infiniband' (valid: nvswitch, nvlink, pcie, shared_memory)"),
            std::string::npos);
  j = minimal();
  j["intra_node"]["efficiency"] = 1.5;
  EXPECT_NE(errorFor(j.dump()).find("intra_node.efficiency: must be in (0, 1]"), std::string::npos);
  j = minimal();
  j["intra_node"]["kind"] = "pcie";
  j["intra_node"]["nvls"] = true;
  EXPECT_NE(errorFor(j.dump()).find("intra_node.nvls: needs kind \"nvswitch\""), std::string::npos);
  j = minimal();
  j["gpu"]["unaligned_gemm_slowdown"] = 0.5;  // a multiplier of GEMM time: below 1 would be a speed-up
  EXPECT_NE(errorFor(j.dump()).find("gpu.unaligned_gemm_slowdown: must be from 1 to 100 (got 0.5)"), std::string::npos);
  j = minimal();
  j["host"] = {{"pcie_bandwidth_gbps", 32}, {"pcie_node_bandwidth_gbps", -128}};
  EXPECT_NE(errorFor(j.dump()).find("host.pcie_node_bandwidth_gbps: must be positive (got -128)"), std::string::npos);
  j["host"]["pcie_node_bandwidth_gbps"] = 128;
  EXPECT_EQ(errorFor(j.dump()), "");
  const int gpus = j["gpus_per_node"].get<int>();
  j["host"]["pcie_switch_gpus"] = gpus + 1;
  EXPECT_NE(errorFor(j.dump()).find("host.pcie_switch_gpus: must be from 1 to " + std::to_string(gpus)), std::string::npos) << errorFor(j.dump());
  j["host"]["pcie_switch_gpus"] = gpus - 1;  // 3 of 4
  EXPECT_NE(errorFor(j.dump()).find("host.pcie_switch_gpus: 3 does not divide the node's 4 GPUs"), std::string::npos) << errorFor(j.dump());
  j["host"]["pcie_switch_gpus"] = gpus;
  EXPECT_EQ(errorFor(j.dump()), "");
  j["host"].erase("pcie_node_bandwidth_gbps");
  EXPECT_NE(errorFor(j.dump()).find("host.pcie_switch_gpus: needs pcie_node_bandwidth_gbps"), std::string::npos) << errorFor(j.dump());
  j = minimal();
  j.erase("nics");
  EXPECT_NE(errorFor(j.dump()).find("2 nodes need NICs"), std::string::npos);
  j = minimal();
  j["intra_node"]["bandwidth_gbps"] = "fast";
  EXPECT_NE(errorFor(j.dump()).find("intra_node.bandwidth_gbps: expected a number, found \"fast\""), std::string::npos);
  EXPECT_NE(errorFor(R"({"schema": "cclab-results", "schema_version": 1})").find("a results file, not a cluster"), std::string::npos);
}

// Shared memory: the transport's single-copy threshold, measured per machine (what ccbench's
// --shm-single-copy defaults to there): absent is 0 (every message through the slots).
TEST(Cluster, ReadsTheSingleCopyThresholdOfSharedMemory) {
  Json j = sharedMemoryMinimal();
  const fs::path path = fs::temp_directory_path() / ("cclab_cluster_test_shm_" + std::to_string(::getpid()) + ".json");
  std::ofstream(path) << j.dump();
  EXPECT_EQ(loadCluster(path.string()).intra.singleCopyBytes, 0);
  j["intra_node"]["single_copy_bytes"] = 524288;
  std::ofstream(path) << j.dump();
  EXPECT_EQ(loadCluster(path.string()).intra.singleCopyBytes, 524288);
  EXPECT_EQ(loadCluster(path.string()).intra.singleCopyRootedBytes, 524288);  // absent: the same for rooted calls
  j["intra_node"]["single_copy_bytes"] = 16384;
  j["intra_node"]["single_copy_rooted_bytes"] = 524288;
  std::ofstream(path) << j.dump();
  EXPECT_EQ(loadCluster(path.string()).intra.singleCopyBytes, 16384);
  EXPECT_EQ(loadCluster(path.string()).intra.singleCopyRootedBytes, 524288);
  fs::remove(path);
  j["intra_node"]["single_copy_rooted_bytes"] = -1;
  EXPECT_NE(errorFor(j.dump()).find("intra_node.single_copy_rooted_bytes: must be"), std::string::npos) << errorFor(j.dump());
  j["intra_node"].erase("single_copy_rooted_bytes");
  j["intra_node"]["single_copy_bytes"] = -1;
  EXPECT_NE(errorFor(j.dump()).find("intra_node.single_copy_bytes: must be"), std::string::npos) << errorFor(j.dump());
  // The presets of the two CPUs measured, both on shared host buffers, one threshold for every
  // call: the AMD EPYC VM one copy from 64 KiB, the Intel Xeon VM from 16 KiB.
  EXPECT_EQ(loadCluster("cpu-2core-amd-epyc").intra.singleCopyBytes, 64 * 1024);
  EXPECT_EQ(loadCluster("cpu-2core-amd-epyc").intra.singleCopyRootedBytes, 64 * 1024);
  EXPECT_EQ(loadCluster("cpu-2core-intel-xeon").intra.singleCopyBytes, 16 * 1024);
  EXPECT_EQ(loadCluster("cpu-2core-intel-xeon").intra.singleCopyRootedBytes, 16 * 1024);
}

// Shared memory: the pieces a rank's own host copies go in (what ccbench's --host-copy-piece
// defaults to there): absent is HostDevice's default; 0 is one memcpy a copy; written back.
TEST(Cluster, ReadsTheHostCopyPieceOfSharedMemory) {
  Json j = sharedMemoryMinimal();
  EXPECT_EQ(clusterFromJson(j, "test").intra.copyPieceBytes, 128 * 1024);
  EXPECT_FALSE(toJson(clusterFromJson(j, "test"))["intra_node"].contains("copy_piece_bytes"));
  j["intra_node"]["copy_piece_bytes"] = 0;
  j["intra_node"]["copy_piece_source"] = "an A/B";
  EXPECT_EQ(clusterFromJson(j, "test").intra.copyPieceBytes, 0);
  EXPECT_EQ(toJson(clusterFromJson(j, "test"))["intra_node"]["copy_piece_bytes"], 0);
  j["intra_node"]["copy_piece_bytes"] = 65536;
  EXPECT_EQ(clusterFromJson(j, "test").intra.copyPieceBytes, 65536);
  for (const Json& bad : {Json(-1), Json(1.5), Json(1e13), Json("big")}) {
    j["intra_node"]["copy_piece_bytes"] = bad;
    EXPECT_NE(errorFor(j.dump()).find("intra_node.copy_piece_bytes:"), std::string::npos) << bad << ": " << errorFor(j.dump());
  }
  // The two CPUs measured: 128 KiB pieces on the AMD EPYC VM, one memcpy on the Intel Xeon VM.
  EXPECT_EQ(loadCluster("cpu-2core-amd-epyc").intra.copyPieceBytes, 128 * 1024);
  EXPECT_EQ(loadCluster("cpu-2core-intel-xeon").intra.copyPieceBytes, 0);
}

TEST(Cluster, UnknownPresetListsThePresets) {
  try {
    loadCluster("dgx-z900");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("unknown cluster preset 'dgx-z900'"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("dgx-h100"), std::string::npos);
  }
  EXPECT_THROW(loadCluster("/nonexistent/cluster.json"), InputError);
}

TEST(Cluster, ReshapeFromOneTo16384Gpus) {
  Cluster c = loadCluster("dgx-h100");
  reshape(c, 2048, std::nullopt);
  EXPECT_EQ(c.gpus(), 16384);
  EXPECT_EQ(c.nics.perNode, 8);
  reshape(c, 16, 1);
  EXPECT_EQ(c.gpus(), 16);
  EXPECT_EQ(c.nics.perNode, 1);  // NICs follow gpus_per_nic
  EXPECT_THROW(reshape(c, 4097, 8), InputError);
  EXPECT_THROW(reshape(c, 0, std::nullopt), InputError);
  EXPECT_THROW(reshape(c, std::nullopt, 0), InputError);
  Cluster ws = loadCluster("workstation-4x-a40");
  EXPECT_THROW(reshape(ws, 2, std::nullopt), InputError);  // no NICs: one node only
}

TEST(Cluster, WritesBackWithSourcesAndCalibration) {
  Cluster c = loadCluster("dgx-a100");
  c.intra.latencyUs = 1.25;
  Calibration entry;
  entry.implementation = "nccl";
  entry.collective = Collective::AllGather;
  entry.algo = "ring";
  entry.bandwidthGBps = 200;
  entry.fit.rows = 12;
  c.calibrations.push_back(entry);
  const Json doc = toJson(c);
  EXPECT_TRUE(doc["intra_node"].contains("source"));
  const Cluster back = clusterFromJson(doc, "mem");
  EXPECT_DOUBLE_EQ(back.intra.latencyUs, 1.25);
  ASSERT_EQ(back.calibrations.size(), 1u);
  EXPECT_EQ(back.calibrations[0].collective, Collective::AllGather);
  EXPECT_DOUBLE_EQ(back.calibrations[0].bandwidthGBps, 200);
  EXPECT_EQ(back.calibrations[0].fit.rows, 12);
}

TEST(Cluster, ReadsTheOldSpellingOfAFitsErrors) {
  // Calibrations were once written with median_abs_pct_error / max_abs_pct_error (this file is an
  // earlier results/measured/cpu-2core-amd-epyc/fitted_np2_np4.json in that spelling); the one
  // spelling now is median_abs_error_pct / max_abs_error_pct, and both are read.
  const Cluster c = loadCluster(std::string(CCLAB_SOURCE_DIR) + "/tests/data/calibrations/cpu-2core-amd-epyc-2026-11-old-spelling.json");
  ASSERT_FALSE(c.calibrations.empty());
  EXPECT_DOUBLE_EQ(c.calibrations[0].fit.medianAbsErrorPct, 9.359391124602178);
  EXPECT_GT(c.calibrations[0].fit.maxAbsErrorPct, 60);
  const Json written = toJson(c);
  const Json& fit = written["calibration"][0]["fit"];
  EXPECT_TRUE(fit.contains("median_abs_error_pct"));
  EXPECT_FALSE(fit.contains("median_abs_pct_error"));
}

}  // namespace
}  // namespace cclab::sim
