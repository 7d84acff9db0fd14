#include "results/training_record.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "results/json_reader.h"

namespace cclab::results {

std::vector<double> stepSeconds(const TrainingMeasurement& m) {
  std::vector<double> out;
  for (const TrainingStep& step : m.steps) {
    if (step.seconds) {
      out.push_back(*step.seconds);
    } else if (step.samplesPerSecond && m.globalBatch > 0) {
      out.push_back(static_cast<double>(m.globalBatch) / *step.samplesPerSecond);
    }
  }
  return out;
}

std::vector<double> stepsAfterWarmup(const TrainingMeasurement& m, int warmup) {
  std::vector<double> times = stepSeconds(m);
  int leftOut = 0;  // by the tool that wrote the record
  if (m.run.is_object() && m.run.contains("warmup_steps") && m.run.at("warmup_steps").is_number_integer()) {
    leftOut = static_cast<int>(std::clamp<long long>(m.run.at("warmup_steps").get<long long>(), 0, 1 << 20));
  }
  const int drop = std::max(0, warmup - leftOut);
  times.erase(times.begin(), times.begin() + std::min<std::size_t>(times.size(), static_cast<std::size_t>(drop)));
  return times;
}

StepStatistics stepStatistics(const TrainingMeasurement& m, int warmup) {
  std::vector<double> times = stepsAfterWarmup(m, warmup);
  StepStatistics s;
  if (times.empty()) return s;
  std::sort(times.begin(), times.end());
  s.steps = static_cast<int>(times.size());
  s.min = times.front();
  const std::size_t n = times.size();
  s.median = n % 2 ? times[n / 2] : (times[n / 2 - 1] + times[n / 2]) / 2;
  // The nearest-rank 99th percentile: the smallest time at or above 99% of the steps.
  s.p99 = times[static_cast<std::size_t>(std::ceil(0.99 * static_cast<double>(n))) - 1];
  double sum = 0;
  for (double t : times) sum += t;
  s.mean = sum / static_cast<double>(n);
  return s;
}

Json toJson(const TrainingMeasurement& m) {
  Json steps = Json::array();
  for (const TrainingStep& step : m.steps) {
    Json s = {{"index", step.index}};
    if (step.seconds) s["seconds"] = *step.seconds;
    if (step.samplesPerSecond) s["samples_per_s"] = *step.samplesPerSecond;
    steps.push_back(std::move(s));
  }
  Json j = {{"schema", std::string(kTrainingSchema)}, {"version", kTrainingSchemaVersion}, {"format", m.format}, {"steps", steps}};
  if (m.ranks > 0) j["ranks"] = m.ranks;
  if (m.globalBatch > 0) j["global_batch"] = m.globalBatch;
  if (!m.parts.empty()) j["step_parts_s"] = m.parts;
  if (m.peakAllocatedBytes) j["peak_allocated_bytes"] = *m.peakAllocatedBytes;
  if (m.peakReservedBytes) j["peak_reserved_bytes"] = *m.peakReservedBytes;
  if (m.tflopsPerGpu) j["tflops_per_gpu"] = *m.tflopsPerGpu;
  if (!m.settings.is_null()) j["settings"] = m.settings;
  if (!m.run.is_null()) j["run"] = m.run;
  return j;
}

TrainingMeasurement trainingFromJson(const Json& j, const std::string& source) {
  const JsonReader in(j, source);
  const std::string schema = in.get<std::string>("schema");
  if (schema == kSchemaName) in.fail("schema", fmt::format("\"{}\" is collective results, not a training measurement", schema));
  if (schema != kTrainingSchema) in.fail("schema", fmt::format("expected \"{}\"", kTrainingSchema));
  const int version = in.get<int>("version");
  if (version < 1 || version > kTrainingSchemaVersion) {
    in.fail("version", fmt::format("{} is not a version this cclab reads (1 to {})", version, kTrainingSchemaVersion));
  }
  TrainingMeasurement m;
  m.source = source;
  m.format = in.get<std::string>("format");
  m.ranks = in.within<int>("ranks", 1, 1 << 24, 0);
  m.globalBatch = in.within<long>("global_batch", 1, 1L << 40, 0);
  const Json& steps = in.array("steps");
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const JsonReader s = in.element("steps", i);
    TrainingStep step;
    step.index = s.within<long>("index", 0, 1L << 50);
    if (s.has("seconds")) step.seconds = s.positive("seconds");
    if (s.has("samples_per_s")) step.samplesPerSecond = s.positive("samples_per_s");
    if (!step.seconds && !step.samplesPerSecond) s.fail("seconds", "missing (a step needs seconds or samples_per_s)");
    m.steps.push_back(step);
  }
  if (in.has("step_parts_s")) {
    const JsonReader parts = in.child("step_parts_s");
    for (const auto& [key, value] : parts.json().items()) m.parts[key] = parts.positive(key, /*allowZero=*/true);
  }
  if (in.has("peak_allocated_bytes")) m.peakAllocatedBytes = in.positive("peak_allocated_bytes");
  if (in.has("peak_reserved_bytes")) m.peakReservedBytes = in.positive("peak_reserved_bytes");
  if (in.has("tflops_per_gpu")) m.tflopsPerGpu = in.positive("tflops_per_gpu");
  if (in.has("settings")) {
    if (!j.at("settings").is_object()) in.fail("settings", fmt::format("expected an object, found {}", quoted(j.at("settings"))));
    m.settings = j.at("settings");
  }
  if (in.has("run")) {
    if (!j.at("run").is_object()) in.fail("run", fmt::format("expected an object, found {}", quoted(j.at("run"))));
    m.run = j.at("run");
  }
  return m;
}

namespace {

// Every format's reader takes positive numbers; what no training step can be (a step of a year, a
// petabyte on one GPU) is a broken file, said once here for all of them.
TrainingMeasurement plausible(TrainingMeasurement m) {
  constexpr double kLongestStepS = 1e7, kLargestBytes = 1e16;
  for (const TrainingStep& step : m.steps) {
    if (step.seconds && *step.seconds > kLongestStepS) {
      throw InputError(fmt::format("{}: step {} takes {:g} s, more than any training step (up to {:g})", m.source, step.index, *step.seconds,
                                   kLongestStepS));
    }
  }
  for (const auto& [what, bytes] : {std::pair{"peak allocated", m.peakAllocatedBytes}, std::pair{"peak reserved", m.peakReservedBytes}}) {
    if (bytes && *bytes > kLargestBytes) {
      throw InputError(fmt::format("{}: {} memory of {:g} bytes is more than a GPU holds (up to {:g})", m.source, what, *bytes, kLargestBytes));
    }
  }
  return m;
}

TrainingMeasurement parseAnyTraining(std::string_view text, const std::string& source) {
  const std::size_t first = text.find_first_not_of(" \t\r\n");
  if (first != std::string_view::npos && text[first] == '{') {
    const Json j = parseJson(text, source);
    if (j.contains("schema")) return trainingFromJson(j, source);
    if (j.contains("traceEvents")) return importPytorchTrace(j, source);
    if (j.contains("allocated_bytes.all.peak") || j.contains("max_memory_allocated")) return importTorchMemoryStats(j, source);
    throw InputError(fmt::format("{}: a JSON object that is no training measurement (no \"schema\", \"traceEvents\" or "
                                 "torch.cuda.memory_stats() keys)",
                                 source));
  }
  if (text.find("elapsed time per iteration (ms):") != std::string_view::npos) return importMegatronLog(text, source);
  if (text.find("CurrSamplesPerSec=") != std::string_view::npos) return importDeepSpeedLog(text, source);
  throw InputError(fmt::format("{}: not a training measurement (cclab JSON, a PyTorch profiler trace, torch.cuda.memory_stats() "
                               "JSON, or a Megatron-LM or DeepSpeed training log)",
                               source));
}

}  // namespace

TrainingMeasurement parseTraining(std::string_view text, const std::string& source) { return plausible(parseAnyTraining(text, source)); }

TrainingMeasurement readTraining(const std::filesystem::path& path) {
  return parseTraining(readTextFile(path, "training measurement"), path.string());
}

}  // namespace cclab::results
