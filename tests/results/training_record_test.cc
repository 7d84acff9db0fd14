// Training measurements (results/training_record.h): cclab's record and the importers of real
// runs — Megatron-LM and DeepSpeed logs, the PyTorch profiler's trace, torch.cuda.memory_stats() —
// on fixtures in their producers' formats (tests/data/training/measured/README.md).

#include <gtest/gtest.h>

#include "collectives/errors.h"
#include "results/json_reader.h"
#include "results/training_record.h"

namespace cclab::results {
namespace {

const std::string kData = std::string(CCLAB_TEST_DATA) + "/training/measured/";
constexpr double kMiB = 1024.0 * 1024, kGiB = kMiB * 1024;

std::string refusal(std::string_view text) {
  try {
    parseTraining(text, "x.log");
  } catch (const InputError& e) {
    return e.what();
  }
  return "accepted";
}

TEST(TrainingRecord, MegatronLogStepsBatchThroughputAndPeakMemory) {
  const TrainingMeasurement m = readTraining(kData + "megatron.log");
  EXPECT_EQ(m.format, "megatron-log");
  EXPECT_EQ(m.ranks, 8);
  ASSERT_EQ(m.steps.size(), 3u);
  EXPECT_EQ(m.steps[0].index, 10);
  EXPECT_EQ(m.steps[2].index, 30);
  EXPECT_DOUBLE_EQ(*m.steps[0].seconds, 1.1476);
  EXPECT_DOUBLE_EQ(*m.steps[1].seconds, 1.0804);
  EXPECT_EQ(m.globalBatch, 16);
  EXPECT_DOUBLE_EQ(*m.tflopsPerGpu, 103.3);  // the last line's
  EXPECT_DOUBLE_EQ(*m.peakAllocatedBytes, 5120.0 * kMiB);  // the largest rank's
  EXPECT_DOUBLE_EQ(*m.peakReservedBytes, 5600.0 * kMiB);
  const StepStatistics all = stepStatistics(m);
  EXPECT_EQ(all.steps, 3);
  EXPECT_DOUBLE_EQ(all.min, 1.0804);
  EXPECT_DOUBLE_EQ(all.median, 1.092);
  EXPECT_DOUBLE_EQ(all.p99, 1.1476);
  EXPECT_NEAR(all.mean, (1.1476 + 1.0804 + 1.092) / 3, 1e-12);
  const StepStatistics warm = stepStatistics(m, 1);  // the first interval holds the warm-up
  EXPECT_EQ(warm.steps, 2);
  EXPECT_DOUBLE_EQ(warm.median, (1.0804 + 1.092) / 2);
  EXPECT_EQ(stepStatistics(m, 5).steps, 0);
}

TEST(TrainingRecord, DeepSpeedLogBothLineShapes) {
  TrainingMeasurement m = readTraining(kData + "deepspeed.log");
  EXPECT_EQ(m.format, "deepspeed-log");
  ASSERT_EQ(m.steps.size(), 3u);
  EXPECT_EQ(m.steps[0].index, 10);
  EXPECT_EQ(m.steps[1].index, 20);
  EXPECT_EQ(m.steps[2].index, 30);  // "0/30, RunningAvgSamplesPerSec=..."
  EXPECT_DOUBLE_EQ(*m.steps[1].samplesPerSecond, 32.0);
  EXPECT_DOUBLE_EQ(*m.peakAllocatedBytes, 38.5 * kGiB);  // DeepSpeed's "GB" is 1024^3
  // The step time needs the global batch, which the line does not print.
  EXPECT_TRUE(stepSeconds(m).empty());
  m.globalBatch = 64;
  const std::vector<double> seconds = stepSeconds(m);
  ASSERT_EQ(seconds.size(), 3u);
  EXPECT_DOUBLE_EQ(seconds[0], 64 / 25.6);
  EXPECT_DOUBLE_EQ(seconds[1], 2.0);
  EXPECT_DOUBLE_EQ(seconds[2], 4.0);
}

TEST(TrainingRecord, PytorchTraceComputeExposedAndHiddenCommunication) {
  const TrainingMeasurement m = readTraining(kData + "pytorch_trace.json");
  EXPECT_EQ(m.format, "pytorch-trace");
  ASSERT_EQ(m.steps.size(), 2u);  // the CPU annotations; the GPU one is not a second step
  EXPECT_EQ(m.steps[0].index, 3);
  EXPECT_DOUBLE_EQ(*m.steps[0].seconds, 1e-3);
  // Step 3: compute 600 us, NCCL 500 us of which 200 under compute; step 4: compute 800 us
  // (two kernels), NCCL 200 us of which 100 under compute. Averages per step:
  EXPECT_NEAR(m.parts.at("compute"), (600 + 800) / 2 * 1e-6, 1e-12);
  EXPECT_NEAR(m.parts.at("exposed_comm"), (300 + 100) / 2 * 1e-6, 1e-12);
  EXPECT_NEAR(m.parts.at("hidden_comm_fraction"), 1 - 400.0 / 700, 1e-12);
  // The check can fail: the same trace with the NCCL kernels renamed counts them as compute.
  Json trace = readJsonFile(kData + "pytorch_trace.json", "trace");
  for (Json& e : trace["traceEvents"]) {
    if (e.contains("name") && e["name"].get<std::string>().rfind("nccl", 0) == 0) e["name"] = "some_kernel";
  }
  const TrainingMeasurement renamed = importPytorchTrace(trace, "renamed");
  EXPECT_EQ(renamed.parts.at("exposed_comm"), 0);
  EXPECT_EQ(renamed.parts.count("hidden_comm_fraction"), 0u);
}

// A real Kineto trace, trimmed: two steps of eager GPT-2 (micro-batch 16) on an H100 as
// scripts/torch_step.py --profile wrote it (PyTorch 2.11, 2026-11-26), every event kept as written
// but only each step's first 30 kernels, three cpu_ops and the metadata (the whole trace:
// results/measured/gpu-1x-nvidia-h100/vocab/trace_gpt2_mb16_v64.json.gz).
TEST(TrainingRecord, RealPytorchTraceFromAnH100) {
  const TrainingMeasurement m = readTraining(kData + "pytorch_trace_h100.json");
  EXPECT_EQ(m.format, "pytorch-trace");
  ASSERT_EQ(m.steps.size(), 2u);  // ProfilerStep#1 and #2; their gpu_user_annotation twins are not steps
  EXPECT_EQ(m.steps[0].index, 1);
  EXPECT_NEAR(*m.steps[0].seconds, 0.051005776, 1e-9);  // Kineto's timestamps are epoch microseconds: ns rounding
  EXPECT_NEAR(*m.steps[1].seconds, 0.052059501, 1e-9);
  // The kernels' union per step (1130.909 and 1128.926 us; no NCCL kernel on one GPU).
  EXPECT_NEAR(m.parts.at("compute"), (1130.9091796875 + 1128.92578125) / 2 * 1e-6, 1e-9);
  EXPECT_EQ(m.parts.at("exposed_comm"), 0);
  EXPECT_EQ(m.parts.count("hidden_comm_fraction"), 0u);
}

TEST(TrainingRecord, TorchMemoryStats) {
  const TrainingMeasurement m = readTraining(kData + "memory_stats.json");
  EXPECT_EQ(m.format, "torch-memory-stats");
  EXPECT_TRUE(m.steps.empty());
  EXPECT_DOUBLE_EQ(*m.peakAllocatedBytes, 40802189312.0);
  EXPECT_DOUBLE_EQ(*m.peakReservedBytes, 53687091200.0);
  const TrainingMeasurement short_ = parseTraining(R"({"max_memory_allocated": 1000, "max_memory_reserved": 2000})", "m.json");
  EXPECT_DOUBLE_EQ(*short_.peakAllocatedBytes, 1000);
}

TEST(TrainingRecord, JsonRoundTripAndFieldChecks) {
  TrainingMeasurement m = readTraining(kData + "megatron.log");
  m.parts["compute"] = 0.9;
  m.settings = Json{{"model", "gpt2"}, {"gpus", 8}};
  const std::string text = dumpJson(toJson(m));
  const TrainingMeasurement back = parseTraining(text, "back.json");
  EXPECT_EQ(back.format, "megatron-log");
  EXPECT_EQ(back.ranks, 8);
  EXPECT_EQ(back.globalBatch, 16);
  ASSERT_EQ(back.steps.size(), 3u);
  EXPECT_EQ(*back.steps[2].seconds, *m.steps[2].seconds);
  EXPECT_EQ(back.parts, m.parts);
  EXPECT_EQ(*back.peakAllocatedBytes, *m.peakAllocatedBytes);
  EXPECT_EQ(back.settings, m.settings);
  // A field out of range is refused with its path.
  Json bad = toJson(m);
  bad["steps"][1]["seconds"] = -1;
  try {
    trainingFromJson(bad, "bad.json");
    FAIL() << "a negative step time was accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), "bad.json: steps[1].seconds: must be positive (got -1)");
  }
  bad = toJson(m);
  bad["version"] = 2;
  EXPECT_THROW(trainingFromJson(bad, "v2.json"), InputError);
  bad = toJson(m);
  bad["steps"][0].erase("seconds");
  EXPECT_THROW(trainingFromJson(bad, "none.json"), InputError);
}

TEST(TrainingRecord, ForeignOrBrokenInputIsOneLine) {
  EXPECT_NE(refusal("hello\n").find("not a training measurement"), std::string::npos);
  EXPECT_NE(refusal(R"({"rows": []})").find("no training measurement"), std::string::npos);
  EXPECT_EQ(refusal(" iteration 5/10 | elapsed time per iteration (ms): nan |\n"),
            "x.log:1: 'elapsed time per iteration (ms):' without a positive number");
  EXPECT_EQ(refusal("x\n elapsed time per iteration (ms): 5 |\n"), "x.log:2: a training log line without its iteration number");
  EXPECT_EQ(refusal("global_step=3, RunningAvgSamplesPerSec=1, CurrSamplesPerSec=-2\n"),
            "x.log:1: 'CurrSamplesPerSec=' without a positive number");
  EXPECT_NE(refusal(R"({"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "ts": 0, "dur": 1}]})").find("no ProfilerStep"),
            std::string::npos);
  EXPECT_NE(refusal(R"({"traceEvents": [{"ph": "X", "name": "ProfilerStep#x", "ts": 0, "dur": 1}]})").find("ProfilerStep#<number>"),
            std::string::npos);
  EXPECT_NE(refusal(R"({"traceEvents": 3})").find("traceEvents: expected an array"), std::string::npos);
  // Positive but beyond any training run: a broken file, whichever format.
  EXPECT_EQ(refusal(R"({"max_memory_allocated": 1e300})"), "x.log: peak allocated memory of 1e+300 bytes is more than a GPU holds (up to 1e+16)");
  EXPECT_EQ(refusal(" iteration 5/10 | elapsed time per iteration (ms): 1e12 |\n"),
            "x.log: step 5 takes 1e+09 s, more than any training step (up to 1e+07)");
}

}  // namespace
}  // namespace cclab::results
