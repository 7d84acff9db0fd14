#pragma once

// Training-step measurements: one record for every source of measured training steps, so the
// simulator's predictions meet them in one shape (docs/results-schema.md, "Training
// measurements"). A record holds the steps' times (or throughput), what a step is made of where
// the source says (the keys of `ccsim train --json`'s step_time_s), and peak memory. Sources:
// cclab's own JSON form (schema "cclab.training"), and what real runs leave behind — Megatron-LM's
// and DeepSpeed's training log lines, the PyTorch profiler's Chrome trace, and
// torch.cuda.memory_stats() as JSON. readTraining tells them apart by content.

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "results/results.h"

namespace cclab::results {

inline constexpr std::string_view kTrainingSchema = "cclab.training";
inline constexpr int kTrainingSchemaVersion = 1;

struct TrainingStep {
  long index = 0;                           // the source's iteration / global step number
  std::optional<double> seconds;            // the step's time
  std::optional<double> samplesPerSecond;   // or its throughput (DeepSpeed prints only that)
};

struct TrainingMeasurement {
  std::string source;  // the file it was read from
  std::string format;  // "cclab", "megatron-log", "deepspeed-log", "pytorch-trace", "torch-memory-stats"
  int ranks = 0;       // 0: not known
  long globalBatch = 0;  // samples per step; 0: not known
  std::vector<TrainingStep> steps;
  // Seconds per step, averaged over the steps, by part, under the keys ccsim train prints
  // (compute, tp_comm, ..., pipeline_bubble, optimizer); the PyTorch trace also gives
  // "exposed_comm" and "hidden_comm_fraction" (a fraction, not seconds).
  std::map<std::string, double> parts;
  std::optional<double> peakAllocatedBytes, peakReservedBytes;
  std::optional<double> tflopsPerGpu;  // as the source counts it (Megatron-LM's eq. 3)
  Json settings;  // the ccsim train settings it ran (a plan file's object), or null
  Json run;       // how it was measured (ccbench train: backend, compute mode, host, command), or null
};

// Each step's time in seconds: its own, or the global batch over its throughput. Steps with
// neither (no global batch known) are left out.
std::vector<double> stepSeconds(const TrainingMeasurement& m);

// The step times after the run's first `warmup` steps: a record that left steps out already
// (ccbench train's, `run.warmup_steps`) has only the rest to drop, so every tool reads one record
// the same way whatever it was made with.
std::vector<double> stepsAfterWarmup(const TrainingMeasurement& m, int warmup);

struct StepStatistics {
  int steps = 0;
  double min = 0, median = 0, p99 = 0, mean = 0;
};
// Over stepsAfterWarmup(m, warmup); steps == 0 when there are none.
StepStatistics stepStatistics(const TrainingMeasurement& m, int warmup = 0);

Json toJson(const TrainingMeasurement& m);
// The record's JSON form, checked field by field ("<source>: steps[3].seconds: must be positive").
TrainingMeasurement trainingFromJson(const Json& j, const std::string& source);

// Importers: InputError "<source>: ..." when the text holds no step of the format.
TrainingMeasurement importMegatronLog(std::string_view text, const std::string& source);
TrainingMeasurement importDeepSpeedLog(std::string_view text, const std::string& source);
TrainingMeasurement importPytorchTrace(const Json& trace, const std::string& source);
TrainingMeasurement importTorchMemoryStats(const Json& stats, const std::string& source);

// Any of the above from its text, told apart by content.
TrainingMeasurement parseTraining(std::string_view text, const std::string& source);
TrainingMeasurement readTraining(const std::filesystem::path& path);

}  // namespace cclab::results
