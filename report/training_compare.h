#pragma once

// ccreport compare on training measurements (results/training_record.h: ccsim train --compare's
// inputs — Megatron-LM and DeepSpeed logs, PyTorch traces, cclab records): the step times of the
// baseline files pooled against the current files', judged as collective rows are (a Mann-Whitney
// U test where both sides have enough steps, the threshold alone otherwise), and peak memory
// against the threshold.

#include <string>
#include <vector>

#include "report/accuracy.h"
#include "report/compare.h"
#include "results/training_record.h"

namespace cclab::report {

// Whether every file reads as a training measurement (and so the comparison is of steps, not rows).
bool allTrainingMeasurements(const std::vector<std::string>& paths);

// The steps after `warmup` of each file, pooled per side. InputError when a side has no step time.
Document compareTraining(const std::vector<results::TrainingMeasurement>& baseline, const std::vector<results::TrainingMeasurement>& current,
                         const CompareSettings& settings, int warmup);

// ccreport accuracy on training records that carry their settings: each predicted by the
// simulator and its median step (after `warmup`) compared; the gate as for collective rows.
Document trainingAccuracy(const std::vector<results::TrainingMeasurement>& measured, const AccuracySettings& settings, int warmup);

}  // namespace cclab::report
