// The step timeline against our own measured runs: eager PyTorch's GPT-2 training step on one H100
// (scripts/torch_step.py on the device machine, 2026-11-26; tests/data/training/own/, raw outputs
// in results/measured/gpu-1x-nvidia-h100/). Eleven model x micro-batch points, each predicted with
// the dgx-h100 preset and --execution eager, no per-row constant. One constant was fitted on them:
// the H100 description's eager_dispatch_us, on the GPT-2 micro-batch 1 row alone (the step there is
// the CPU's dispatch; docs/training.md, "Eager PyTorch on one H100"); the other ten are held out.
// The description's unaligned_gemm_slowdown was fitted on none of them (on one task of ccbench
// train's own H100 step: docs/training.md, "Unaligned GEMMs").

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "results/error_summary.h"
#include "results/results.h"
#include "sim/training/estimate.h"

namespace cclab::sim {
namespace {

struct Row {
  std::string model;
  int microBatch = 0;
  double measuredStep = 0, predictedStep = 0;      // seconds
  double measuredMemory = 0, predictedMemory = 0;  // bytes
  bool fit = false;
  double stepError() const { return predictedStep / measuredStep - 1; }
  double memoryError() const { return predictedMemory / measuredMemory - 1; }
};

// One GPU, eager PyTorch as scripts/torch_step.py runs it: bf16 autocast (mixed), AdamW (Adam's
// states and traffic), scaled_dot_product_attention (the flash kernel); resolved on the job.
TrainConfig eagerOnOneGpu(const ModelCard& model, int microBatch, int seq, const Cluster& job) {
  TrainConfig c;
  c.gpus = 1;
  c.seq = seq;
  c.microBatch = c.globalBatch = microBatch;
  c.precision = Precision::Mixed;
  c.optimizer = Optimizer::Adam;
  c.execution = Execution::Eager;
  c.flashAttention = true;
  resolve(c, model, job);
  return c;
}

std::vector<Row> predictOwnRuns() {
  std::ifstream in(std::string(CCLAB_TEST_DATA) + "/training/own/torch_step_h100.jsonl");
  std::vector<Row> rows;
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    const results::Json j = results::Json::parse(line);
    Row r;
    r.model = j.at("model").get<std::string>();
    r.microBatch = j.at("micro_batch").get<int>();
    r.measuredStep = j.at("step_ms_median").get<double>() / 1e3;
    r.measuredMemory = j.at("peak_allocated_gib").get<double>() * (1 << 30);
    r.fit = r.model == "gpt2" && r.microBatch == 1;
    const ModelCard model = loadModel(r.model);
    const Cluster job = jobCluster(loadCluster("dgx-h100"), 1);
    const TrainConfig c = eagerOnOneGpu(model, r.microBatch, j.at("seq").get<int>(), job);
    TrainingPricer pricer(job);
    const TrainingEstimate e = estimateTraining(model, c, pricer);
    r.predictedStep = e.step.total;
    // torch.cuda.max_memory_allocated counts PyTorch's tensors, not the CUDA context or the
    // workspaces the framework allowance stands for: compared without that allowance.
    r.predictedMemory = e.memory.total - e.memory.frameworkBytes;
    rows.push_back(r);
  }
  return rows;
}

TEST(OwnRuns, EagerPyTorchOnOneH100) {
  const std::vector<Row> rows = predictOwnRuns();
  ASSERT_EQ(rows.size(), 11u);
  std::vector<double> heldOut, memory;
  std::printf("| model | micro-batch | measured step ms | predicted ms | error | measured peak GiB | predicted GiB | error |\n");
  for (const Row& r : rows) {
    std::printf("| %s | %d%s | %.1f | %.1f | %+.1f%% | %.2f | %.2f | %+.1f%% |\n", r.model.c_str(), r.microBatch, r.fit ? " (fit)" : "",
                r.measuredStep * 1e3, r.predictedStep * 1e3, 100 * r.stepError(), r.measuredMemory / (1 << 30),
                r.predictedMemory / (1 << 30), 100 * r.memoryError());
    if (!r.fit) heldOut.push_back(std::abs(100 * r.stepError()));
    memory.push_back(std::abs(100 * r.memoryError()));
    if (r.fit) {
      EXPECT_NEAR(r.stepError(), 0.0, 0.02) << "the row eager_dispatch_us was fitted on";
    }
  }
  const double worst = *std::max_element(heldOut.begin(), heldOut.end());
  std::printf("held out: %zu rows, step median |error| %.1f%%, max %.1f%%; peak memory median %.1f%%, max %.1f%%\n",
              heldOut.size(), results::median(heldOut), worst, results::median(memory),
              *std::max_element(memory.begin(), memory.end()));
  // Issue 14's targets: step median 8%, max 15%, peak memory median 5%.
  EXPECT_LE(results::median(heldOut), 8.0);
  EXPECT_LE(worst, 15.0);
  EXPECT_LE(results::median(memory), 5.0);
}

// Without the fitted dispatch cost (the description's earlier estimate, 8 us an operator), the
// small, CPU-bound steps come out far too fast: the check can fail.
TEST(OwnRuns, TheCpuBoundStepNeedsTheDispatchCost) {
  const ModelCard model = loadModel("gpt2");
  Cluster job = jobCluster(loadCluster("dgx-h100"), 1);
  const TrainConfig c = eagerOnOneGpu(model, 1, 1024, job);
  TrainingPricer fitted(job);
  const double withFit = estimateTraining(model, c, fitted).step.total;
  job.gpu.step.eagerDispatchUs = 8;
  TrainingPricer estimated(job);
  const double withEstimate = estimateTraining(model, c, estimated).step.total;
  EXPECT_NEAR(withFit, 0.0215, 0.0215 * 0.02);  // measured: 21.5 ms
  EXPECT_LT(withEstimate, 0.0215 * 0.5);
}

// GPT-2's 50,257-token vocabulary puts its logits' GEMMs off 16-byte alignment. Priced as aligned
// (unaligned_gemm_slowdown 1), the GPU-bound GPT-2 rows come out 20-30% fast and fail the 15% bound;
// padded as nanoGPT pads it (--vocab-multiple 64), the same step is predicted 20% shorter, the
// speed-up nanoGPT reports for that padding.
TEST(OwnRuns, TheUnpaddedVocabularyCostsItsGemms) {
  const ModelCard model = loadModel("gpt2");
  Cluster job = jobCluster(loadCluster("dgx-h100"), 1);
  const TrainConfig c = eagerOnOneGpu(model, 16, 1024, job);
  const double measured = 0.0783;  // tests/data/training/own: GPT-2 micro-batch 16, 78.3 ms
  TrainingPricer fitted(job);
  const double withFactor = estimateTraining(model, c, fitted).step.total;
  ModelCard padded = model;
  padded.vocab = paddedVocabulary(model.vocab, 64);  // 50,304
  const double paddedStep = estimateTraining(padded, c, fitted).step.total;
  job.gpu.unalignedGemmSlowdown = 1;
  TrainingPricer aligned(job);
  const double withoutFactor = estimateTraining(model, c, aligned).step.total;
  EXPECT_LT(std::abs(withFactor / measured - 1), 0.15);
  EXPECT_LT(withoutFactor / measured - 1, -0.15);
  EXPECT_LT(paddedStep, 0.85 * withFactor);
  EXPECT_GT(paddedStep, withoutFactor);  // 47 more columns, aligned
}

}  // namespace
}  // namespace cclab::sim
