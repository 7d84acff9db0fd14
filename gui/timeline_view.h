#pragma once

// The timeline view: the simulated step of the plan in the settings (sim::StepGraph simulated by
// sim::simulate, what `ccsim train --trace` writes), one lane per stream of each pipeline stage,
// each task a box coloured by its part of the step, the critical path underlined. The figures below
// say what the step is made of and how much communication is hidden. With a measured step open
// (`ccbench train --trace` of the same settings), each lane splits in two: the predicted tasks
// above, the measured ones (the first rank of each stage) below, on one time axis.

#include <QLabel>

#include "gui/chart_page.h"
#include "results/results.h"
#include "sim/training/settings.h"

namespace cclab::gui {

// The lanes and boxes, painted to fit its size (lanes share the height, up to 26 px each); it
// keeps the simulated step it shows.
class TimelineCanvas : public QWidget {
  Q_OBJECT
 public:
  explicit TimelineCanvas(QWidget* parent = nullptr);
  void setStep(sim::StepGraph graph, sim::Timeline timeline);
  // Measured times of the graph's tasks (zero: not measured), drawn under the predicted ones.
  void setMeasured(std::vector<sim::TimedTask> measured, double makespan);
  const std::vector<sim::TimedTask>& measured() const { return measured_; }
  double measuredMakespan() const { return measuredMakespan_; }
  const sim::StepGraph& graph() const { return graph_; }
  const sim::Timeline& timeline() const { return timeline_; }
  // Lanes drawn: the streams of each stage that run at least one task, in stage order.
  struct Lane {
    int stage;
    sim::StreamKind stream;
    QString label;
  };
  const std::vector<Lane>& lanes() const { return lanes_; }
  QSize sizeHint() const override { return {900, 40 + 26 * static_cast<int>(lanes_.size())}; }

 protected:
  void paintEvent(QPaintEvent* event) override;

 private:
  sim::StepGraph graph_;
  sim::Timeline timeline_;
  std::vector<Lane> lanes_;
  std::vector<char> onPath_;
  std::vector<sim::TimedTask> measured_;
  double measuredMakespan_ = 0;
};

// Whether `path` is a measured step's Chrome trace from `ccbench train --trace`.
bool isMeasuredStepTrace(const QString& path);
// The trace's times of `graph`'s tasks: for each stage its first rank's events, matched to the
// stage's tasks by stream and name in order (the trace lists them in graph order). Unmatched tasks
// stay zero; `matched` counts the others.
std::vector<sim::TimedTask> matchMeasuredTrace(const results::Json& trace, const sim::StepGraph& graph, int* matched = nullptr);

class TimelineView : public ChartPage {
  Q_OBJECT
 public:
  explicit TimelineView(QWidget* parent = nullptr);
  // Simulates `settings` and redraws; a setting the simulator rejects is shown instead.
  void showPlan(const sim::TrainingSettings& settings);
  // Reads a measured step's trace (InputError: unreadable, not JSON); drawn from the next showPlan.
  void setMeasuredTrace(const QString& path);
  bool hasMeasuredTrace() const { return !measuredTrace_.is_null(); }

  const TimelineCanvas* canvas() const { return canvas_; }
  QString problem() const { return problemText_; }  // why the plan cannot be simulated (empty when it can)
  QString summaryText() const { return summary_->text(); }
  QList<QChartView*> chartViews() const override { return {}; }
  QWidget* exportArea() override { return area_; }
  // One line per task: stage, stream, task, part, start and end in ms, on the critical path.
  QString csv() const override;

 private:
  QWidget* area_;
  TimelineCanvas* canvas_;
  QLabel *summary_, *problem_;
  QString problemText_;
  results::Json measuredTrace_;
  QString measuredSource_;
};

}  // namespace cclab::gui
