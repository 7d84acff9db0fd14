#pragma once

// What the plan, compare and sweep views draw for one training run, read from the estimate
// `ccsim train` reports (sim::runTraining), so the GUI and ccsim cannot disagree.

#include <string>
#include <vector>

#include <QColor>
#include <QString>

#include <optional>

#include "results/training_record.h"
#include "sim/training/settings.h"

namespace cclab::gui {

struct Segment {
  QString key;    // the key `ccsim train --json` prints it under ("optimizer_states")
  QString label;  // what the legend says ("optimizer states")
  QColor color;
  double value = 0;
};

struct PlanFigures {
  QString model, cluster, layout;
  int gpus = 0;
  std::vector<Segment> memoryGiB;    // per GPU: parameters, gradients, optimizer states, activations, other
  double memoryTotalGiB = 0, capacityGiB = 0;
  bool fits = false;
  bool statesOnly = false;           // a --params run: no step time
  std::vector<Segment> stepSeconds;  // compute, each exposed communication, bubble, offload, optimizer
  double stepTotalSeconds = 0;
  bool perSample = false;            // a model without a sequence: samples/s, no tokens/s
  double tokensPerSecond = 0, samplesPerSecond = 0, mfu = 0, hfu = 0, bubbleShare = 0;  // of the simulated step (sim::TrainingEstimate::bubbleShare)
  double trainSeconds = 0, gpuHours = 0, costUsd = 0, trainBudget = 0;
};

// A measured run drawn beside the prediction (ccsim train --compare's rows, as bars): its median
// step (after one warm-up step) split into the parts it records (compute, exposed
// communication, the rest; means over its steps, scaled down to the median where they add up past
// it), and its peak allocated memory.
struct MeasuredFigures {
  QString source;
  std::vector<Segment> stepSeconds;  // empty: no step time
  double stepTotalSeconds = 0;
  std::optional<double> peakGiB;
};
MeasuredFigures measuredFigures(const results::TrainingMeasurement& measured);

// The colour a part of the step is drawn in, the same in the plan's step bar and the timeline.
QColor partColor(sim::Part part);

// 1 GiB = 2^30 bytes, as ccsim's reports print it.
inline constexpr double kGiB = 1024.0 * 1024 * 1024;

PlanFigures figuresFrom(const sim::TrainingEstimate& estimate, const std::string& model, const sim::Cluster& job);
PlanFigures figuresFrom(const sim::TrainingRun& run);
// Runs the simulator as `ccsim train` does (throws InputError as ccsim does).
PlanFigures evaluate(const sim::TrainingSettings& settings);

// As ccsim's reports print them (sim/training/report.h).
QString formatDuration(double seconds);
QString formatCount(double value);

}  // namespace cclab::gui
