#include "sim/training/calibrate_step.h"

#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "collectives/errors.h"
#include "results/error_summary.h"
#include "sim/training/measured.h"

namespace cclab::sim {

StepFit fitStepInterference(const std::vector<results::TrainingMeasurement>& records, int warmup) {
  if (records.empty()) throw InputError("--training: no training record given");
  struct Prepared {
    std::string source;
    double measured;
    ModelCard model;
    TrainConfig config;
    Cluster job;
    double before = 0;
  };
  std::vector<Prepared> runs;
  for (const results::TrainingMeasurement& m : records) {
    PlanningInputs in = recordInputs(m);
    const results::StepStatistics steps = results::stepStatistics(m, warmup);
    if (steps.steps == 0) throw InputError(fmt::format("{}: no step time after {} warm-up step(s)", m.source, warmup));
    runs.push_back({m.source, steps.median, std::move(in.model), in.base, std::move(in.job)});
  }
  // Collective prices do not depend on the step knobs: one pricer per record for every x.
  std::vector<TrainingPricer> pricers;
  pricers.reserve(runs.size());
  for (const Prepared& r : runs) pricers.emplace_back(r.job, r.config.collectives);
  auto predict = [&](std::size_t k, std::optional<double> x) {
    GpuSpec::Step knobs = runs[k].job.gpu.step;
    if (x) knobs.computeSlowdown = knobs.commSlowdown = *x;
    pricers[k].setStepKnobs(knobs);
    return estimateTraining(runs[k].model, runs[k].config, pricers[k]).step.total;
  };
  StepFit fit;
  std::vector<double> errorsBefore;
  for (std::size_t k = 0; k < runs.size(); ++k) {
    runs[k].before = predict(k, std::nullopt);
    errorsBefore.push_back(std::abs(100 * (runs[k].before / runs[k].measured - 1)));
  }
  double bestError = std::numeric_limits<double>::infinity();
  for (int step = 0; step <= 200; ++step) {
    const double x = step / 100.0;
    std::vector<double> errors;
    for (std::size_t k = 0; k < runs.size(); ++k) errors.push_back(std::abs(100 * (predict(k, x) / runs[k].measured - 1)));
    const double error = results::median(errors);
    if (error < bestError - 1e-12) bestError = error, fit.slowdown = x;
  }
  std::vector<double> errorsAfter;
  for (std::size_t k = 0; k < runs.size(); ++k) {
    const double after = predict(k, fit.slowdown);
    fit.rows.push_back({runs[k].source, runs[k].measured, runs[k].before, after});
    errorsAfter.push_back(std::abs(100 * (after / runs[k].measured - 1)));
  }
  fit.medianErrorBeforePct = results::median(errorsBefore);
  fit.medianErrorAfterPct = results::median(errorsAfter);
  return fit;
}

}  // namespace cclab::sim
