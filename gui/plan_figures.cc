#include "gui/plan_figures.h"

#include "sim/training/report.h"

namespace cclab::gui {
namespace {

struct SegmentStyle {
  const char* key;
  const char* label;
  QColor color;
};

// The keys of ccsim train's JSON (sim/training/report.cc), in stacking order.
const SegmentStyle kMemory[] = {
    {"parameters", "parameters", QColor(0x1f, 0x77, 0xb4)},
    {"gradients", "gradients", QColor(0xff, 0x7f, 0x0e)},
    {"optimizer_states", "optimizer", QColor(0x2c, 0xa0, 0x2c)},
    {"activations", "activations", QColor(0x94, 0x67, 0xbd)},
    {"other", "framework + buffers", QColor(0x8c, 0x8c, 0x8c)},
};
const SegmentStyle kStep[] = {
    {"compute", "compute", QColor(0x1f, 0x77, 0xb4)},
    {"tp_comm", "TP comm", QColor(0xd6, 0x27, 0x28)},
    {"pp_comm", "PP comm", QColor(0xff, 0x7f, 0x0e)},
    {"dp_comm", "DP comm", QColor(0xe3, 0x77, 0xc2)},
    {"shard_comm", "ZeRO-3/FSDP comm", QColor(0xbc, 0xbd, 0x22)},
    {"offload", "offload", QColor(0x17, 0xbe, 0xcf)},
    {"pipeline_bubble", "bubble", QColor(0x8c, 0x8c, 0x8c)},
    {"optimizer", "optimizer", QColor(0x2c, 0xa0, 0x2c)},
};

double number(const results::Json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : 0.0;
}

}  // namespace

PlanFigures figuresFrom(const results::Json& e) {
  PlanFigures f;
  f.model = QString::fromStdString(e.value("model", ""));
  f.cluster = QString::fromStdString(e.value("cluster", ""));
  f.gpus = e.value("gpus", 0);
  const results::Json& layout = e.at("layout");
  f.layout = QStringLiteral("dp %1 × tp %2 × pp %3").arg(layout.value("dp", 0)).arg(layout.value("tp", 0)).arg(layout.value("pp", 0));
  if (layout.value("vpp", 1) > 1) f.layout += QStringLiteral(" × vpp %1").arg(layout.value("vpp", 1));
  f.layout += ", " + QString::fromStdString(layout.value("sharding", ""));
  const results::Json& memory = e.at("memory_per_gpu_bytes");
  for (const SegmentStyle& s : kMemory) f.memoryGiB.push_back({s.key, s.label, s.color, number(memory, s.key) / kGiB});
  f.memoryTotalGiB = number(memory, "total") / kGiB;
  f.capacityGiB = number(e, "gpu_memory_bytes") / kGiB;
  f.fits = e.value("fits", false);
  f.statesOnly = !e.contains("step_time_s");
  if (f.statesOnly) return f;
  const results::Json& step = e.at("step_time_s");
  for (const SegmentStyle& s : kStep) f.stepSeconds.push_back({s.key, s.label, s.color, number(step, s.key)});
  f.stepTotalSeconds = number(step, "total");
  f.perSample = e.contains("train_samples");
  f.tokensPerSecond = number(e, "tokens_per_s");
  f.samplesPerSecond = number(e, "samples_per_s");
  f.mfu = number(e, "mfu");
  f.hfu = number(e, "hfu");
  f.bubbleFraction = number(e, "bubble_fraction");
  f.trainSeconds = number(e, "train_time_s");
  f.gpuHours = number(e, "gpu_hours");
  f.costUsd = number(e, "cost_usd");
  f.trainBudget = f.perSample ? number(e, "train_samples") : number(e, "train_tokens");
  return f;
}

PlanFigures evaluate(const sim::TrainingSettings& settings) {
  const sim::TrainingRun run = sim::runTraining(settings);
  return figuresFrom(sim::toJson(run.estimate, run.modelName, run.job));
}

QString formatDuration(double seconds) { return QString::fromStdString(sim::formatDuration(seconds)); }

QString formatCount(double value) { return QString::fromStdString(sim::formatCount(value)); }

}  // namespace cclab::gui
