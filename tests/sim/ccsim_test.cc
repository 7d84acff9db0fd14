// ccsim end to end: its tables read as ccbench's, -J writes a results file every reader takes,
// calibrate -> validate works from files, and bad input exits 2 with one line.

#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "results/json_reader.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "results/results.h"
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
  // A size range without rows shows no error, not a perfect 0.0.
  const Outcome large = ccsim("validate " + data + "all_reduce_perf.json --cluster " + fitted + " --min-bytes 1M --summary-only");
  ASSERT_EQ(large.exitCode, 0) << large.err;
  EXPECT_NE(large.out.find("  < 64 KiB              0            -            -\n"), std::string::npos) << large.out;
}

// Two VMs call their CPU "AMD EPYC": calibrate takes the Zen 5 one's preset from the CPU family
// its files record, and the AMD preset for the same files without it (as written before 2026-12-04).
TEST_F(Ccsim, CalibrateTellsTheZen5VmByTheFamilyItsFilesRecord) {
  const std::string sweep = std::string(CCLAB_SOURCE_DIR) + "/results/measured/cpu-2core-amd-epyc-zen5/algorithms-shm/";
  const std::string fitted = (dir_ / "fitted.json").string();
  const Outcome zen5 = ccsim("calibrate " + sweep + "rd_np2.json " + sweep + "rd_np4.json -o " + fitted);
  ASSERT_EQ(zen5.exitCode, 0) << zen5.err;
  EXPECT_NE(zen5.out.find("on cluster 'cpu-2core-amd-epyc-zen5'"), std::string::npos) << zen5.out;
  std::vector<std::string> unknown;
  for (const char* name : {"rd_np2.json", "rd_np4.json"}) {
    results::Json doc = results::Json::parse(slurp(sweep + name));
    ASSERT_EQ(doc["run"]["machine"]["cpu_family"], 26);
    doc["run"]["machine"].erase("cpu_family");
    unknown.push_back((dir_ / name).string());
    std::ofstream(unknown.back()) << doc.dump();
  }
  const Outcome amd = ccsim("calibrate " + unknown[0] + " " + unknown[1] + " -o " + fitted);
  ASSERT_EQ(amd.exitCode, 0) << amd.err;
  EXPECT_NE(amd.out.find("on cluster 'cpu-2core-amd-epyc'"), std::string::npos) << amd.out;
  // A CPU no preset matches: one line that says how to name or describe its machine.
  results::Json doc = results::Json::parse(slurp(sweep + "rd_np2.json"));
  doc["run"]["machine"]["cpu_model"] = "Some Other CPU";
  std::ofstream(unknown[0]) << doc.dump();
  const Outcome other = ccsim("calibrate " + unknown[0] + " -o " + fitted);
  EXPECT_EQ(other.exitCode, 2);
  EXPECT_NE(other.err.find("no cluster preset matches its device 'Some Other CPU': name the cluster it was measured on with --cluster, "
                           "or describe that machine there: scripts/describe_cpu_host.sh <name>"),
            std::string::npos)
      << other.err;
}

TEST_F(Ccsim, TrainJsonNamesItsUnitsAndAddsUp) {
  const Outcome run = ccsim("train --model llama2-7b --cluster dgx-a100 --nodes 2 --tp 2 --pp 2 --global-batch 64 --micro-batch 1 "
                            "--seq 4096 --zero 1 --json");
  ASSERT_EQ(run.exitCode, 0) << run.err;
  const results::Json j = results::Json::parse(run.out);
  EXPECT_EQ(j.at("params").get<double>(), 6738415616.0);
  const results::Json& memory = j.at("memory_per_gpu_bytes");
  double sum = 0;
  for (const char* key : {"parameters", "gradients", "optimizer_states", "activations", "other"}) sum += memory.at(key).get<double>();
  EXPECT_DOUBLE_EQ(memory.at("total").get<double>(), sum);
  EXPECT_TRUE(j.at("fits").get<bool>());
  const results::Json& step = j.at("step_time_s");
  double parts = 0;
  for (const char* key :
       {"compute", "tp_comm", "pp_comm", "dp_comm", "shard_comm", "offload", "pipeline_bubble", "optimizer", "overhead", "interference"}) {
    parts += step.at(key).get<double>();
  }
  EXPECT_NEAR(step.at("total").get<double>(), parts, 1e-9 * parts);
  EXPECT_GT(step.at("tp_comm").get<double>(), 0);
  EXPECT_GT(step.at("pipeline_bubble").get<double>(), 0);
  // dp 4, 16 micro-batches per pipeline of 2 stages: (p-1)/(m+p-1). The simulated step's share is
  // its own part over its total, and at least the schedule's (the last stage also runs the logits).
  EXPECT_DOUBLE_EQ(j.at("bubble_fraction").get<double>(), 1.0 / 17);
  EXPECT_DOUBLE_EQ(j.at("bubble_share_of_step").get<double>(), step.at("pipeline_bubble").get<double>() / step.at("total").get<double>());
  EXPECT_GT(j.at("bubble_share_of_step").get<double>(), 1.0 / 17);
  for (const char* key : {"tokens_per_s", "mfu", "hfu", "train_time_s", "gpu_hours", "cost_usd"}) EXPECT_GT(j.at(key).get<double>(), 0) << key;
  EXPECT_DOUBLE_EQ(j.at("tokens_per_s").get<double>(), 64.0 * 4096 / step.at("total").get<double>());
}

// --compare puts a measured run beside the prediction: each row's error is predicted over
// measured, minus one, and the measured values are the file's (median after the warm-up step).
TEST_F(Ccsim, TrainComparesItsPredictionWithAMeasuredRun) {
  const std::string log = std::string(CCLAB_TEST_DATA) + "/training/measured/megatron.log";
  const Outcome run = ccsim("train --model gpt2-large --cluster dgx-a100 --gpus 8 --global-batch 16 --compare " + log + " --json");
  ASSERT_EQ(run.exitCode, 0) << run.err;
  const results::Json j = results::Json::parse(run.out);
  const results::Json& rows = j.at("measured").at("rows");
  ASSERT_EQ(rows.size(), 3u);  // step time, TFLOP/s, peak memory
  EXPECT_EQ(rows[0].at("what"), "step time (median)");
  EXPECT_DOUBLE_EQ(rows[0].at("predicted").get<double>(), j.at("step_time_s").at("total").get<double>());
  EXPECT_DOUBLE_EQ(rows[0].at("measured").get<double>(), (1.0804 + 1.092) / 2);  // steps 20 and 30
  EXPECT_DOUBLE_EQ(rows[2].at("measured").get<double>(), 5120.0 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(rows[2].at("predicted").get<double>(), j.at("memory_per_gpu_bytes").at("total").get<double>());
  for (const results::Json& r : rows) {
    EXPECT_NEAR(r.at("error_pct").get<double>(), 100 * (r.at("predicted").get<double>() / r.at("measured").get<double>() - 1), 1e-9);
  }
  const Outcome text = ccsim("train --model gpt2-large --cluster dgx-a100 --gpus 8 --global-batch 16 --warmup 0 --compare " +
                             std::string(CCLAB_TEST_DATA) + "/training/measured/pytorch_trace.json");
  ASSERT_EQ(text.exitCode, 0) << text.err;
  EXPECT_NE(text.out.find("exposed communication"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("hidden communication"), std::string::npos) << text.out;
  // A run of other settings is no check of these: refused where the file says what it ran.
  const Outcome other = ccsim("train --model gpt2-large --cluster dgx-a100 --gpus 8 --global-batch 64 --compare " + log);
  EXPECT_EQ(other.exitCode, 2);
  EXPECT_NE(other.err.find("it ran a global batch of 16, the prediction 64 (give --global-batch 16)"), std::string::npos) << other.err;
  const Outcome fewer = ccsim("train --model gpt2-large --cluster dgx-a100 --gpus 4 --global-batch 16 --compare " + log);
  EXPECT_EQ(fewer.exitCode, 2);
  EXPECT_NE(fewer.err.find("it ran on 8 GPUs, the prediction on 4 (give --gpus 8)"), std::string::npos) << fewer.err;
}

// A ccbench train record from the CPU holds its process's RSS, not a training peak: no memory row.
// The same record from a GPU (device memory in use) gets one.
TEST_F(Ccsim, TrainComparesNoPeakMemoryWithACpuRecordsRss) {
  const std::string settings = R"({"model": "gpt2", "cluster": "dgx-a100", "gpus": 1, "global-batch": 8, "micro-batch": 8})";
  auto record = [&](const char* name, const char* run) {
    return file(name, fmt::format(R"({{"schema": "cclab.training", "version": 1, "format": "cclab", "peak_allocated_bytes": 98566144,
        "steps": [{{"index": 0, "seconds": 0.5}}, {{"index": 1, "seconds": 0.4}}], "settings": {}, "run": {}}})", settings, run));
  };
  auto rows = [&](const std::string& path) {
    const Outcome run = ccsim("train --plan " + file("plan.json", settings) + " --compare " + path + " --json");
    EXPECT_EQ(run.exitCode, 0) << run.err;
    const results::Json j = results::Json::parse(run.out);
    std::vector<std::string> what;
    for (const results::Json& r : j.at("measured").at("rows")) what.push_back(r.at("what"));
    return what;
  };
  const std::vector<std::string> stepOnly = {"step time (median)"};
  EXPECT_EQ(rows(record("cpu.json", R"({"tool": "ccbench train", "memory": "RSS"})")), stepOnly);
  EXPECT_EQ(rows(record("cpu_old.json", R"({"tool": "ccbench train", "cpu": "AMD EPYC"})")), stepOnly);
  const std::vector<std::string> withMemory = {"step time (median)", "peak memory per GPU"};
  EXPECT_EQ(rows(record("gpu.json", R"({"tool": "ccbench train", "device": "cuda:0", "memory": "device memory in use"})")), withMemory);
}

// calibrate --training fits the step model's interference to measured steps and writes it into the
// cluster's GPU; the fitted cluster then predicts those steps.
TEST_F(Ccsim, CalibrateFitsTheStepModelToTrainingRecords) {
  const std::string settings = R"({"model": "llama2-7b", "cluster": "dgx-a100", "gpus": 16, "global-batch": 32, "zero": 3})";
  const Outcome predicted = ccsim("train --plan " + file("plan.json", settings) + " --json");
  ASSERT_EQ(predicted.exitCode, 0) << predicted.err;
  const double step = results::Json::parse(predicted.out).at("step_time_s").at("total").get<double>();
  // A measured step 8% slower than the preset predicts.
  const std::string record = file("record.json", fmt::format(R"({{"schema": "cclab.training", "version": 1, "format": "cclab",
      "steps": [{{"index": 0, "seconds": {0}}}, {{"index": 1, "seconds": {1}}}, {{"index": 2, "seconds": {1}}}], "settings": {2}}})",
                                                         3 * step, 1.08 * step, settings));
  const std::string fitted = (dir_ / "fitted.json").string();
  const Outcome run = ccsim("calibrate --training " + record + " --cluster dgx-a100 -o " + fitted);
  ASSERT_EQ(run.exitCode, 0) << run.err;
  EXPECT_NE(run.out.find("step time median |error|: 7."), std::string::npos) << run.out;  // 1/1.08 - 1 = -7.4% before
  const results::Json cluster = results::readJsonFile(fitted, "cluster");
  const double slowdown = cluster.at("gpu").at("step").at("compute_slowdown").get<double>();
  EXPECT_GT(slowdown, 0.3);  // more than the preset's 0.3
  const Outcome again = ccsim("train --plan " + file("plan2.json", settings) + " --cluster " + fitted + " --json");
  ASSERT_EQ(again.exitCode, 0) << again.err;
  EXPECT_NEAR(results::Json::parse(again.out).at("step_time_s").at("total").get<double>() / (1.08 * step), 1.0, 0.01);
  const Outcome none = ccsim("calibrate -o " + fitted);
  EXPECT_EQ(none.exitCode, 2);
  EXPECT_NE(none.err.find("--training"), std::string::npos) << none.err;
}

TEST_F(Ccsim, TrainAnswersTheZeroPapersQuestionFromAParameterCount) {
  const Outcome run = ccsim("train --params 7.5e9 --cluster dgx-a100 --nodes 8 --zero 2 --json");
  ASSERT_EQ(run.exitCode, 0) << run.err;
  const results::Json j = results::Json::parse(run.out);
  const results::Json& m = j.at("memory_per_gpu_bytes");
  EXPECT_DOUBLE_EQ(m.at("parameters").get<double>() + m.at("gradients").get<double>() + m.at("optimizer_states").get<double>(),
                   (2 + 14.0 / 64) * 7.5e9);
  EXPECT_FALSE(j.contains("step_time_s"));  // no shape, no step time
  // The CUDA context's allowance is counted here too, as for a model with a shape.
  EXPECT_DOUBLE_EQ(m.at("other").get<double>(), 2.0 * (1 << 30));
  const Outcome big = ccsim("train --params 7.5e9 --cluster dgx-a100 --nodes 8 --zero 2 --framework-overhead 50G --json");
  ASSERT_EQ(big.exitCode, 0) << big.err;
  const results::Json b = results::Json::parse(big.out);
  EXPECT_DOUBLE_EQ(b.at("memory_per_gpu_bytes").at("other").get<double>(), 50.0 * (1 << 30));
  EXPECT_DOUBLE_EQ(b.at("memory_per_gpu_bytes").at("total").get<double>() - m.at("total").get<double>(), 48.0 * (1 << 30));
}

// FP8 runs are quoted against the bf16 peak, which their fp8 GEMMs can pass: the report says so.
TEST_F(Ccsim, TrainSaysWhatPeakFp8UtilisationIsQuotedAgainst) {
  const std::string flags = "train --model gpt3-175b --cluster dgx-h100 --nodes 16 --global-batch 1024 --seq 2048 --zero 3 --micro-batch 8 "
                            "--recompute full --precision ";
  const Outcome fp8 = ccsim(flags + "fp8");
  ASSERT_EQ(fp8.exitCode, 0) << fp8.err;
  EXPECT_NE(fp8.out.find("of the bf16 peak (the layers' fp8 GEMMs run at up to 2.0x it)"), std::string::npos) << fp8.out;
  const Outcome mixed = ccsim(flags + "mixed --json");
  ASSERT_EQ(mixed.exitCode, 0) << mixed.err;
  const results::Json j = results::Json::parse(mixed.out);
  EXPECT_DOUBLE_EQ(j.at("peak_flops_per_gpu").get<double>(), 989.4e12);  // the H100 SXM's dense bf16
  EXPECT_NEAR(j.at("mfu").get<double>(),
              j.at("model_flops_per_step").get<double>() / (j.at("step_time_s").at("total").get<double>() * 128 * 989.4e12), 1e-12);
}

// Sequence parallelism splits the tensor-parallel group's activations: asked for without it, it
// is switched off as Megatron-LM does, and the report says so rather than dropping it silently.
TEST_F(Ccsim, TrainSaysWhenSequenceParallelismHasNoTensorParallelism) {
  const std::string flags = "train --model gpt2-medium --cluster dgx-a100 --gpus 8 --global-batch 64 --seq 1024 --sequence-parallel on ";
  const Outcome alone = ccsim(flags + "--tp 1");
  ASSERT_EQ(alone.exitCode, 0) << alone.err;
  EXPECT_NE(alone.out.find(", sequence parallelism off (it needs --tp > 1)\n"), std::string::npos) << alone.out;
  const Outcome split = ccsim(flags + "--tp 2");
  ASSERT_EQ(split.exitCode, 0) << split.err;
  EXPECT_NE(split.out.find("flash attention on, sequence parallel\n"), std::string::npos) << split.out;
  const Outcome off = ccsim("train --model gpt2-medium --cluster dgx-a100 --gpus 8 --global-batch 64 --seq 1024 --tp 1");
  ASSERT_EQ(off.exitCode, 0) << off.err;
  EXPECT_EQ(off.out.find("sequence parallel"), std::string::npos) << off.out;
}

// DeepSpeed's cpu_checkpointing, as a flag or from a ds_config.json (the flag wins): the
// checkpoints are reported in host memory, the copies as offload; without full recompute, or with
// a value that is not a switch, it is one line and exit 2.
TEST_F(Ccsim, CpuCheckpointingKeepsFullRecomputesCheckpointsInHostMemory) {
  const std::string flags = "train --model gpt2-xl --cluster dgx-2h --gpus 16 --global-batch 64 --micro-batch 4 --seq 1024 --zero 3 --recompute full ";
  const Outcome kept = ccsim(flags + "--json");
  const Outcome host = ccsim(flags + "--cpu-checkpointing on --json");
  ASSERT_EQ(kept.exitCode, 0) << kept.err;
  ASSERT_EQ(host.exitCode, 0) << host.err;
  const results::Json a = results::Json::parse(kept.out), b = results::Json::parse(host.out);
  // gpt2-xl: 48 layers' inputs, 4 samples x 1024 tokens x 1600 wide in 16-bit, a micro-batch at a time.
  const double checkpoints = 48.0 * 4 * 1024 * 1600 * 2;
  EXPECT_DOUBLE_EQ(b.at("memory_detail_bytes").at("checkpoints_in_host_memory").get<double>(), checkpoints);
  EXPECT_DOUBLE_EQ(a.at("memory_detail_bytes").at("checkpoints_in_host_memory").get<double>(), 0);
  EXPECT_TRUE(b.at("layout").at("cpu_checkpointing").get<bool>());
  EXPECT_LT(b.at("memory_per_gpu_bytes").at("activations").get<double>(), a.at("memory_per_gpu_bytes").at("activations").get<double>());
  EXPECT_GT(b.at("step_time_s").at("offload").get<double>(), 0);
  const std::string ds = file("ds.json", R"({"bf16": {"enabled": true}, "activation_checkpointing": {"cpu_checkpointing": true}})");
  const Outcome fromConfig = ccsim(flags + "--deepspeed " + ds);
  ASSERT_EQ(fromConfig.exitCode, 0) << fromConfig.err;
  EXPECT_NE(fromConfig.out.find("; checkpoints 0.59 GiB in host memory\n"), std::string::npos) << fromConfig.out;
  const Outcome overridden = ccsim(flags + "--deepspeed " + ds + " --cpu-checkpointing off");
  ASSERT_EQ(overridden.exitCode, 0) << overridden.err;
  EXPECT_EQ(overridden.out.find("in host memory"), std::string::npos) << overridden.out;
  const Outcome selective = ccsim("train --model gpt2-xl --cluster dgx-2h --gpus 16 --global-batch 64 --seq 1024 --recompute selective "
                                  "--cpu-checkpointing on");
  EXPECT_EQ(selective.exitCode, 2);
  EXPECT_NE(selective.err.find("give --recompute full with it"), std::string::npos) << selective.err;
  EXPECT_EQ(std::count(selective.err.begin(), selective.err.end(), '\n'), 1) << selective.err;
  const Outcome bad = ccsim(flags + "--cpu-checkpointing maybe");
  EXPECT_EQ(bad.exitCode, 2);
  EXPECT_NE(bad.err.find("--cpu-checkpointing"), std::string::npos) << bad.err;
}

// DeepSpeed's offload_optimizer.pin_memory, as a flag or from a ds_config.json (the flag wins):
// pageable host buffers (the default) make each gradient copy hold the host, so the step is
// longer than with pinned ones.
TEST_F(Ccsim, PinMemoryLetsTheGradientCopiesRunBesideTheBackward) {
  const std::string flags =
      "train --model gpt2-xl --cluster dgx-2h --gpus 16 --global-batch 64 --micro-batch 4 --seq 1024 --zero 2 --offload optimizer --json ";
  auto run = [&](const std::string& args) {
    const Outcome r = ccsim(flags + args);
    EXPECT_EQ(r.exitCode, 0) << r.err;
    return r.exitCode == 0 ? results::Json::parse(r.out) : results::Json::object();
  };
  const results::Json pageable = run(""), pinned = run("--pin-memory on");
  ASSERT_TRUE(pageable.contains("layout") && pinned.contains("layout"));
  EXPECT_FALSE(pageable.at("layout").at("pin_memory").get<bool>());
  EXPECT_TRUE(pinned.at("layout").at("pin_memory").get<bool>());
  EXPECT_GT(pageable.at("step_time_s").at("total").get<double>(), pinned.at("step_time_s").at("total").get<double>());
  const std::string ds = file("pin.json", R"({"bf16": {"enabled": true}, "zero_optimization": {"stage": 2, "overlap_comm": true,
      "offload_optimizer": {"device": "cpu", "pin_memory": true}}})");
  const std::string base = "train --model gpt2-xl --cluster dgx-2h --gpus 16 --global-batch 64 --micro-batch 4 --seq 1024 --json --deepspeed " + ds;
  const Outcome fromConfig = ccsim(base);
  ASSERT_EQ(fromConfig.exitCode, 0) << fromConfig.err;
  EXPECT_TRUE(results::Json::parse(fromConfig.out).at("layout").at("pin_memory").get<bool>());
  const Outcome overridden = ccsim(base + " --pin-memory off");
  ASSERT_EQ(overridden.exitCode, 0) << overridden.err;
  EXPECT_FALSE(results::Json::parse(overridden.out).at("layout").at("pin_memory").get<bool>());
  // Its bad input (nothing offloaded, not a switch): Ccsim.BadInputExitsTwoWithOneLine.
}

// DeepSpeed's offload_optimizer.pipeline_read / pipeline_write, as one flag or from a
// ds_config.json (the flag wins): the NVMe swapper reads and writes beside CPU-Adam, so the step
// is shorter than with the default swapper, which reads, updates and writes in turn.
TEST_F(Ccsim, SwapPipelineOverlapsTheNvmeSwapperWithCpuAdam) {
  const std::string flags = "train --model gpt3-175b --cluster dgx-2h --gpus 16 --global-batch 32 --micro-batch 2 --seq 2048 --zero 3 "
                            "--recompute full --offload optimizer --offload-device nvme --json ";
  auto run = [&](const std::string& args) {
    const Outcome r = ccsim(flags + args);
    EXPECT_EQ(r.exitCode, 0) << r.err;
    return r.exitCode == 0 ? results::Json::parse(r.out) : results::Json::object();
  };
  const results::Json inTurn = run(""), pipelined = run("--swap-pipeline on");
  ASSERT_TRUE(inTurn.contains("layout") && pipelined.contains("layout"));
  EXPECT_FALSE(inTurn.at("layout").at("pipeline_read").get<bool>());
  EXPECT_TRUE(pipelined.at("layout").at("pipeline_read").get<bool>());
  EXPECT_TRUE(pipelined.at("layout").at("pipeline_write").get<bool>());
  EXPECT_GT(inTurn.at("step_time_s").at("total").get<double>(), pipelined.at("step_time_s").at("total").get<double>());
  const std::string ds = file("swap.json", R"({"fp16": {"enabled": true}, "zero_optimization": {"stage": 3,
      "offload_optimizer": {"device": "nvme", "pipeline_read": true, "pipeline_write": true}}})");
  const std::string base =
      "train --model gpt3-175b --cluster dgx-2h --gpus 16 --global-batch 32 --micro-batch 2 --seq 2048 --recompute full --json --deepspeed " + ds;
  const Outcome fromConfig = ccsim(base);
  ASSERT_EQ(fromConfig.exitCode, 0) << fromConfig.err;
  EXPECT_DOUBLE_EQ(results::Json::parse(fromConfig.out).at("step_time_s").at("total").get<double>(),
                   pipelined.at("step_time_s").at("total").get<double>());
  const Outcome overridden = ccsim(base + " --swap-pipeline off");
  ASSERT_EQ(overridden.exitCode, 0) << overridden.err;
  EXPECT_FALSE(results::Json::parse(overridden.out).at("layout").at("pipeline_write").get<bool>());
  // Its bad input (no optimizer on NVMe, not a switch): Ccsim.BadInputExitsTwoWithOneLine.
}

// A DeepSpeed run overlaps the gradient reduction as DeepSpeed defaults overlap_comm: in ZeRO-3
// only, whether the stage comes from the config or from --zero; overlap_comm or the flag, when
// given, wins. FSDP's reduce-scatters have their own stream whatever the config says.
TEST_F(Ccsim, DeepSpeedOverlapFollowsTheStage) {
  const std::string flags = "train --model gpt2-xl --cluster dgx-a100 --gpus 16 --nodes 2 --global-batch 32 --seq 1024 --json ";
  const std::string two = file("two.json", R"({"bf16": {"enabled": true}, "zero_optimization": {"stage": 2}})");
  const std::string off = file("off.json", R"({"bf16": {"enabled": true}, "zero_optimization": {"stage": 2, "overlap_comm": false}})");
  auto step = [&](const std::string& args) {
    const Outcome run = ccsim(flags + args);
    EXPECT_EQ(run.exitCode, 0) << args << "\n" << run.err;
    return run.exitCode == 0 ? results::Json::parse(run.out).at("step_time_s").at("total").get<double>() : 0.0;
  };
  // Stage 2 from the config: no overlap, as --overlap-grad-reduce off.
  EXPECT_DOUBLE_EQ(step("--deepspeed " + two), step("--deepspeed " + two + " --overlap-grad-reduce off"));
  EXPECT_GT(step("--deepspeed " + two), step("--deepspeed " + two + " --overlap-grad-reduce on"));
  // --zero 3 over it: DeepSpeed's stage-3 default, overlapped.
  EXPECT_DOUBLE_EQ(step("--deepspeed " + two + " --zero 3"), step("--deepspeed " + two + " --zero 3 --overlap-grad-reduce on"));
  // overlap_comm false stated: kept at stage 3 too.
  EXPECT_DOUBLE_EQ(step("--deepspeed " + off + " --zero 3"), step("--deepspeed " + two + " --zero 3 --overlap-grad-reduce off"));
  // FSDP over a stage-2 config: its own streams, no refusal.
  EXPECT_GT(step("--deepspeed " + two + " --fsdp full_shard"), 0);
}

// ccsim plan keeps to the rules ccsim train does: a DeepSpeed config that offloads parameters
// (ZeRO-Infinity) leaves ZeRO-3 layouts only, and each plan runs as ccsim train.
TEST_F(Ccsim, PlanOffersOnlyLayoutsTrainAccepts) {
  const std::string ds = file("ds.json", R"({"zero_optimization": {"stage": 3, "offload_param": {"device": "nvme"},
      "offload_optimizer": {"device": "cpu"}}, "bf16": {"enabled": true}})");
  const Outcome run = ccsim("plan --model llama3-8b --cluster dgx-h100 --global-batch 64 --deepspeed " + ds + " --top 5 --json");
  ASSERT_EQ(run.exitCode, 0) << run.err;
  const results::Json j = results::Json::parse(run.out);
  ASSERT_FALSE(j.at("plans").empty());
  for (const results::Json& p : j.at("plans")) {
    const results::Json& l = p.at("layout");
    EXPECT_EQ(l.at("sharding"), "zero3") << l.dump();
    const Outcome train = ccsim(fmt::format("train --model llama3-8b --cluster dgx-h100 --global-batch 64 --deepspeed {} --tp {} --pp {} "
                                            "--zero 3 --micro-batch {} --recompute {}",
                                            ds, l.at("tp").get<int>(), l.at("pp").get<int>(), l.at("micro_batch").get<int>(),
                                            l.at("recompute").get<std::string>()));
    EXPECT_EQ(train.exitCode, 0) << train.err;
  }
  const Outcome fp8 = ccsim("plan --model llama3-8b --cluster dgx-h100 --global-batch 64 --precision fp8 --top 1");
  ASSERT_EQ(fp8.exitCode, 0) << fp8.err;
  EXPECT_NE(fp8.out.find("seq 8192, fp8 precision"), std::string::npos) << fp8.out;
}

TEST_F(Ccsim, TrainReadsHuggingFaceAndDeepSpeedConfigs) {
  const std::string training = std::string(CCLAB_TEST_DATA) + "/training";
  const Outcome run = ccsim("train --model " + training + "/gpt2-config.json --cluster dgx-a100 --seq 1024 --deepspeed " +
                            training + "/ds_config_zero2_offload.json");
  ASSERT_EQ(run.exitCode, 0) << run.err;
  EXPECT_NE(run.out.find("124439808"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("dp 8 x tp 1 x pp 1, zero2"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("global 256 = micro 4 x accumulation 8 x dp 8"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("to host memory"), std::string::npos) << run.out;
  // Too big for one GPU: the report says so and by how much.
  const Outcome big = ccsim("train --model llama2-13b --cluster dgx-a100 --gpus 1 --global-batch 1 --seq 4096");
  ASSERT_EQ(big.exitCode, 0) << big.err;
  EXPECT_NE(big.out.find("DOES NOT FIT"), std::string::npos) << big.out;
}

// A plan file (what ccplan saves) holds ccsim train's flags by name; flags given on the command
// line win over it, and `ccsim plan` takes its model, cluster and batch but searches the layout.
TEST_F(Ccsim, PlanFilesHoldTheFlagsAndFlagsWin) {
  const std::string plan = file("plan.json", R"({"model": "llama2-7b", "cluster": "dgx-a100", "gpus": 16, "tp": 2, "zero": 1,
      "global-batch": 64, "seq": 2048, "recompute": "selective"})");
  const Outcome fromFile = ccsim("train --plan " + plan + " --json");
  const Outcome fromFlags =
      ccsim("train --model llama2-7b --cluster dgx-a100 --gpus 16 --tp 2 --zero 1 --global-batch 64 --seq 2048 --recompute selective --json");
  ASSERT_EQ(fromFile.exitCode, 0) << fromFile.err;
  ASSERT_EQ(fromFlags.exitCode, 0) << fromFlags.err;
  EXPECT_EQ(fromFile.out, fromFlags.out);
  const Outcome overridden = ccsim("train --plan " + plan + " --zero 3 --tp 1 --json");
  ASSERT_EQ(overridden.exitCode, 0) << overridden.err;
  const results::Json j = results::Json::parse(overridden.out);
  EXPECT_EQ(j.at("layout").at("sharding"), "zero3");
  EXPECT_EQ(j.at("layout").at("tp"), 1);
  EXPECT_EQ(j.at("layout").at("recompute"), "selective");  // from the file
  EXPECT_EQ(j.at("gpus"), 16);
  const Outcome planned = ccsim("plan --plan " + plan + " --top 2 --json");
  ASSERT_EQ(planned.exitCode, 0) << planned.err;
  EXPECT_EQ(results::Json::parse(planned.out).at("gpus"), 16);
}

TEST_F(Ccsim, PlanPrintsTheFastestLayoutsThatFit) {
  const Outcome run = ccsim("plan --model gpt3-175b --cluster dgx-a100 --nodes 128 --global-batch 1536 --seq 2048 --top 5 --json");
  ASSERT_EQ(run.exitCode, 0) << run.err;
  const results::Json j = results::Json::parse(run.out);
  ASSERT_EQ(j.at("plans").size(), 5u);
  double previous = 0;
  for (const results::Json& p : j.at("plans")) {
    EXPECT_TRUE(p.at("fits").get<bool>());
    const double step = p.at("step_time_s").at("total").get<double>();
    EXPECT_GE(step, previous);
    previous = step;
    const results::Json& l = p.at("layout");
    EXPECT_EQ(l.at("dp").get<int>() * l.at("tp").get<int>() * l.at("pp").get<int>(), 1024);
  }
  EXPECT_EQ(j.at("explored").get<long>(), j.at("not_dividing").get<long>() + j.at("not_fitting").get<long>() + j.at("fitting").get<long>() +
                                              j.at("pruned").get<long>() + j.at("too_large").get<long>());
  const Outcome text = ccsim("plan --model llama2-7b --cluster dgx-a100 --global-batch 64 --seq 4096 --top 3");
  ASSERT_EQ(text.exitCode, 0) << text.err;
  EXPECT_NE(text.out.find("rank     dp  tp  pp vpp"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("best: dp "), std::string::npos) << text.out;
}

TEST_F(Ccsim, BadInputExitsTwoWithOneLine) {
  const std::string malformed = file("malformed.json", "{ \"name\": ");
  const std::string negative = file("negative.json", R"({"name": "x", "nodes": 1, "gpus_per_node": 2,
      "gpu": {"name": "g", "memory_bytes": 1, "memory_bandwidth_gbps": 1},
      "intra_node": {"kind": "nvswitch", "bandwidth_gbps": -100, "latency_us": 1}})");
  const std::string results = file("r.json", R"({"schema": "cclab-results", "schema_version": 1, "run": {}, "rows": []})");
  const std::string notResults = file("notes.txt", "hello\n");
  const std::string unknownGpu = file("z100.json", R"({"name": "x", "nodes": 1, "gpus_per_node": 2, "gpu": "z100",
      "intra_node": {"kind": "nvswitch", "bandwidth_gbps": 100, "latency_us": 1}})");
  const std::string training = std::string(CCLAB_TEST_DATA) + "/training";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"collective all_reduce --cluster " + malformed, "not valid JSON"},
      {"collective all_reduce --cluster " + negative, "intra_node.bandwidth_gbps: must be positive (got -100)"},
      {"collective all_reduce --cluster dgx-h100 --gpus-per-node 0", "--gpus-per-node must be at least 1"},
      {"collective all_reduce --cluster dgx-z900", "unknown cluster preset 'dgx-z900'"},
      {"collective all_reduce --cluster " + results, "a results file, not a cluster"},
      {"train --model gpt2-large --cluster dgx-a100 --gpus 8 --global-batch 16 --compare " + results,
       "schema: \"cclab-results\" is collective results, not a training measurement"},
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
      {"collective all_reduce --cluster " + unknownGpu, "gpu: unknown GPU 'z100' (models/gpus: "},
      {"train --model " + training + "/missing-layers-config.json --cluster dgx-a100 --global-batch 8", "num_hidden_layers: missing"},
      {"train --model llama2-7b --cluster dgx-a100 --global-batch 8 --tp 3", "--tp 3 x --pp 1 = 3 does not divide 8 GPUs"},
      {"train --model gpt2 --cluster dgx-a100 --global-batch 8 --tp 8", "--tp 8 does not divide the 12 attention heads"},
      {"train --model gpt2 --cluster dgx-a100 --nodes 2 --global-batch 16 --pp 16", "--pp 16 is more stages than the 12 layers"},
      {"train --model gpt2 --cluster dgx-a100 --global-batch 8 --pp 8 --vpp 2", "16 chunks do not divide the 12 layers"},
      {"train --model t5-11b --cluster dgx-a100 --global-batch 8 --tp 2", "model 't5-11b' is an encoder-decoder"},
      {"train --model gpt2 --cluster dgx-a100 --global-batch 100 --micro-batch 3", "--global-batch 100 is not a multiple of --micro-batch 3"},
      {"train --model gpt2 --cluster dgx-a100 --global-batch 8 --zero 5", "--zero 5 is not a ZeRO stage"},
      {"train --model gpt2 --cluster dgx-a100 --global-batch 8 --fsdp half_shard", "unknown FSDP strategy 'half_shard'"},
      {"train --model gpt2 --cluster dgx-a100 --global-batch 8 --zero 1 --fsdp full_shard", "--zero and --fsdp"},
      {"train --model gpt2 --cluster dgx-a100 --global-batch 8 --precision fp4", "unknown precision 'fp4'"},
      {"train --model gpt2 --cluster dgx-a100 --global-batch 8 --precision fp8", "gives no fp8 peak"},
      {"train --model gpt2 --cluster dgx-a100 --global-batch 8 --compare " + notResults, "not a training measurement"},
      // Found by fuzzing (tests/fuzz/corpus/ccsim_cli/oom-*): 1.6 million micro-batches were simulated until memory ran out.
      {"train --model gpt2 --cluster dgx-a100 --global-batch 12888888", "tasks to simulate"},
      {"train --model gpt2 --cluster dgx-a100 --global-batch 8 --warmup 9 --compare " + training + "/measured/memory_stats.json --warmup -1",
       "--warmup"},
      {"train --model gpt2 --cluster dgx-a100 --global-batch 8 --offload gpu", "unknown --offload 'gpu'"},
      {"train --model gpt2 --cluster dgx-a100 --global-batch 8 --seq 4096", "longer than the model's 1024 learned positions"},
      {"train --model gpt2 --params 1e9 --cluster dgx-a100", "give one of --model and --params, not both"},
      {"train --model gpt5 --cluster dgx-a100 --global-batch 8", "gpt5"},
      {"train --model gpt2 --cluster dgx-a100 --deepspeed " + training + "/ds_config_bad_stage.json", "stage: must be from 0 to 3 (got 4)"},
      {"train --model gpt2 --cluster dgx-a100 --deepspeed " + malformed, "not valid JSON"},
      {"train --model gpt2 --cluster dgx-a100 --nodes 4 --deepspeed " + training + "/ds_config_zero2_offload.json",
       "global batch 256 != micro-batch 4 x gradient_accumulation_steps 8 x data-parallel 32"},
      {"plan --model gpt2 --cluster dgx-a100", "needs --global-batch"},
      {"train --plan " + file("p1.json", R"({"model": "gpt2", "tensor": 2})"), "unknown setting 'tensor' (settings: model, params"},
      {"train --plan " + file("p2.json", R"({"model": "gpt2", "tp": "two"})"), "'tp' must be an integer (got \"two\")"},
      {"train --plan " + file("p3.json", R"(["gpt2"])"), "a plan file is a JSON object"},
      {"train --plan " + malformed, "not valid JSON"},
      {"train --plan " + (dir_ / "nowhere.json").string(), "nowhere.json': no such file"},
      {"train --plan " + file("p4.json", R"({"model": "gpt2", "global-batch": 8})"), "give the cluster"},
      {"plan --cluster dgx-a100 --global-batch 8", "give the model"},
      {"train --params -5 --cluster dgx-a100", "--params must be a number from 1 to 1e+15 (got -5)"},
      {"train --params 7.5e9 --cluster dgx-a100 --seq 1024", "--params prices the model states alone: --seq has nothing to act on"},
      {"plan --params 1e9 --cluster dgx-a100 --global-batch 8", "give --model, not --params"},
      {"plan --model gpt2 --cluster dgx-a100 --global-batch 8 --top 0", "--top must be at least 1"},
      {"plan --model gpt2 --cluster dgx-a100 --global-batch 8 --zero 3", "ccsim plan searches the layout itself: leave out --zero"},
      {"train --model gpt2 --cluster dgx-a100 --global-batch 16 --pp 4 --vpp 3 --schedule gpipe", "--vpp 3 needs --schedule interleaved"},
      {"train --model gpt2 --cluster dgx-a100 --global-batch 8 --offload optimizer", "offloading the optimizer needs its states sharded"},
      {"train --model gpt2 --cluster dgx-a100 --global-batch 8 --zero 2 --offload optimizer --offload-device nvme",
       "offloading to NVMe needs ZeRO-3"},
      {"train --model gpt2 --cluster dgx-a100 --global-batch 8 --offload-device nvme", "give --offload optimizer"},
      {"train --model gpt2 --cluster dgx-a100 --global-batch 8 --zero 1 --prefetch 2", "--prefetch is the parameter gathers' depth"},
      {"collective all_reduce --cluster dgx-a100 --impl bogus", "unknown --impl 'bogus' (valid: mpi, cclab, nccl)"},
      {"train --model gpt2-xl --cluster dgx-2h --gpus 16 --global-batch 64 --seq 1024 --zero 2 --pin-memory on",
       "--pin-memory on pins the host buffers"},
      {"train --model gpt2-xl --cluster dgx-2h --gpus 16 --global-batch 64 --seq 1024 --zero 2 --offload optimizer --pin-memory maybe",
       "--pin-memory"},
      {"train --model gpt2-xl --cluster dgx-2h --gpus 16 --global-batch 64 --seq 1024 --zero 3 --offload optimizer --swap-pipeline on",
       "--swap-pipeline on pipelines the NVMe swapper"},
      {"train --model gpt2-xl --cluster dgx-2h --gpus 16 --global-batch 64 --seq 1024 --zero 3 --offload optimizer --offload-device nvme "
       "--swap-pipeline maybe",
       "--swap-pipeline"},
      {"train --params 7e9 --cluster dgx-2h --gpus 16 --swap-pipeline off", "--swap-pipeline has nothing to act on"},
      {"train --model gpt2 --cluster dgx-a100 --global-batch 8 --fsdp full_shard --overlap-grad-reduce off",
       "--overlap-grad-reduce off: fsdp-full_shard reduce-scatters each unit's gradients on its own stream"},
      {"train --model gpt2 --cluster dgx-a100 --global-batch 8 --fsdp full_shard --tiles 4", "--tiles 4: memory-centric tiling"},
      {"train --model gpt2 --cluster dgx-a100 --global-batch 8 --zero 3 --tiles 0", "--tiles must be from 1 to 4096 (got 0)"},
      {"train --model gpt2 --cluster dgx-a100 --global-batch 8 --zero 3 --tiles 1024",
       "--tiles 1024 is more tiles than the narrowest linear layer's 768 outputs"},
      {"train --params 1e9 --cluster dgx-a100 --tiles 2", "--tiles has nothing to act on"},
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
