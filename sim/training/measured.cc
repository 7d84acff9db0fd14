#include "sim/training/measured.h"

#include <fmt/format.h>

#include "collectives/errors.h"

namespace cclab::sim {
namespace {

// ccbench train on the CPU records its process's peak RSS: the graph's communication and state
// buffers, not the activations or the framework allowance a prediction counts, so not a peak to
// put beside one. Its records say "memory": "RSS"; those written before that field have no device.
bool peakIsCpuRss(const results::TrainingMeasurement& m) {
  if (!m.run.is_object()) return false;
  if (m.run.contains("memory")) return m.run["memory"] == "RSS";
  return m.run.value("tool", std::string()) == "ccbench train" && !m.run.contains("device");
}

}  // namespace

std::vector<MeasuredRow> compareWithMeasurement(const TrainingEstimate& e, const results::TrainingMeasurement& m, int warmup) {
  std::vector<MeasuredRow> rows;
  const results::StepStatistics steps = results::stepStatistics(m, warmup);
  if (steps.steps > 0) rows.push_back({"step time (median)", "s", e.step.total, steps.median});
  auto part = [&](const char* key) -> const double* {
    const auto it = m.parts.find(key);
    return it != m.parts.end() && it->second > 0 ? &it->second : nullptr;
  };
  if (const double* compute = part("compute")) rows.push_back({"compute", "s", e.step.compute, *compute});
  if (const double* exposed = part("exposed_comm")) {
    const StepTime& s = e.step;
    rows.push_back({"exposed communication", "s", s.tpComm + s.ppComm + s.dpComm + s.shardComm, *exposed});
  }
  if (const double* hidden = part("hidden_comm_fraction")) rows.push_back({"hidden communication", "fraction", e.hiddenFraction, *hidden});
  if (m.tflopsPerGpu && e.step.total > 0) {
    rows.push_back({"TFLOP/s per GPU", "TFLOP/s", e.flops.hardwarePerStep / (e.step.total * e.config.gpus) / 1e12, *m.tflopsPerGpu});
  }
  if (m.peakAllocatedBytes && !peakIsCpuRss(m)) rows.push_back({"peak memory per GPU", "bytes", e.memory.total, *m.peakAllocatedBytes});
  if (rows.empty()) {
    throw InputError(fmt::format("{}: nothing to compare ({} steps after {} warm-up steps, no parts, TFLOP/s or peak memory)", m.source,
                                 m.steps.size(), warmup));
  }
  return rows;
}

PlanningInputs recordInputs(const results::TrainingMeasurement& m) {
  if (!m.settings.is_object()) {
    throw InputError(fmt::format("{}: the record carries no \"settings\" (the ccsim train settings it ran), which a prediction needs", m.source));
  }
  TrainingSettings settings;
  applyJson(m.settings, settings, m.source + ": settings");
  // Records of ccbench train before 2026-12-06 kept the global batch beside the settings only.
  if (!settings.globalBatch && m.globalBatch > 0 && m.globalBatch < (1L << 30)) settings.globalBatch = static_cast<int>(m.globalBatch);
  if (!settings.globalBatch) throw InputError(fmt::format("{}: the record gives no global batch (settings \"global-batch\" or \"global_batch\")", m.source));
  try {
    PlanningInputs in = planningInputs(settings);
    resolve(in.base, in.model, in.job);
    return in;
  } catch (const InputError& e) {
    throw InputError(fmt::format("{}: settings: {}", m.source, e.what()));
  }
}

TrainingEstimate predictRecord(const results::TrainingMeasurement& m) {
  const PlanningInputs in = recordInputs(m);
  TrainingPricer pricer(in.job, in.base.collectives);
  return estimateTraining(in.model, in.base, pricer);
}

}  // namespace cclab::sim
