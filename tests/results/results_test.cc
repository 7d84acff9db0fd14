#include "results/results.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "collectives/errors.h"

namespace cclab::results {
namespace {

namespace fs = std::filesystem;

std::string data(const std::string& name) { return std::string(CCLAB_TEST_DATA) + "/nccl-tests-h100/" + name; }

fs::path tempDir() {
  fs::path dir = fs::temp_directory_path() / ("cclab_results_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return dir;
}

ResultsFile sample() {
  ResultsFile file;
  file.run.tool = "ccbench";
  file.run.toolVersion = "0.1.0";
  file.run.command = {"ccbench", "all_reduce", "-b", "8"};
  file.run.startTime = "2026-11-22T10:00:00Z";
  file.run.gitCommit = "abc";
  file.run.host = "node1";
  file.run.cpuModel = "AMD EPYC";
  file.run.cpuCores = 2;
  file.run.cpuFamily = 26;
  file.run.memoryBytes = 1u << 30;
  file.run.mpiVersion = "Open MPI v4.1.4";
  file.run.nranks = 2;
  file.run.nodes = 1;
  file.run.ranks = {{0, "node1", 10, 0, -1, "AMD EPYC", ""}, {1, "node1", 11, 1, -1, "AMD EPYC", ""}};
  file.run.config = {{"iters", 20}};
  Row a;
  a.backend = "mpi";
  a.algo = "native";
  a.collective = Collective::AllReduce;
  a.dtype = DataType::Float;
  a.op = ReduceOp::Sum;
  a.sizeBytes = 1024;
  a.count = 256;
  a.nranks = 2;
  a.iters = 3;
  a.timeUs = 12.5;
  a.timeUsMin = 11.0;
  a.timeUsMax = 14.0;
  a.timeUsP50 = 12.0;
  a.timeUsP99 = 14.0;
  a.algbwGBps = 0.08192;
  a.busbwGBps = 0.08192;
  a.wrong = 0;
  a.iterTimesUs = {11.0, 12.0, 14.0};
  Row b = a;
  b.backend = "cclab";
  b.algo = "chain";
  b.collective = Collective::Broadcast;
  b.op.reset();
  b.root = 1;
  b.inPlace = true;
  b.wrong.reset();
  b.timeUsMin.reset();
  b.iterTimesUs.clear();
  file.rows = {a, b};
  return file;
}

void expectSameRow(const Row& x, const Row& y) {
  EXPECT_EQ(x.backend, y.backend);
  EXPECT_EQ(x.algo, y.algo);
  EXPECT_EQ(x.collective, y.collective);
  EXPECT_EQ(x.dtype, y.dtype);
  EXPECT_EQ(x.op, y.op);
  EXPECT_EQ(x.root, y.root);
  EXPECT_EQ(x.inPlace, y.inPlace);
  EXPECT_EQ(x.sizeBytes, y.sizeBytes);
  EXPECT_EQ(x.count, y.count);
  EXPECT_EQ(x.nranks, y.nranks);
  EXPECT_EQ(x.repeat, y.repeat);
  EXPECT_EQ(x.iters, y.iters);
  EXPECT_DOUBLE_EQ(x.timeUs, y.timeUs);
  EXPECT_EQ(x.timeUsMin, y.timeUsMin);
  EXPECT_EQ(x.timeUsP99, y.timeUsP99);
  EXPECT_DOUBLE_EQ(x.algbwGBps, y.algbwGBps);
  EXPECT_DOUBLE_EQ(x.busbwGBps, y.busbwGBps);
  EXPECT_EQ(x.wrong, y.wrong);
}

TEST(Results, JsonRoundTrip) {
  const ResultsFile file = sample();
  const Json doc = toJson(file);
  EXPECT_EQ(doc.at("schema"), "cclab-results");
  EXPECT_EQ(doc.at("schema_version"), kSchemaVersion);
  EXPECT_TRUE(doc.at("rows")[1].at("op").is_null());
  const ResultsFile back = fromJson(Json::parse(doc.dump()), "mem");
  EXPECT_EQ(back.run.command, file.run.command);
  EXPECT_EQ(back.run.mpiVersion, file.run.mpiVersion);
  EXPECT_EQ(back.run.ranks.size(), 2u);
  EXPECT_EQ(back.run.ranks[1].core, 1);
  EXPECT_EQ(back.run.config.at("iters"), 20);
  EXPECT_EQ(back.run.cpuFamily, 26);
  // Files written before the family was recorded read as family 0, unknown.
  Json old = doc;
  old["run"]["machine"].erase("cpu_family");
  EXPECT_EQ(fromJson(old, "old").run.cpuFamily, 0);
  ASSERT_EQ(back.rows.size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) expectSameRow(back.rows[i], file.rows[i]);
  EXPECT_EQ(back.rows[0].iterTimesUs, file.rows[0].iterTimesUs);
}

TEST(Results, CsvHasTheSameRows) {
  const ResultsFile file = sample();
  const std::string csv = toCsv(file.rows);
  EXPECT_EQ(csv.substr(0, csv.find('\n')),
            "backend,algo,collective,dtype,op,root,in_place,size_bytes,count,nranks,repeat,iters,time_us,time_us_min,"
            "time_us_max,time_us_p50,time_us_p99,algbw_gbps,busbw_gbps,wrong");
  const std::vector<Row> back = rowsFromCsv(csv, "mem.csv");
  ASSERT_EQ(back.size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) expectSameRow(back[i], file.rows[i]);
}

TEST(Results, WritesAtomicallyAndReadsBack) {
  const fs::path dir = tempDir();
  const fs::path path = dir / "run.json";
  writeFileAtomically(path, toJson(sample()).dump(1));
  writeFileAtomically(dir / "run.csv", toCsv(sample().rows));
  for (const auto& entry : fs::directory_iterator(dir)) {
    EXPECT_EQ(entry.path().filename().string().find(".tmp"), std::string::npos) << "left a temporary file behind";
  }
  EXPECT_EQ(readResults(path).file.rows.size(), 2u);
  EXPECT_EQ(readResults(dir / "run.csv").file.rows.size(), 2u);
  fs::remove_all(dir);
}

TEST(Results, UnwritablePathsAreInputErrors) {
  EXPECT_THROW(checkWritable("/nonexistent-dir/x.json"), InputError);
  EXPECT_THROW(writeFileAtomically("/nonexistent-dir/x.json", "{}"), InputError);
  EXPECT_THROW(checkWritable(fs::temp_directory_path()), InputError);  // a directory
  const fs::path dir = tempDir();
  EXPECT_NO_THROW(checkWritable(dir / "ok.json"));
  EXPECT_FALSE(fs::exists(dir / "ok.json"));  // checking leaves nothing behind
  fs::remove_all(dir);
}

// The message fromJson throws for `doc`, or "" when it reads fine.
std::string readError(const Json& doc) {
  try {
    fromJson(doc, "bad.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(Results, BadFilesNameTheFileAndField) {
  Json doc = toJson(sample());
  EXPECT_EQ(readError(doc), "");
  doc["rows"][1].erase("size_bytes");
  EXPECT_EQ(readError(doc), "bad.json: rows[1].size_bytes: missing");
  doc = toJson(sample());
  doc["rows"][0]["time_us"] = "fast";
  EXPECT_EQ(readError(doc), "bad.json: rows[0].time_us: expected a number, found \"fast\"");
  doc = toJson(sample());
  doc["schema_version"] = 99;
  EXPECT_THROW(fromJson(doc, "future.json"), InputError);
  doc = toJson(sample());
  doc["rows"][0]["dtype"] = "float17";
  EXPECT_THROW(fromJson(doc, "bad.json"), InputError);
  EXPECT_THROW(rowsFromCsv("backend,algo\nmpi\n", "short.csv"), InputError);
  EXPECT_THROW(readResults("/nonexistent.json"), InputError);
  // Bytes take time to move: a time of 0 is refused, but for one rank in place, which moves none
  // (what ccsim collective predicts there).
  doc = toJson(sample());
  doc["rows"][0]["time_us"] = 0.0;
  doc["rows"][0]["algbw_gbps"] = 0.0;
  doc["rows"][0]["busbw_gbps"] = 0.0;
  EXPECT_EQ(readError(doc), "bad.json: rows[0]: time_us is 0 for 1024 bytes (a measured time is positive)");
  doc["rows"][0]["nranks"] = 1;
  EXPECT_EQ(readError(doc), "bad.json: rows[0]: time_us is 0 for 1024 bytes (a measured time is positive)");  // out of place: a copy
  doc["rows"][0]["in_place"] = true;
  EXPECT_EQ(readError(doc), "");
  doc = toJson(sample());
  doc["rows"][1]["time_us"] = 1e308;  // finite, but every ratio against it would be inf
  EXPECT_EQ(readError(doc), "bad.json: rows[1]: time_us must be a time from 0 to 1e13 microseconds (got 1e+308)");
}

TEST(Results, ImportsNcclTestsText) {
  const Import in = readResults(data("all_reduce.txt"));
  const RunInfo& run = in.file.run;
  EXPECT_EQ(run.tool, "nccl-tests");
  EXPECT_EQ(run.toolVersion, "2.19.6");
  EXPECT_EQ(run.nranks, 1);
  EXPECT_EQ(run.gpuModel, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(run.ranks.at(0).busId, "0000:00:06");
  ASSERT_EQ(in.file.rows.size(), 30u);  // 15 sizes, out of place and in place
  const Row& first = in.file.rows[0];
  EXPECT_EQ(first.collective, Collective::AllReduce);
  EXPECT_EQ(first.backend, "nccl");
  EXPECT_EQ(first.sizeBytes, 8u);
  EXPECT_EQ(first.count, 2u);
  EXPECT_EQ(first.dtype, DataType::Float);
  EXPECT_EQ(first.op, ReduceOp::Sum);
  EXPECT_EQ(first.root, -1);
  EXPECT_FALSE(first.inPlace);
  EXPECT_DOUBLE_EQ(first.timeUs, 7.76);
  EXPECT_EQ(first.iters, 20);
  EXPECT_EQ(first.wrong, 0);
  const Row& last = in.file.rows.back();
  EXPECT_TRUE(last.inPlace);
  EXPECT_EQ(last.sizeBytes, 2147483648u);
  EXPECT_DOUBLE_EQ(last.algbwGBps, 2e6);
}

TEST(Results, ImportsNcclTestsPerIterationColumnsAndNA) {
  const Import perIter = readResults(data("all_gather_per_iter.txt"));
  ASSERT_EQ(perIter.file.rows.size(), 12u);
  EXPECT_EQ(perIter.file.rows[0].collective, Collective::AllGather);
  EXPECT_FALSE(perIter.file.rows[0].op.has_value());
  EXPECT_DOUBLE_EQ(*perIter.file.rows[0].timeUsMin, 5.38);
  EXPECT_DOUBLE_EQ(*perIter.file.rows[0].timeUsP99, 24.13);
  const Import alltoall = readResults(data("alltoall.txt"));
  EXPECT_TRUE(alltoall.file.rows[1].inPlace);
  EXPECT_FALSE(alltoall.file.rows[1].wrong.has_value());  // "N/A": not checked
}

TEST(Results, SkipsWhatCclabDoesNotKnowAndIgnoresErrorLines) {
  const Import in = readResults(data("all_reduce_all_types_ops.txt"));
  EXPECT_GT(in.skippedRows, 0);  // fp8 types and the mulsum op
  for (const Row& row : in.file.rows) EXPECT_TRUE(row.op.has_value());
  EXPECT_GT(in.file.rows.size(), 100u);
}

TEST(Results, ImportsNcclTestsJson) {
  const Import in = readResults(data("all_gather_perf_per_iter.json"));
  EXPECT_EQ(in.file.run.ncclVersion, "2.28.3");
  EXPECT_EQ(in.file.run.gpuModel, "NVIDIA H100 80GB HBM3");
  ASSERT_EQ(in.file.rows.size(), 12u);
  const Row& row = in.file.rows[0];
  EXPECT_EQ(row.collective, Collective::AllGather);
  EXPECT_EQ(row.sizeBytes, 1024u);
  EXPECT_EQ(row.root, -1);
  EXPECT_NEAR(row.timeUs, 8.07655, 1e-9);
  EXPECT_EQ(row.iterTimesUs.size(), 20u);
  EXPECT_NEAR(*row.timeUsP50, 6.624, 1e-9);
  // The -J JSON and the text of the same run agree.
  const Import json = readResults(data("all_reduce_perf.json"));
  const Import text = readResults(data("all_reduce_json_run.txt"));
  ASSERT_EQ(json.file.rows.size(), text.file.rows.size());
  for (std::size_t i = 0; i < json.file.rows.size(); ++i) {
    EXPECT_EQ(json.file.rows[i].sizeBytes, text.file.rows[i].sizeBytes);
    EXPECT_NEAR(json.file.rows[i].timeUs, text.file.rows[i].timeUs, 0.01 + 1e-3 * text.file.rows[i].timeUs);
  }
}

TEST(Results, BandwidthsAreComputedInOnePlace) {
  EXPECT_DOUBLE_EQ(algorithmBandwidthGBps(1'000'000'000, 1e6), 1.0);
  EXPECT_DOUBLE_EQ(busBandwidthGBps(Collective::AllReduce, 4, 1'000'000'000, 1e6), 1.5);
  EXPECT_DOUBLE_EQ(algorithmBandwidthGBps(100, 0), 0.0);
}

}  // namespace
}  // namespace cclab::results
