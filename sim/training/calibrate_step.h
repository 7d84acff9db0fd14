#pragma once

// Fits the step model's interference to measured training steps (`ccsim calibrate --training`):
// compute_slowdown = comm_slowdown = x, and on CPU descriptions whose ranks outnumber the cores
// oversubscription_slowdown = o, the values that make the simulated step times closest to the
// measured ones (the median |error| of the median step after each record's warm-up).

#include <vector>

#include "results/training_record.h"
#include "sim/cluster.h"

namespace cclab::sim {

struct StepFitRow {
  std::string source;
  double measured = 0;              // median step time, s
  double before = 0, after = 0;     // predicted with the cluster's own interference, and with the fit
};

struct StepFit {
  double slowdown = 0;          // the fitted compute_slowdown = comm_slowdown
  double oversubscription = 0;  // the fitted oversubscription_slowdown (0 where no record oversubscribes)
  std::vector<StepFitRow> rows;
  double medianErrorBeforePct = 0, medianErrorAfterPct = 0;
};

// Each record must carry the settings it ran (its "settings" object, as a plan file); its steps
// after `warmup` are its measurement. x is searched over [0, 2] in steps of 0.01, o over [0, 1] in
// steps of 0.05; ties go to the smaller values. InputError when a record has no settings or no step time.
StepFit fitStepInterference(const std::vector<results::TrainingMeasurement>& records, int warmup = 1);

}  // namespace cclab::sim
