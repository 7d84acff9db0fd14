// Hostile input for every tool, as a probe of the landed build found it (docs/reliability.md):
// each case must exit 2 with exactly one line on stderr that names the problem, never crash,
// hang, print an internal error or exit 0. The files a case needs are written into a scratch
// folder first; "{dir}" in the arguments is that folder.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "tests/command.h"

namespace cclab {
namespace {

namespace fs = std::filesystem;
using testing::runCommand;

struct BadInput {
  std::string name;                          // the test's name
  std::string tool;                          // CCSIM, CCREPORT, CCBENCH or CCPLAN
  std::string args;                          // {dir}: the scratch folder
  std::map<std::string, std::string> files;  // written into {dir} first
  std::string message;                       // a part of the one line on stderr
};

void PrintTo(const BadInput& c, std::ostream* os) { *os << c.name; }

std::string replaceAll(std::string text, const std::string& from, const std::string& to) {
  for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) text.replace(at, from.size(), to);
  return text;
}

// A valid nccl-tests log with one row, the pieces of which the cases break.
std::string ncclLog(const std::string& rankLine, const std::string& row, const std::string& iters = "20") {
  return "# nThread 1 nGpus 1 minBytes 8 maxBytes 8 step: 2(factor) warmup iters: 5 iters: " + iters +
         " agg iters: 1 validation: 1 graph: 0\n#\n# Using devices\n" + rankLine +
         "\n#\n# Collective test starting: all_reduce_perf\n#\n" + row + "\n";
}
const std::string kRank = "#  Rank  0 Group  0 Pid   1234 on       host device  0 [0000:18:00] NVIDIA H100";
const std::string kRow = "           8             2     float     sum      -1    10.00    0.00    0.00      0    10.00    0.00    0.00      0";

// A cclab results file with one row whose `field` is `value` (JSON text).
std::string resultsWith(const std::string& field, const std::string& value) {
  std::map<std::string, std::string> row = {{"backend", "\"mpi\""}, {"algo", "\"native\""}, {"collective", "\"all_reduce\""},
                                            {"dtype", "\"float\""},  {"op", "\"sum\""},       {"root", "-1"},
                                            {"in_place", "false"},   {"size_bytes", "1024"},  {"count", "256"},
                                            {"nranks", "2"},         {"repeat", "0"},         {"iters", "20"},
                                            {"time_us", "5.0"},      {"algbw_gbps", "0.2"},   {"busbw_gbps", "0.2"}};
  row[field] = value;
  std::string fields;
  for (const auto& [k, v] : row) fields += (fields.empty() ? "" : ", ") + ("\"" + k + "\": " + v);
  return R"({"schema": "cclab-results", "schema_version": 1, "run": {"tool": "ccbench", "machine": {"host": "h"}, "nranks": 2},
             "rows": [{)" + fields + "}]}";
}

const std::string kCluster = R"({"name": "c", "nodes": 1, "gpus_per_node": 8, "gpu": "h100-sxm5-80gb",
  "intra_node": {"kind": "nvswitch", "bandwidth_gbps": 450, "latency_us": 3}})";

std::vector<BadInput> cases() {
  const std::string nested = std::string(100000, '[');
  return {
      // nccl-tests text: numbers that used to throw std::stoi's out_of_range, and NaN
      {"TextHugeRank", "CCREPORT", "compare --baseline {dir}/a.txt --current {dir}/a.txt",
       {{"a.txt", ncclLog("#  Rank 99999999999 Group  0 Pid   1234 on host device  0 [0000:18:00] H100", kRow)}}, "rank '99999999999'"},
      {"TextHugePid", "CCSIM", "calibrate {dir}/a.txt -o {dir}/f.json --cluster dgx-h100",
       {{"a.txt", ncclLog("#  Rank  0 Group  0 Pid 99999999999999 on host device  0 [0000:18:00] H100", kRow)}}, "pid '99999999999999'"},
      {"TextHugeIters", "CCSIM", "validate {dir}/a.txt --cluster dgx-h100", {{"a.txt", ncclLog(kRank, kRow, "99999999999")}},
       "iters '99999999999'"},
      {"TextHugeRoot", "CCREPORT", "compare --baseline {dir}/a.txt --current {dir}/a.txt",
       {{"a.txt", ncclLog(kRank, replaceAll(kRow, "     -1 ", " 99999999999 "))}}, "root '99999999999'"},
      {"TextNanTime", "CCREPORT", "compare --baseline {dir}/a.txt --current {dir}/a.txt",
       {{"a.txt", ncclLog(kRank, replaceAll(kRow, "10.00    0.00", "  nan    0.00"))}}, "'nan' is not a number"},
      {"TextNoRanks", "CCREPORT", "compare --baseline {dir}/a.txt --current {dir}/a.txt",
       {{"a.txt", ncclLog("#", kRow)}}, "rank count is unknown"},
      // cclab results: nulls, wrong types, values out of range, invalid UTF-8, nesting
      {"JsonNullTime", "CCREPORT", "compare --baseline {dir}/a.json --current {dir}/a.json", {{"a.json", resultsWith("time_us", "null")}},
       "rows[0].time_us: expected a number, found null"},
      {"JsonStringRanks", "CCREPORT", "compare --baseline {dir}/a.json --current {dir}/a.json",
       {{"a.json", resultsWith("nranks", "\"x\"")}}, "rows[0].nranks: expected a whole number, found \"x\""},
      {"JsonNegativeSize", "CCREPORT", "accuracy --predicted {dir}/a.json --measured {dir}/a.json",
       {{"a.json", resultsWith("size_bytes", "-8")}}, "rows[0].size_bytes: must be zero or more (got -8)"},
      {"JsonRanksBeyond32Bits", "CCREPORT", "compare --baseline {dir}/a.json --current {dir}/a.json",
       {{"a.json", resultsWith("nranks", "4294967298")}}, "rows[0].nranks: 4294967298 is too large"},
      {"JsonZeroTime", "CCREPORT", "compare --baseline {dir}/a.json --current {dir}/a.json", {{"a.json", resultsWith("time_us", "0")}},
       "time_us is 0 for 1024 bytes"},
      {"JsonNegativeTime", "CCREPORT", "compare --baseline {dir}/a.json --current {dir}/a.json",
       {{"a.json", resultsWith("time_us", "-3")}}, "time_us must be a time from 0 to 1e13 microseconds (got -3)"},
      {"JsonNegativeCount", "CCREPORT", "compare --baseline {dir}/a.json --current {dir}/a.json",
       {{"a.json", resultsWith("count", "-1")}}, "rows[0].count: must be zero or more (got -1)"},
      {"JsonNegativeIters", "CCREPORT", "compare --baseline {dir}/a.json --current {dir}/a.json",
       {{"a.json", resultsWith("iters", "-1")}}, "iters must be 0 or more (got -1)"},
      {"JsonZeroRanks", "CCREPORT", "compare --baseline {dir}/a.json --current {dir}/a.json", {{"a.json", resultsWith("nranks", "0")}},
       "nranks must be from 1"},
      {"JsonHugeNumber", "CCREPORT", "compare --baseline {dir}/a.json --current {dir}/a.json",
       {{"a.json", resultsWith("time_us", "1e999")}}, "not valid JSON (a number out of range)"},
      {"JsonDeeplyNested", "CCREPORT", "compare --baseline {dir}/a.json --current {dir}/a.json", {{"a.json", "{\"x\": " + nested}},
       "nested deeper than 128 levels"},
      {"CsvInvalidUtf8", "CCREPORT", "compare --baseline {dir}/a.csv --current {dir}/a.csv",
       {{"a.csv", "backend,algo,collective,dtype,op,root,in_place,size_bytes,count,nranks,time_us,algbw_gbps,busbw_gbps\n"
                  "mpi,native,all_reduce,float,sum,\xff\xfe,false,8,2,2,1.0,1,1\n"}},
       "line 2.root: expected a whole number, found \"\xef\xbf\xbd\xef\xbf\xbd\""},
      {"Directory", "CCREPORT", "compare --baseline {dir} --current {dir}", {}, "is a directory, not a file"},
      {"EmptyFile", "CCSIM", "validate {dir}/e.json --cluster dgx-h100", {{"e.json", "  \n"}}, "the file is empty"},
      {"CalibrateLaunchesUnknown", "CCSIM", "calibrate {dir}/a.json -o {dir}/f.json --launches slowest",
       {{"a.json", resultsWith("time_us", "5.0")}}, "--launches"},
      {"CalibrateCacheCapacityUnknown", "CCSIM", "calibrate {dir}/a.json -o {dir}/f.json --cache-capacity guessed",
       {{"a.json", resultsWith("time_us", "5.0")}}, "--cache-capacity: 'guessed' is neither 'fit' nor 'described'"},
      // gates that NaN used to switch off
      {"ThresholdNan", "CCREPORT", "compare --baseline a --current b --threshold nan", {}, "'nan' is not a finite number"},
      {"AlphaNan", "CCREPORT", "compare --baseline a --current b --alpha nan", {}, "'nan' is not a finite number"},
      {"TimeSlackNan", "CCREPORT", "compare --baseline a --current b --time-slack nan", {}, "'nan' is not a finite number"},
      {"MaxMedianErrorNan", "CCREPORT", "accuracy --predicted a --measured b --max-median-error nan", {}, "'nan' is not a finite number"},
      // descriptions
      {"ClusterNodesBeyond32Bits", "CCSIM", "collective all_reduce --cluster {dir}/c.json",
       {{"c.json", replaceAll(kCluster, "\"nodes\": 1", "\"nodes\": 4294967298")}}, "nodes: must be at most 16384"},
      {"ClusterFitRanksWrongType", "CCSIM", "collective all_reduce --cluster {dir}/c.json",
       {{"c.json", replaceAll(kCluster, "}}",
                              R"(}, "calibration": [{"implementation": "mpi", "collective": "all_reduce", "algo": "native", "link": "intra",
                                  "latency_us": 1, "bandwidth_gbps": 5, "fit": {"ranks": "x"}}]})")}},
       "calibration[0].fit.ranks: expected an array"},
      {"ModelLayersBeyond32Bits", "CCSIM", "train --model {dir}/config.json --cluster dgx-a100 --global-batch 8",
       {{"config.json", R"({"model_type": "gpt2", "n_embd": 768, "n_layer": 4294967308, "n_head": 12, "vocab_size": 50257,
                            "n_positions": 1024})"}},
       "n_layer: 4294967308 is too large"},
      {"ModelLayersPastTheLimit", "CCSIM", "train --model {dir}/config.json --cluster dgx-a100 --global-batch 8",
       {{"config.json", R"({"model_type": "gpt2", "n_embd": 768, "n_layer": 70000, "n_head": 12, "vocab_size": 50257,
                            "n_positions": 1024})"}},
       "n_layer: must be from 1 to 65536 (got 70000)"},
      {"ModelTypeUnknown", "CCSIM", "train --model {dir}/config.json --cluster dgx-a100 --global-batch 8",
       {{"config.json", R"({"model_type": "mamba", "d_model": 512, "num_layers": 6, "num_heads": 8, "vocab_size": 32128})"}},
       "unknown type 'mamba'"},
      {"DeepSpeedFp16AndBf16", "CCSIM", "train --model gpt2 --cluster dgx-a100 --deepspeed {dir}/ds.json",
       {{"ds.json", R"({"train_batch_size": 64, "fp16": {"enabled": true}, "bf16": {"enabled": true}})"}}, "DeepSpeed refuses both"},
      {"DeepSpeedBatchZero", "CCSIM", "train --model gpt2 --cluster dgx-a100 --deepspeed {dir}/ds.json",
       {{"ds.json", R"({"train_batch_size": 0})"}}, "train_batch_size: must be from 1"},
      // training settings: one check for flags, plan files and ccplan
      {"PlanGlobalBatchZero", "CCSIM", "train --plan {dir}/p.json", {{"p.json", R"({"model": "gpt2", "cluster": "dgx-a100", "global-batch": 0})"}},
       "--global-batch must be from 1"},
      {"PlanGlobalBatchNegative", "CCSIM", "train --plan {dir}/p.json",
       {{"p.json", R"({"model": "gpt2", "cluster": "dgx-a100", "global-batch": -1})"}}, "--global-batch must be from 1"},
      {"PlanKeyTwice", "CCSIM", "train --plan {dir}/p.json", {{"p.json", R"({"model": "gpt2", "cluster": "dgx-a100", "gpus": 8, "gpus": 16})"}},
       "p.json: the key \"gpus\" appears twice in one object"},
      {"PlanTpString", "CCSIM", "train --plan {dir}/p.json", {{"p.json", R"({"model": "gpt2", "cluster": "dgx-a100", "tp": "x"})"}},
       "'tp' must be an integer (got \"x\")"},
      {"PlanZeroBoolean", "CCSIM", "train --plan {dir}/p.json", {{"p.json", R"({"model": "gpt2", "cluster": "dgx-a100", "zero": true})"}},
       "'zero' must be an integer (got true)"},
      {"PlanSeqZero", "CCSIM", "plan --model gpt2 --cluster dgx-a100 --global-batch 64 --seq 0", {}, "--seq must be from 1"},
      {"RecomputeLayersWithoutFull", "CCSIM", "train --model gpt2 --cluster dgx-a100 --global-batch 8 --recompute-layers 4", {},
       "--recompute-layers 4 needs --recompute full"},
      {"RecomputeLayersPastTheStage", "CCSIM", "train --model gpt2 --cluster dgx-a100 --gpus 2 --pp 2 --global-batch 8 --recompute full --recompute-layers 7", {},
       "--recompute-layers 7 is more than the 6 layers of a pipeline stage"},
      {"RecomputeLayersZero", "CCSIM", "train --model gpt2 --cluster dgx-a100 --global-batch 8 --recompute full --recompute-layers 0", {},
       "--recompute-layers must be from 1"},
      {"TokensNegative", "CCSIM", "train --model gpt2 --cluster dgx-a100 --global-batch 8 --tokens -1", {}, "--tokens must be a number"},
      {"TokensNan", "CCSIM", "train --model gpt2 --cluster dgx-a100 --global-batch 8 --tokens nan", {}, "--tokens must be a number"},
      {"TokensInf", "CCSIM", "train --model gpt2 --cluster dgx-a100 --global-batch 8 --tokens inf", {}, "--tokens must be a number"},
      {"ParamsInf", "CCSIM", "train --params inf --cluster dgx-a100", {}, "--params must be a number"},
      {"EmptyFlagValue", "CCSIM", "collective all_reduce --cluster dgx-a100 -J ''", {}, "empty value"},
      // ccbench (one rank, without a launcher)
      {"BenchTimeoutNan", "CCBENCH", "all_reduce -T nan", {}, "-T must be 0 or more seconds"},
      {"BenchCheckEmpty", "CCBENCH", "all_reduce -c ''", {}, "--check: empty value"},
      {"BenchJsonEmpty", "CCBENCH", "all_reduce -J ''", {}, "--output_file: empty value"},
      {"BenchEndlessSweep", "CCBENCH", "all_reduce -b 1 -e 1G -i 1", {}, "more than 1000000 sizes"},
      // ccplan refuses what ccsim refuses
      {"RenderPlanTpNegative", "CCPLAN", "--render {dir}/p.json -o {dir}/p.png",
       {{"p.json", R"({"model": "gpt2", "cluster": "dgx-a100", "tp": -1})"}}, "--tp must be from 1"},
      {"RenderPlanGpusZero", "CCPLAN", "--render {dir}/p.json -o {dir}/p.png",
       {{"p.json", R"({"model": "gpt2", "cluster": "dgx-a100", "gpus": 0})"}}, "--gpus must be from 1"},
      {"RenderPlanSeqZero", "CCPLAN", "--render {dir}/p.json -o {dir}/p.png",
       {{"p.json", R"({"model": "gpt2", "cluster": "dgx-a100", "seq": 0})"}}, "--seq must be from 1"},
  };
}

class BadInputTest : public ::testing::TestWithParam<BadInput> {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("cclab_bad_input_" + GetParam().name);
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_P(BadInputTest, ExitsTwoWithOneLineNamingTheProblem) {
  const BadInput& c = GetParam();
  const std::map<std::string, std::string> tools = {{"CCSIM", CCSIM}, {"CCREPORT", CCREPORT}, {"CCBENCH", CCBENCH}, {"CCPLAN", CCPLAN}};
  const std::string tool = tools.at(c.tool);
  if (tool.empty()) GTEST_SKIP() << c.tool << " is not built here";
  for (const auto& [name, content] : c.files) std::ofstream(dir_ / name, std::ios::binary) << content;
  const std::string command = "QT_QPA_PLATFORM=offscreen " + tool + " " + replaceAll(c.args, "{dir}", dir_.string());
  const testing::Outcome run = runCommand(command, dir_);
  EXPECT_EQ(run.exitCode, 2) << command << "\n" << run.err;
  EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << command << "\n" << run.err;
  EXPECT_NE(run.err.find(c.message), std::string::npos) << command << "\nexpected: " << c.message << "\nstderr: " << run.err;
  EXPECT_EQ(run.err.find("internal error"), std::string::npos) << run.err;
}

INSTANTIATE_TEST_SUITE_P(EveryTool, BadInputTest, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<BadInput>& info) { return info.param.name; });

}  // namespace
}  // namespace cclab
