// ccsim end to end: its tables read as ccbench's, -J writes a results file every reader takes,
// calibrate -> validate works from files, and bad input exits 2 with one line.

#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "bench/results/results.h"
#include "tests/command.h"

namespace cclab {
namespace {

namespace fs = std::filesystem;

using testing::Outcome;
using testing::runCommand;
using testing::slurp;

class Ccsim : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("ccsim_test_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  Outcome ccsim(const std::string& args) { return runCommand(std::string(CCSIM) + " " + args, dir_); }
  std::string file(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
    return (dir_ / name).string();
  }
  fs::path dir_;
};

TEST_F(Ccsim, CollectivePrintsCcbenchsTableAndWritesAResultsFile) {
  const std::string json = (dir_ / "pred.json").string();
  const Outcome run = ccsim("collective all_reduce --cluster dgx-h100 --nodes 2 -b 1K -e 1G -f 4 -J " + json);
  ASSERT_EQ(run.exitCode, 0) << run.err;
  // The same parser that reads nccl-tests and ccbench output reads it.
  const results::Import text = results::importNcclTestsText(run.out, "stdout");
  ASSERT_EQ(text.file.rows.size(), 2u * 11);
  for (const auto& row : text.file.rows) {
    EXPECT_EQ(row.collective, Collective::AllReduce);
    EXPECT_FALSE(row.wrong.has_value());  // predictions check nothing: N/A
    const double expected = row.algbwGBps * busBandwidthFactor(Collective::AllReduce, 16);
    EXPECT_NEAR(row.busbwGBps, expected, 0.01 * expected + 0.01);
  }
  EXPECT_NE(run.out.find("# auto picked"), std::string::npos);
  // The prediction is a results file: backend sim, the algorithm named on every row.
  const results::Import file = results::readResults(json);
  EXPECT_EQ(file.file.run.tool, "ccsim");
  EXPECT_EQ(file.file.run.nranks, 16);
  EXPECT_EQ(file.file.run.nodes, 2);
  ASSERT_EQ(file.file.rows.size(), 22u);
  for (const auto& row : file.file.rows) {
    EXPECT_EQ(row.backend, "sim");
    EXPECT_FALSE(row.algo.empty());
    EXPECT_NE(row.algo, "auto");
  }
}

TEST_F(Ccsim, CalibrateThenValidateFromFiles) {
  const std::string data = std::string(CCLAB_TEST_DATA) + "/nccl-tests-h100/";
  const std::string fitted = (dir_ / "fitted.json").string();
  const Outcome cal = ccsim("calibrate " + data + "all_reduce.txt " + data + "broadcast.txt -o " + fitted);
  ASSERT_EQ(cal.exitCode, 0) << cal.err;
  EXPECT_NE(cal.out.find("fit quality over"), std::string::npos);
  EXPECT_NE(cal.out.find("cluster 'dgx-h100'"), std::string::npos);  // matched from the logs' GPU
  const std::string report = (dir_ / "v.json").string();
  const Outcome val = ccsim("validate " + data + "all_reduce_perf.json --cluster " + fitted + " --json " + report);
  ASSERT_EQ(val.exitCode, 0) << val.err;
  EXPECT_NE(val.out.find(">= 64 KiB"), std::string::npos);
  const auto doc = results::Json::parse(slurp(report));
  EXPECT_EQ(doc["rows"].size(), 26u);  // 13 sizes, out of place and in place
  EXPECT_TRUE(doc["rows"][0]["calibrated"].get<bool>());
}

TEST_F(Ccsim, BadInputExitsTwoWithOneLine) {
  const std::string malformed = file("malformed.json", "{ \"name\": ");
  const std::string negative = file("negative.json", R"({"name": "x", "nodes": 1, "gpus_per_node": 2,
      "gpu": {"name": "g", "memory_bytes": 1, "memory_bandwidth_gbps": 1},
      "intra_node": {"kind": "nvswitch", "bandwidth_gbps": -100, "latency_us": 1}})");
  const std::string results = file("r.json", R"({"schema": "cclab-results", "schema_version": 1, "run": {}, "rows": []})");
  const std::string notResults = file("notes.txt", "hello\n");
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"collective all_reduce --cluster " + malformed, "not valid JSON"},
      {"collective all_reduce --cluster " + negative, "intra_node.bandwidth_gbps: must be positive (got -100)"},
      {"collective all_reduce --cluster dgx-h100 --gpus-per-node 0", "--gpus-per-node must be at least 1"},
      {"collective all_reduce --cluster dgx-z900", "unknown cluster preset 'dgx-z900'"},
      {"collective all_reduce --cluster " + results, "a results file, not a cluster"},
      {"collective all_reduce --cluster dgx-a100 --algo nvls", "needs NVLink SHARP"},
      {"collective all_reduce --cluster dgx-a100 --algo magic", "unknown algorithm 'magic'"},
      {"collective allreduce --cluster dgx-a100", "unknown collective 'allreduce'"},
      {"collective all_reduce --cluster dgx-a100 -b 1G -e 1K", "-b 1 GiB is larger than -e 1 KiB"},
      {"collective all_reduce --cluster dgx-a100 --nodes 5000", "more than the 16384 GPUs"},
      {"calibrate " + notResults + " -o " + (dir_ / "f.json").string(), "not a cclab results file"},
      {"calibrate " + negative + " -o " + (dir_ / "f.json").string(), "not a results file"},
      {"validate " + std::string(CCLAB_TEST_DATA) + "/nccl-tests-h100/all_reduce.txt --cluster " + malformed, "not valid JSON"},
      {"calibrate --ranks x " + std::string(CCLAB_TEST_DATA) + "/nccl-tests-h100/all_reduce.txt -o f.json", "--ranks 'x'"},
      {"frobnicate", "unknown command 'frobnicate'"},
  };
  for (const auto& [args, message] : cases) {
    const Outcome run = ccsim(args);
    EXPECT_EQ(run.exitCode, 2) << args << "\n" << run.err;
    EXPECT_NE(run.err.find(message), std::string::npos) << args << "\n" << run.err;
    EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << args << "\n" << run.err;
  }
}

}  // namespace
}  // namespace cclab
