// Importers of real training runs into TrainingMeasurement (training_record.h). Each follows the
// format as its producer writes it (the source file is named above each), reads numbers with
// from_chars (no locale, no exceptions) and refuses a file with no step in it.

#include <algorithm>
#include <charconv>
#include <cmath>

#include <fmt/format.h>

#include "results/json_reader.h"
#include "results/training_record.h"

namespace cclab::results {
namespace {

// The number right after `key` (spaces skipped), or nothing.
std::optional<double> numberAfter(std::string_view line, std::string_view key) {
  const std::size_t at = line.find(key);
  if (at == std::string_view::npos) return std::nullopt;
  std::string_view rest = line.substr(at + key.size());
  while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
  double value = 0;
  const auto [end, error] = std::from_chars(rest.data(), rest.data() + rest.size(), value);
  if (error != std::errc() || end == rest.data() || !std::isfinite(value)) return std::nullopt;
  return value;
}

// A whole number that fits a long (a step index, a batch).
std::optional<long> wholeAfter(std::string_view line, std::string_view key) {
  const std::optional<double> value = numberAfter(line, key);
  if (!value || *value < 0 || *value > 1e15 || *value != std::floor(*value)) return std::nullopt;
  return static_cast<long>(*value);
}

std::vector<std::string_view> lines(std::string_view text) {
  std::vector<std::string_view> out;
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    out.push_back(text.substr(0, end));
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  return out;
}

[[noreturn]] void badLine(const std::string& source, std::size_t line, std::string_view problem) {
  throw InputError(fmt::format("{}:{}: {}", source, line + 1, problem));
}

}  // namespace

// Megatron-LM, megatron/training/training.py (training_log): "using world size: N, ..." at start,
// then one line per log interval,
//   " [2025-04-13 23:41:12] iteration       10/    1000 | consumed samples:          160 |
//    elapsed time per iteration (ms): 1147.6 | throughput per GPU (TFLOP/s/GPU): 123.4 | ...
//    global batch size:    16 | lm loss: ... |"
// (the time is the interval's mean), and report_memory's
//   "[Rank 0] (after 10 iterations) memory (MB) | allocated: ... | max allocated: 5012.8 |
//    reserved: ... | max reserved: 5400.0" (MB = 2^20 bytes, torch.cuda.max_memory_allocated()).
TrainingMeasurement importMegatronLog(std::string_view text, const std::string& source) {
  TrainingMeasurement m;
  m.source = source;
  m.format = "megatron-log";
  const std::vector<std::string_view> all = lines(text);
  for (std::size_t i = 0; i < all.size(); ++i) {
    const std::string_view line = all[i];
    if (const auto ranks = wholeAfter(line, "using world size:"); ranks && *ranks > 0 && *ranks < (1 << 24)) m.ranks = static_cast<int>(*ranks);
    if (line.find("elapsed time per iteration (ms):") != std::string_view::npos) {
      const std::optional<long> iteration = wholeAfter(line, "iteration ");
      const std::optional<double> ms = numberAfter(line, "elapsed time per iteration (ms):");
      if (!iteration) badLine(source, i, "a training log line without its iteration number");
      if (!ms || *ms <= 0) badLine(source, i, "'elapsed time per iteration (ms):' without a positive number");
      m.steps.push_back({*iteration, *ms / 1e3, std::nullopt});
      if (const auto batch = wholeAfter(line, "global batch size:"); batch && *batch > 0 && *batch <= (1L << 40)) m.globalBatch = *batch;
      if (const auto tflops = numberAfter(line, "throughput per GPU (TFLOP/s/GPU):"); tflops && *tflops > 0) m.tflopsPerGpu = *tflops;
    } else if (line.find("memory (MB)") != std::string_view::npos) {
      constexpr double kMiB = 1024.0 * 1024;
      if (const auto peak = numberAfter(line, "| max allocated:"); peak && *peak > 0) {
        m.peakAllocatedBytes = std::max(m.peakAllocatedBytes.value_or(0), *peak * kMiB);
      }
      if (const auto peak = numberAfter(line, "| max reserved:"); peak && *peak > 0) {
        m.peakReservedBytes = std::max(m.peakReservedBytes.value_or(0), *peak * kMiB);
      }
    }
  }
  if (m.steps.empty()) throw InputError(fmt::format("{}: no Megatron-LM iteration line ('elapsed time per iteration (ms):')", source));
  return m;
}

// DeepSpeed, deepspeed/utils/timer.py (ThroughputTimer.stop), every steps_per_print steps:
//   "[...] [INFO] [timer.py:260:stop] epoch=0/micro_step=40/global_step=10,
//    RunningAvgSamplesPerSec=25.02, CurrSamplesPerSec=25.70, MemAllocated=4.32GB, MaxMemAllocated=38.49GB"
// (older releases: "0/20, RunningAvgSamplesPerSec=..."). CurrSamplesPerSec is the global batch
// over the step's time; the memory is torch.cuda.memory_allocated() / 1024**3, printed as "GB".
TrainingMeasurement importDeepSpeedLog(std::string_view text, const std::string& source) {
  TrainingMeasurement m;
  m.source = source;
  m.format = "deepspeed-log";
  const std::vector<std::string_view> all = lines(text);
  for (std::size_t i = 0; i < all.size(); ++i) {
    const std::string_view line = all[i];
    if (line.find("CurrSamplesPerSec=") == std::string_view::npos) continue;
    const std::optional<double> rate = numberAfter(line, "CurrSamplesPerSec=");
    if (!rate || *rate <= 0) badLine(source, i, "'CurrSamplesPerSec=' without a positive number");
    std::optional<long> step = wholeAfter(line, "global_step=");
    if (!step) {  // "0/20, RunningAvgSamplesPerSec": epoch/step before the first comma
      const std::size_t comma = line.find(", RunningAvgSamplesPerSec=");
      const std::size_t slash = line.rfind('/', comma);
      if (comma != std::string_view::npos && slash != std::string_view::npos) step = wholeAfter(line.substr(slash, comma - slash), "/");
    }
    if (!step) badLine(source, i, "a DeepSpeed throughput line without its step ('global_step=')");
    m.steps.push_back({*step, std::nullopt, *rate});
    if (const auto peak = numberAfter(line, "MaxMemAllocated="); peak && *peak > 0) {
      m.peakAllocatedBytes = std::max(m.peakAllocatedBytes.value_or(0), *peak * 1024 * 1024 * 1024);
    }
  }
  if (m.steps.empty()) throw InputError(fmt::format("{}: no DeepSpeed throughput line ('CurrSamplesPerSec=')", source));
  return m;
}

// The PyTorch profiler's Chrome trace (torch.profiler, export_chrome_trace / tensorboard_trace_handler):
// {"traceEvents": [{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#3", "ts": us,
// "dur": us, ...}, {"ph": "X", "cat": "kernel", "name": "ncclDevKernel_AllReduce_Sum_f32_RING_LL(...)",
// "ts", "dur", ...}, ...]}. Steps are the ProfilerStep#N annotations; a GPU kernel belongs to the
// step in which it starts (the annotations are the CPU's, and the GPU runs a little behind); NCCL
// kernels (names starting "nccl") are communication, every other kernel computes. Per step: the
// time some compute kernel runs (compute), the time only communication runs (exposed_comm), and
// the share of communication that ran under compute (hidden_comm_fraction), averaged over steps.
TrainingMeasurement importPytorchTrace(const Json& trace, const std::string& source) {
  TrainingMeasurement m;
  m.source = source;
  m.format = "pytorch-trace";
  const JsonReader in(trace, source);
  const Json& events = in.array("traceEvents");
  struct Interval {
    double start, end;
  };
  struct Step {
    long index;
    Interval span;
    std::vector<Interval> compute, comm;
  };
  std::vector<Step> steps;
  std::vector<std::pair<Interval, bool>> kernels;  // (interval, is communication)
  for (std::size_t i = 0; i < events.size(); ++i) {
    const Json& e = events[i];
    if (!e.is_object() || !e.contains("ph") || e["ph"] != "X" || !e.contains("name") || !e["name"].is_string()) continue;
    const JsonReader event(e, source, fmt::format("traceEvents[{}]", i));
    const std::string name = event.get<std::string>("name");
    const std::string category = event.get<std::string>("cat", "");
    const bool step = name.rfind("ProfilerStep#", 0) == 0 && category != "gpu_user_annotation";
    const bool kernel = category == "kernel";
    if (!step && !kernel) continue;
    const double start = event.get<double>("ts"), duration = event.positive("dur", /*allowZero=*/true);
    if (step) {
      const std::optional<long> index = wholeAfter(name, "ProfilerStep#");
      if (!index) event.fail("name", fmt::format("'{}' is not ProfilerStep#<number>", name));
      steps.push_back({*index, {start, start + duration}, {}, {}});
    } else {
      std::string lower = name.substr(0, 4);
      std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
      kernels.push_back({{start, start + duration}, lower == "nccl"});
    }
  }
  if (steps.empty()) throw InputError(fmt::format("{}: a Chrome trace with no ProfilerStep#N annotation (profile with torch.profiler's schedule)", source));
  std::sort(steps.begin(), steps.end(), [](const Step& a, const Step& b) { return a.span.start < b.span.start; });
  for (const auto& [interval, comm] : kernels) {
    // The last step that started at or before the kernel.
    auto it = std::upper_bound(steps.begin(), steps.end(), interval.start, [](double t, const Step& s) { return t < s.span.start; });
    if (it == steps.begin()) continue;  // before the first step
    Step& owner = *std::prev(it);
    (comm ? owner.comm : owner.compute).push_back(interval);
  }
  // Union of intervals, and the part of `a`'s union that `b`'s union covers.
  auto merged = [](std::vector<Interval> v) {
    std::sort(v.begin(), v.end(), [](const Interval& x, const Interval& y) { return x.start < y.start; });
    std::vector<Interval> out;
    for (const Interval& x : v) {
      if (!out.empty() && x.start <= out.back().end) out.back().end = std::max(out.back().end, x.end);
      else out.push_back(x);
    }
    return out;
  };
  auto length = [](const std::vector<Interval>& v) {
    double sum = 0;
    for (const Interval& x : v) sum += x.end - x.start;
    return sum;
  };
  auto overlap = [](const std::vector<Interval>& a, const std::vector<Interval>& b) {
    double sum = 0;
    std::size_t j = 0;
    for (const Interval& x : a) {
      while (j < b.size() && b[j].end <= x.start) ++j;
      for (std::size_t k = j; k < b.size() && b[k].start < x.end; ++k) sum += std::min(x.end, b[k].end) - std::max(x.start, b[k].start);
    }
    return sum;
  };
  double compute = 0, exposed = 0, comm = 0;
  for (const Step& s : steps) {
    if (s.span.end <= s.span.start) continue;
    m.steps.push_back({s.index, (s.span.end - s.span.start) * 1e-6, std::nullopt});
    const std::vector<Interval> c = merged(s.compute), n = merged(s.comm);
    compute += length(c) * 1e-6;
    comm += length(n) * 1e-6;
    exposed += (length(n) - overlap(n, c)) * 1e-6;
  }
  if (m.steps.empty()) throw InputError(fmt::format("{}: every ProfilerStep#N annotation has zero duration", source));
  const double count = static_cast<double>(m.steps.size());
  m.parts["compute"] = compute / count;
  m.parts["exposed_comm"] = exposed / count;
  if (comm > 0) m.parts["hidden_comm_fraction"] = 1 - exposed / comm;
  return m;
}

// torch.cuda.memory_stats() written as JSON (json.dump(torch.cuda.memory_stats(), f)): its keys
// "allocated_bytes.all.peak" and "reserved_bytes.all.peak"; or an object of
// torch.cuda.max_memory_allocated() / max_memory_reserved() under those names.
TrainingMeasurement importTorchMemoryStats(const Json& stats, const std::string& source) {
  TrainingMeasurement m;
  m.source = source;
  m.format = "torch-memory-stats";
  const JsonReader in(stats, source);
  for (const char* key : {"allocated_bytes.all.peak", "max_memory_allocated"}) {
    if (in.has(key)) m.peakAllocatedBytes = in.positive(key);
  }
  for (const char* key : {"reserved_bytes.all.peak", "max_memory_reserved"}) {
    if (in.has(key)) m.peakReservedBytes = in.positive(key);
  }
  if (!m.peakAllocatedBytes) throw InputError(fmt::format("{}: no \"allocated_bytes.all.peak\" or \"max_memory_allocated\"", source));
  return m;
}

}  // namespace cclab::results
