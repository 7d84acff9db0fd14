#pragma once

// A prediction beside a measurement of the same training step (`ccsim train --compare`): the step
// time, its parts where the measurement has them, throughput and peak memory, each with its error.

#include <string>
#include <vector>

#include "results/training_record.h"
#include "sim/training/estimate.h"
#include "sim/training/settings.h"

namespace cclab::sim {

struct MeasuredRow {
  std::string what;  // "step time (median)", "compute", "peak memory", ...
  std::string unit;  // "s", "TFLOP/s", "bytes", "fraction"
  double predicted = 0, measured = 0;
  double errorPct() const { return 100 * (predicted / measured - 1); }
};

// The rows the measurement allows: step time (median after `warmup` steps) whenever it has step
// times; compute and exposed communication (tensor, pipeline, data-parallel and sharded
// together, which a profiler sees as NCCL kernels alone) and the hidden share of data-parallel
// communication when it has them (a PyTorch trace, ccbench train); TFLOP/s per GPU (hardware
// FLOPs) when the source prints it; peak memory per GPU against the peak allocated (not against
// ccbench train's CPU records, whose peak is the process's RSS).
std::vector<MeasuredRow> compareWithMeasurement(const TrainingEstimate& predicted, const results::TrainingMeasurement& measured,
                                                int warmup);

// What a measured record ran, from the settings it carries (its "settings" object, a plan file's
// object), resolved: the model, the job's cluster and the layout. InputError without settings.
PlanningInputs recordInputs(const results::TrainingMeasurement& measured);
// The simulator's estimate of that run.
TrainingEstimate predictRecord(const results::TrainingMeasurement& measured);

}  // namespace cclab::sim
