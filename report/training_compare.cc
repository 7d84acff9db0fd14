#include "report/training_compare.h"

#include <algorithm>
#include <cmath>
#include <exception>

#include <fmt/format.h>

#include "collectives/errors.h"
#include "report/statistics.h"
#include "sim/training/measured.h"

namespace cclab::report {

namespace {

// Whether the file is cclab's JSON training record by its schema, whatever else is wrong with it.
bool declaresTrainingSchema(const InputFile& file) {
  const results::Json doc = results::Json::parse(file.text, nullptr, /*allow_exceptions=*/false);
  return doc.is_object() && doc.contains("schema") && doc["schema"] == std::string(results::kTrainingSchema);
}

}  // namespace

std::optional<std::vector<results::TrainingMeasurement>> trainingMeasurements(const std::vector<InputFile>& files, std::string_view flag) {
  std::vector<results::TrainingMeasurement> records;
  const InputFile* other = nullptr;  // the first file that reads as no training measurement
  std::exception_ptr whyNot;
  for (const InputFile& file : files) {
    try {
      records.push_back(results::parseTraining(file.text, file.path));
    } catch (const InputError&) {
      if (declaresTrainingSchema(file)) throw;  // a broken training record: its own error, not the results reader's
      if (!other) other = &file, whyNot = std::current_exception();
    }
  }
  if (!other) return records;
  if (records.empty()) return std::nullopt;
  try {
    results::importResults(other->text, other->path);
  } catch (const InputError&) {
    std::rethrow_exception(whyNot);  // no results of either kind, among training measurements: most likely a broken one
  }
  throw InputError(fmt::format("{}: {} is a training measurement and {} collective results: give one kind at a time", flag,
                               records.front().source, other->path));
}

namespace {

std::vector<double> pooledSteps(const std::vector<results::TrainingMeasurement>& side, int warmup, const char* flag) {
  std::vector<double> steps;
  for (const results::TrainingMeasurement& m : side) {
    const std::vector<double> own = results::stepsAfterWarmup(m, warmup);
    steps.insert(steps.end(), own.begin(), own.end());
  }
  if (steps.empty()) throw InputError(fmt::format("{}: no step time after {} warm-up step(s) in its files", flag, warmup));
  return steps;
}

std::optional<double> peakMemory(const std::vector<results::TrainingMeasurement>& side) {
  std::optional<double> peak;
  for (const results::TrainingMeasurement& m : side) {
    if (m.peakAllocatedBytes) peak = std::max(peak.value_or(0), *m.peakAllocatedBytes);
  }
  return peak;
}

}  // namespace

Document compareTraining(const std::vector<results::TrainingMeasurement>& baseline, const std::vector<results::TrainingMeasurement>& current,
                         const CompareSettings& settings, int warmup) {
  const std::vector<double> before = pooledSteps(baseline, warmup, "--baseline"), after = pooledSteps(current, warmup, "--current");
  Document d;
  d.command = "compare";
  d.title = "ccreport compare: training steps";
  Table table{.key = "training", .title = "Training step", .columns = {}, .lines = {}, .testCases = true};
  table.columns = {{"what", "", Column::Shown::Everywhere, false},
                   {"baseline", "baseline", Column::Shown::Everywhere, true},
                   {"current", "current", Column::Shown::Everywhere, true},
                   {"change_pct", "change %", Column::Shown::Everywhere, true},
                   {"p_value", "p", Column::Shown::Everywhere, true},
                   {"samples", "steps", Column::Shown::Everywhere, true},
                   {"status", "status", Column::Shown::Everywhere, false}};
  int regressed = 0;
  // A change worse than the threshold (and significant where the U test applies) regresses; with
  // --either-way an improvement as large fails too.
  auto judge = [&](const std::string& what, double base, double now, std::optional<double> p, const std::string& samples, int decimals,
                   const char* unit) {
    const double change = 100 * (now / base - 1);
    const bool significant = !p || *p < settings.alpha;
    Status status = Status::Unchanged;
    if (change > settings.thresholdPct && significant) status = Status::Regressed;
    else if (change < -settings.thresholdPct && significant) status = settings.eitherWay ? Status::Regressed : Status::Improved;
    Line line;
    line.name = what;
    line.cells = {text(what), number(base, decimals), number(now, decimals), number(change, 1), number(p, 4), text(samples),
                  text(std::string(name(status)))};
    if (status == Status::Regressed) {
      ++regressed;
      line.tone = Tone::Bad;
      line.outcome = Outcome::Failed;
      line.message = fmt::format("{} {:+.1f}% ({} {} -> {} {})", what, change, base, unit, now, unit);
    } else if (status == Status::Improved) {
      line.tone = Tone::Good;
    }
    table.lines.push_back(std::move(line));
    return change;
  };
  const bool uTest = static_cast<int>(before.size()) >= settings.minSamples && static_cast<int>(after.size()) >= settings.minSamples;
  const std::optional<double> p = uTest ? std::optional<double>(mannWhitneyU(before, after).pValue) : std::nullopt;
  const double stepChange = judge("step time (median, s)", median(before), median(after), p, fmt::format("{} / {}", before.size(), after.size()), 4, "s");
  const std::optional<double> memoryBefore = peakMemory(baseline), memoryAfter = peakMemory(current);
  if (memoryBefore && memoryAfter) judge("peak memory (GiB)", *memoryBefore / (1u << 30), *memoryAfter / (1u << 30), std::nullopt, "", 2, "GiB");
  d.tables.push_back(std::move(table));
  d.failed = regressed > 0;
  d.summary = fmt::format("{} training step: median {:.4g} s -> {:.4g} s ({:+.1f}%){}, {} regressed", d.failed ? "FAIL" : "PASS",
                          median(before), median(after), stepChange, p ? fmt::format(", U test p = {:.3g}", *p) : ", threshold only",
                          regressed);
  d.summaryJson = {{"regressed", regressed}, {"step_change_pct", stepChange}, {"baseline_steps", before.size()}, {"current_steps", after.size()}};
  d.settings = {{"threshold_pct", settings.thresholdPct}, {"alpha", settings.alpha}, {"min_samples", settings.minSamples},
                {"warmup_steps", warmup}, {"either_way", settings.eitherWay}};
  if (!uTest) d.notes.push_back(fmt::format("fewer than {} steps on a side: judged on the threshold alone", settings.minSamples));
  return d;
}

Document trainingAccuracy(const std::vector<results::TrainingMeasurement>& measured, const AccuracySettings& settings, int warmup) {
  Document d;
  d.command = "accuracy";
  d.title = "ccreport accuracy: training steps";
  Table table{.key = "training", .title = "Predicted against measured training steps", .columns = {}, .lines = {}, .testCases = true};
  table.columns = {{"record", "record", Column::Shown::Everywhere, false},
                   {"measured_s", "measured s", Column::Shown::Everywhere, true},
                   {"predicted_s", "predicted s", Column::Shown::Everywhere, true},
                   {"error_pct", "error %", Column::Shown::Everywhere, true}};
  std::vector<double> errors;
  int failed = 0;
  for (const results::TrainingMeasurement& m : measured) {
    const results::StepStatistics steps = results::stepStatistics(m, warmup);
    if (steps.steps == 0) throw InputError(fmt::format("{}: no step time after {} warm-up step(s)", m.source, warmup));
    const double predicted = sim::predictRecord(m).step.total;
    const double error = 100 * (predicted / steps.median - 1);
    errors.push_back(std::abs(error));
    Line line;
    line.name = m.source;
    line.cells = {text(m.source), number(steps.median, 4), number(predicted, 4), number(error, 1)};
    if (settings.maxErrorPct && std::abs(error) > *settings.maxErrorPct) {
      ++failed;
      line.tone = Tone::Bad;
      line.outcome = Outcome::Failed;
      line.message = fmt::format("|error| {:.1f}% > {:g}%", std::abs(error), *settings.maxErrorPct);
    }
    table.lines.push_back(std::move(line));
  }
  const double medianError = median(errors);
  const bool medianFails = settings.maxMedianErrorPct && medianError > *settings.maxMedianErrorPct;
  d.failed = failed > 0 || medianFails;
  d.summary = fmt::format("{} {} training record{}: median |step error| {:.1f}%{}, max {:.1f}%", d.failed ? "FAIL" : "PASS", errors.size(),
                          errors.size() == 1 ? "" : "s", medianError,
                          settings.maxMedianErrorPct ? fmt::format(" (limit {:g}%)", *settings.maxMedianErrorPct) : "",
                          *std::max_element(errors.begin(), errors.end()));
  d.summaryJson = {{"records", errors.size()}, {"median_abs_error_pct", medianError}, {"over_max_error", failed}};
  d.settings = {{"warmup_steps", warmup}};
  if (settings.maxMedianErrorPct) d.settings["max_median_error_pct"] = *settings.maxMedianErrorPct;
  if (settings.maxErrorPct) d.settings["max_error_pct"] = *settings.maxErrorPct;
  d.tables.push_back(std::move(table));
  return d;
}

}  // namespace cclab::report
