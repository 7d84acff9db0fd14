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
  struct Knobs {
    double x = 0, o = 0;
  };
  auto predict = [&](std::size_t k, std::optional<Knobs> fitted) {
    GpuSpec::Step knobs = runs[k].job.gpu.step;
    if (fitted) {
      knobs.computeSlowdown = knobs.commSlowdown = fitted->x;
      knobs.oversubscriptionSlowdown = fitted->o;
    }
    pricers[k].setStepKnobs(knobs);
    return estimateTraining(runs[k].model, runs[k].config, pricers[k]).step.total;
  };
  // The oversubscription knob only acts where ranks outnumber a CPU node's cores: elsewhere it
  // stays 0.
  bool oversubscribed = false;
  for (const Prepared& r : runs) {
    oversubscribed |= r.job.intra.kind == FabricKind::SharedMemory && r.job.intra.cores > 0 && r.job.gpusPerNode > r.job.intra.cores;
  }
  StepFit fit;
  std::vector<double> errorsBefore;
  for (std::size_t k = 0; k < runs.size(); ++k) {
    runs[k].before = predict(k, std::nullopt);
    errorsBefore.push_back(std::abs(100 * (runs[k].before / runs[k].measured - 1)));
  }
  double bestError = std::numeric_limits<double>::infinity();
  for (int os = 0; os <= (oversubscribed ? 20 : 0); ++os) {
    for (int step = 0; step <= 200; ++step) {
      const Knobs knobs{step / 100.0, os / 20.0};
      std::vector<double> errors;
      for (std::size_t k = 0; k < runs.size(); ++k) errors.push_back(std::abs(100 * (predict(k, knobs) / runs[k].measured - 1)));
      double error = 0;
      for (double e : errors) error += e / static_cast<double>(errors.size());
      if (error < bestError - 1e-12) bestError = error, fit.slowdown = knobs.x, fit.oversubscription = knobs.o;
    }
  }
  std::vector<double> errorsAfter;
  for (std::size_t k = 0; k < runs.size(); ++k) {
    const double after = predict(k, Knobs{fit.slowdown, fit.oversubscription});
    fit.rows.push_back({runs[k].source, runs[k].measured, runs[k].before, after});
    errorsAfter.push_back(std::abs(100 * (after / runs[k].measured - 1)));
  }
  fit.medianErrorBeforePct = results::median(errorsBefore);
  fit.medianErrorAfterPct = results::median(errorsAfter);
  return fit;
}

}  // namespace cclab::sim
