// The step model's interference fitted to measured steps (sim/training/calibrate_step.h): records
// made by the simulator with a known slowdown are fitted back to it from a cluster without one.

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "collectives/errors.h"
#include "results/json_reader.h"
#include "sim/training/calibrate_step.h"
#include "sim/training/measured.h"
#include "sim/training/settings.h"

namespace cclab::sim {
namespace {

namespace fs = std::filesystem;

// A record of `settings` whose steps take what the simulator says on `truth`.
results::TrainingMeasurement recordOf(TrainingSettings settings, const Cluster& truth, const std::string& clusterFile) {
  settings.cluster = clusterFile;
  PlanningInputs in = planningInputs(settings);
  resolve(in.base, in.model, in.job);
  Cluster job = truth;
  reshape(job, in.job.nodes, in.job.gpusPerNode);
  TrainingPricer pricer(job);
  const double step = estimateTraining(in.model, in.base, pricer).step.total;
  results::TrainingMeasurement m;
  m.source = settings.model + " zero " + std::to_string(settings.zero.value_or(0));
  m.format = "cclab";
  for (int i = 0; i < 4; ++i) m.steps.push_back({i, step * (i == 0 ? 3 : 1), std::nullopt});  // a slow first step
  m.settings = toJson(settings);
  return m;
}

TEST(StepFit, RecoversAKnownInterference) {
  const fs::path dir = fs::temp_directory_path() / ("cclab_step_fit_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  Cluster plain = loadCluster("dgx-a100");
  plain.gpu.step.computeSlowdown = plain.gpu.step.commSlowdown = 0;
  const fs::path file = dir / "plain.json";
  std::ofstream(file) << results::dumpJson(toJson(plain), 2);
  Cluster truth = plain;
  truth.gpu.step.computeSlowdown = truth.gpu.step.commSlowdown = 0.4;

  std::vector<results::TrainingMeasurement> records;
  for (const auto& [model, gpus, zero] : {std::tuple{"llama2-7b", 16, 3}, std::tuple{"llama2-13b", 32, 3}, std::tuple{"gpt2-xl", 16, 1}}) {
    TrainingSettings s;
    s.model = model;
    s.gpus = gpus;
    s.globalBatch = 2 * gpus;
    s.zero = zero;
    records.push_back(recordOf(s, truth, file.string()));
  }
  const StepFit fit = fitStepInterference(records);
  EXPECT_NEAR(fit.slowdown, 0.40, 0.011);
  EXPECT_GT(fit.medianErrorBeforePct, 1.0);   // the plain cluster misses ...
  EXPECT_LT(fit.medianErrorAfterPct, 0.3);    // ... the fitted one does not
  ASSERT_EQ(fit.rows.size(), 3u);
  for (const StepFitRow& r : fit.rows) EXPECT_LT(r.before, r.measured);  // interference only slows

  // A record without its settings cannot be fitted.
  records[0].settings = nullptr;
  EXPECT_THROW(fitStepInterference(records), InputError);
  fs::remove_all(dir);
}

// ccbench train's records before 2026-12-06 kept the global batch beside their settings, not in
// them: a record replays with either, and says which record lacks both.
TEST(StepFit, ARecordsGlobalBatchIsReadBesideItsSettings) {
  TrainingSettings s;
  s.model = "gpt2";
  s.cluster = "dgx-a100";
  s.gpus = 8;
  s.globalBatch = 16;
  results::TrainingMeasurement m;
  m.source = "old.json";
  m.settings = toJson(s);
  const double step = predictRecord(m).step.total;
  m.settings.erase("global-batch");
  m.globalBatch = 16;
  EXPECT_DOUBLE_EQ(predictRecord(m).step.total, step);
  m.globalBatch = 0;
  try {
    predictRecord(m);
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), "old.json: the record gives no global batch (settings \"global-batch\" or \"global_batch\")");
  }
}

TEST(StepFit, RecoversAKnownOversubscriptionOnACpuDescription) {
  // Four ranks on the 2-core description: what ranks outnumbering cores lose beyond their share
  // (oversubscription_slowdown) is fitted back; two ranks (one per core) do not feel it.
  const fs::path dir = fs::temp_directory_path() / ("cclab_step_fit_cpu_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  Cluster plain = loadCluster("cpu-2core-amd-epyc");
  plain.gpu.step = {};
  const fs::path file = dir / "plain.json";
  std::ofstream(file) << results::dumpJson(toJson(plain), 2);
  Cluster truth = plain;
  truth.gpu.step.oversubscriptionSlowdown = 0.3;

  std::vector<results::TrainingMeasurement> records;
  for (const auto& [ranks, zero, pp] : {std::tuple{4, 3, 1}, std::tuple{4, 0, 4}, std::tuple{4, 1, 1}, std::tuple{2, 0, 1}}) {
    TrainingSettings s;
    s.model = "gpt2";
    s.scale = 8;
    s.precision = "fp32";
    s.gpus = ranks;
    s.gpusPerNode = ranks;
    s.pp = pp;
    s.microBatch = 2;
    s.globalBatch = 16;
    s.zero = zero;
    records.push_back(recordOf(s, truth, file.string()));
  }
  const StepFit fit = fitStepInterference(records);
  EXPECT_NEAR(fit.oversubscription, 0.30, 0.026);  // the grid's step is 0.05
  EXPECT_LT(fit.medianErrorAfterPct, 1.0);
  EXPECT_NEAR(fit.rows.back().before, fit.rows.back().measured, 1e-9 * fit.rows.back().measured);  // 2 ranks on 2 cores
  EXPECT_LT(fit.rows.front().before, 0.95 * fit.rows.front().measured);                            // 4 ranks on 2 cores
  fs::remove_all(dir);
}

}  // namespace
}  // namespace cclab::sim
