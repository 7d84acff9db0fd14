#pragma once

// The plan view: per-GPU memory as a stacked bar against the GPU's capacity (red when it does not
// fit), the step time as a stacked bar (compute, each exposed communication, the pipeline bubble,
// the optimizer), and what follows: tokens/s, MFU, time and cost to train on the token budget.

#include <optional>

#include <QLabel>

#include "gui/chart_page.h"
#include "gui/plan_figures.h"

namespace cclab::gui {

class PlanView : public ChartPage {
  Q_OBJECT
 public:
  explicit PlanView(QWidget* parent = nullptr);
  // Prices `settings` with the simulator and redraws; a setting the simulator rejects (a layout
  // that does not divide, a model that does not exist) is shown in the view instead.
  void showPlan(const sim::TrainingSettings& settings);
  void showFigures(const PlanFigures& figures);
  // A measured run to draw beside the prediction (nullopt: none); redraws.
  void setMeasured(std::optional<MeasuredFigures> measured);
  const std::optional<MeasuredFigures>& measured() const { return measured_; }

  const std::optional<PlanFigures>& figures() const { return figures_; }
  QString problem() const { return figures_ ? QString() : problemText_; }
  QString summaryText() const { return summary_->text(); }
  QList<QChartView*> chartViews() const override { return {memory_, step_}; }
  QWidget* exportArea() override { return this; }
  QString csv() const override;

 private:
  void clearCharts(const QString& why);
  QChartView *memory_, *step_;
  QLabel *summary_, *problem_;
  std::optional<PlanFigures> figures_;
  std::optional<MeasuredFigures> measured_;
  QString problemText_;  // why the plan cannot be priced (when figures_ is empty)
};

// The figures as label text ("tokens/s", "MFU", ...): shared by the plan view and the compare table.
QString describeThroughput(const PlanFigures& f);

}  // namespace cclab::gui
