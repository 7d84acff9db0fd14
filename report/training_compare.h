#pragma once

// ccreport compare on training measurements (results/training_record.h: ccsim train --compare's
// inputs — Megatron-LM and DeepSpeed logs, PyTorch traces, cclab records): the step times of the
// baseline files pooled against the current files', judged as collective rows are (a Mann-Whitney
// U test where both sides have enough steps, the threshold alone otherwise), and peak memory
// against the threshold.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "report/accuracy.h"
#include "report/compare.h"
#include "report/matching.h"
#include "results/training_record.h"

namespace cclab::report {

// The side's files as training measurements when every one reads as one; nullopt when none does
// (collective results, or no results at all: loadSide says which). Throws InputError when a side
// mixes the two kinds, naming a file of each, or holds a training measurement the reader refuses
// beside ones it reads (that file's own error).
std::optional<std::vector<results::TrainingMeasurement>> trainingMeasurements(const std::vector<InputFile>& files, std::string_view flag);

// The steps after `warmup` of each file, pooled per side. InputError when a side has no step time.
Document compareTraining(const std::vector<results::TrainingMeasurement>& baseline, const std::vector<results::TrainingMeasurement>& current,
                         const CompareSettings& settings, int warmup);

// ccreport accuracy on training records that carry their settings: each predicted by the
// simulator and its median step (after `warmup`) compared; the gate as for collective rows.
Document trainingAccuracy(const std::vector<results::TrainingMeasurement>& measured, const AccuracySettings& settings, int warmup);

}  // namespace cclab::report
