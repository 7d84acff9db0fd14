#pragma once

// A training estimate as people read it (text) and as tools read it (JSON, units in every key).

#include <string>

#include "results/results.h"
#include "sim/training/estimate.h"

namespace cclab::sim {

results::Json toJson(const TrainingEstimate& estimate, const std::string& model, const Cluster& cluster);
// The step's parts in seconds under the keys of `ccsim train --json`'s step_time_s (and of a
// training measurement's parts): compute, tp_comm, ..., interference, total.
results::Json toJson(const StepTime& step);
std::string formatReport(const TrainingEstimate& estimate, const std::string& model, const Cluster& cluster);
// 174.60 B, 3.20 M, 12.50 k: counts (parameters, tokens, GPU-hours, dollars) as reports print them.
std::string formatCount(double value);
// "12.3 days", "4.1 hours", "35.0 s".
std::string formatDuration(double seconds);
// "dp 8 x tp 8 x pp 16, zero1, 1f1b" and friends, for reports and the planner's table.
std::string describeLayout(const TrainConfig& config);
// Where a layout keeps its states, short, for the planner's tables: "-" (all on the GPU), else
// e.g. "optimizer+params:nvme ckpt:cpu tiles:4", "optimizer:cpu pinned", "optimizer:nvme pipelined".
std::string placementLabel(const TrainConfig& config);

}  // namespace cclab::sim
