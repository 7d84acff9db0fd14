#pragma once

// Measured against predicted, row by row, with the error summarised by size range: how far to
// trust a (calibrated) cluster description.

#include <string>
#include <vector>

#include "results/error_summary.h"
#include "sim/cluster.h"
#include "sim/measurements.h"

namespace cclab::sim {

struct ValidatedRow {
  const Measurement* measurement = nullptr;
  double predictedUs = 0;
  std::string algo;         // what the prediction priced
  bool calibrated = false;
  double errorPct = 0;      // (predicted - measured) / measured * 100
};


// One implementation's algorithm for one collective (the measured row's `algo`): its error below
// 64 KiB (latency-bound) and from 64 KiB (bandwidth-bound), the two numbers a per-algorithm
// model is judged by (docs/simulator.md, "Every algorithm, measured and predicted").
struct AlgorithmErrors {
  std::string backend, algo;
  Collective collective{};
  results::ErrorSummary small, large;  // "< 64 KiB", ">= 64 KiB"
};

struct ValidationReport {
  std::vector<ValidatedRow> rows;
  std::vector<results::ErrorSummary> ranges;  // results::summarizeErrorsBySize: the size ranges, then ">= 64 KiB" and "all"
  std::vector<AlgorithmErrors> byAlgorithm;   // in (backend, collective, algo) order
  std::vector<std::string> notes;
};

// Predicts every row on the cluster reshaped to the row's placement (ranks, nodes), with the
// calibration of the row's implementation where the cluster holds one.
ValidationReport validate(const Cluster& cluster, const std::vector<Measurement>& rows);

results::Json toJson(const ValidationReport& report);

}  // namespace cclab::sim
