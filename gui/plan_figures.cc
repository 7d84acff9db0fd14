#include "gui/plan_figures.h"

#include <iterator>

#include "sim/training/report.h"

namespace cclab::gui {
namespace {

// A bar segment: where its value is in the estimate, and how it is drawn.
template <class Breakdown>
struct SegmentStyle {
  const char* key;  // the key `ccsim train --json` prints the value under
  const char* label;
  QColor color;
  double Breakdown::*value;
};

// In stacking order.
const SegmentStyle<sim::MemoryBreakdown> kMemory[] = {
    {"parameters", "parameters", QColor(0x1f, 0x77, 0xb4), &sim::MemoryBreakdown::parameters},
    {"gradients", "gradients", QColor(0xff, 0x7f, 0x0e), &sim::MemoryBreakdown::gradients},
    {"optimizer_states", "optimizer", QColor(0x2c, 0xa0, 0x2c), &sim::MemoryBreakdown::optimizerStates},
    {"activations", "activations", QColor(0x94, 0x67, 0xbd), &sim::MemoryBreakdown::activations},
    {"other", "framework + buffers", QColor(0x8c, 0x8c, 0x8c), &sim::MemoryBreakdown::other},
};
const SegmentStyle<sim::StepTime> kStep[] = {
    {"compute", "compute", QColor(0x1f, 0x77, 0xb4), &sim::StepTime::compute},
    {"tp_comm", "TP comm", QColor(0xd6, 0x27, 0x28), &sim::StepTime::tpComm},
    {"pp_comm", "PP comm", QColor(0xff, 0x7f, 0x0e), &sim::StepTime::ppComm},
    {"dp_comm", "DP comm", QColor(0xe3, 0x77, 0xc2), &sim::StepTime::dpComm},
    {"shard_comm", "ZeRO-3/FSDP comm", QColor(0xbc, 0xbd, 0x22), &sim::StepTime::shardComm},
    {"offload", "offload", QColor(0x17, 0xbe, 0xcf), &sim::StepTime::offload},
    {"pipeline_bubble", "bubble", QColor(0x8c, 0x8c, 0x8c), &sim::StepTime::bubble},
    {"optimizer", "optimizer", QColor(0x2c, 0xa0, 0x2c), &sim::StepTime::optimizer},
    {"overhead", "overhead", QColor(0x94, 0x67, 0xbd), &sim::StepTime::overhead},
    {"interference", "interference", QColor(0x8c, 0x56, 0x4b), &sim::StepTime::interference},
};

}  // namespace

MeasuredFigures measuredFigures(const results::TrainingMeasurement& m) {
  MeasuredFigures f;
  f.source = QString::fromStdString(m.source);
  const results::StepStatistics steps = results::stepStatistics(m, m.steps.size() > 1 ? 1 : 0);  // the run's first step, unless the record left it out
  if (steps.steps > 0) {
    f.stepTotalSeconds = steps.median;
    auto add = [&](const char* key, const char* label, QColor color) {
      const auto it = m.parts.find(key);
      if (it != m.parts.end() && it->second > 0) f.stepSeconds.push_back({key, label, color, it->second});
    };
    // A record with the step's own parts (ccbench train's) is drawn part by part as the predicted
    // bar is; a profiler trace has only compute and exposed communication.
    bool everyPart = false;
    for (const auto& style : kStep) everyPart = everyPart || (QString(style.key) != "compute" && m.parts.count(style.key) > 0);
    if (everyPart) {
      for (const auto& style : kStep) add(style.key, style.label, style.color);
    } else {
      add("compute", "compute", partColor(sim::Part::Compute));
      add("exposed_comm", "exposed comm", QColor(0xe3, 0x77, 0xc2));
    }
    // The parts are means over the record's steps, the bar its median step: where a slow step
    // makes the parts add up past the median, each is drawn at its share of the bar (cutting them
    // at the median would drop the last ones drawn).
    double partsSum = 0;
    for (const Segment& part : f.stepSeconds) partsSum += part.value;
    if (partsSum > steps.median) {
      for (Segment& part : f.stepSeconds) part.value *= steps.median / partsSum;
    }
    const double rest = partsSum > steps.median ? 0.0 : steps.median - partsSum;
    f.stepSeconds.push_back({"measured", f.stepSeconds.empty() ? "measured step" : "rest of the step", QColor(0x34, 0x49, 0x5e), rest});
  }
  if (m.peakAllocatedBytes) f.peakGiB = *m.peakAllocatedBytes / kGiB;
  return f;
}

QColor partColor(sim::Part part) {
  // The step bar's key of each part (the key `ccsim train --json` prints it under).
  static constexpr const char* kKeys[] = {"compute", "tp_comm", "pp_comm", "dp_comm", "shard_comm", "offload", "optimizer", "overhead"};
  static_assert(std::size(kKeys) == sim::kParts);
  for (const auto& style : kStep) {
    if (QString(style.key) == kKeys[static_cast<int>(part)]) return style.color;
  }
  return Qt::gray;
}

PlanFigures figuresFrom(const sim::TrainingEstimate& e, const std::string& model, const sim::Cluster& job) {
  const sim::TrainConfig& c = e.config;
  const sim::MemoryBreakdown& m = e.memory;
  PlanFigures f;
  f.model = QString::fromStdString(model);
  f.cluster = QString::fromStdString(job.name);
  f.gpus = c.gpus;
  f.layout = QStringLiteral("dp %1 × tp %2 × pp %3").arg(c.dp).arg(c.tp).arg(c.pp);
  if (c.vpp > 1) f.layout += QStringLiteral(" × vpp %1").arg(c.vpp);
  f.layout += ", " + QString::fromStdString(c.shardingName);
  for (const auto& style : kMemory) f.memoryGiB.push_back({style.key, style.label, style.color, m.*style.value / kGiB});
  f.memoryTotalGiB = m.total / kGiB;
  f.capacityGiB = m.capacity / kGiB;
  f.fits = m.fits;
  f.statesOnly = c.statesOnly;
  if (f.statesOnly) return f;
  for (const auto& style : kStep) f.stepSeconds.push_back({style.key, style.label, style.color, e.step.*style.value});
  f.stepTotalSeconds = e.step.total;
  f.perSample = e.perSample;
  f.tokensPerSecond = e.perSample ? 0 : e.tokensPerSecond;  // no tokens without a sequence
  f.samplesPerSecond = e.samplesPerSecond;
  f.mfu = e.mfu;
  f.hfu = e.hfu;
  f.bubbleShare = e.bubbleShare;
  f.trainSeconds = e.trainSeconds;
  f.gpuHours = e.gpuHours;
  f.costUsd = e.costUsd;
  f.trainBudget = e.perSample ? e.trainSamples : e.trainTokens;
  return f;
}

PlanFigures figuresFrom(const sim::TrainingRun& run) { return figuresFrom(run.estimate, run.modelName, run.job); }

PlanFigures evaluate(const sim::TrainingSettings& settings) { return figuresFrom(sim::runTraining(settings)); }

QString formatDuration(double seconds) { return QString::fromStdString(sim::formatDuration(seconds)); }

QString formatCount(double value) { return QString::fromStdString(sim::formatCount(value)); }

}  // namespace cclab::gui
