#pragma once

// The compare view: up to four pinned plans side by side — memory and step time as stacked bars
// per plan, and a table of their figures. "DDP vs ZeRO-1/2/3" pins the four stages of the current
// plan at once (the first comparison a user makes). A measured training run that carries its
// settings (a ccbench train record) is drawn as a bar of its own right after the pinned plan of the
// same settings.

#include <vector>

#include <QTableWidget>

#include "gui/chart_page.h"
#include "gui/plan_figures.h"

namespace cclab::gui {

class CompareView : public ChartPage {
  Q_OBJECT
 public:
  static constexpr int kMaxPinned = 4;
  explicit CompareView(QWidget* parent = nullptr);

  // Pins a plan; returns why it could not (four pinned already, or the simulator rejects it).
  QString pin(const sim::TrainingSettings& settings);
  // Replaces the pins with the plan under DDP and ZeRO-1, 2 and 3; returns the problems, if any.
  QString pinShardingStages(const sim::TrainingSettings& settings);
  void clear();
  // A measured run of `settings` (its record's "settings"): drawn beside the pin that matches.
  void addMeasured(const sim::TrainingSettings& settings, MeasuredFigures measured);
  // The measured figures drawn beside pin `i`, if one matches its settings.
  const MeasuredFigures* measuredFor(int i) const;

  int pinned() const { return static_cast<int>(pins_.size()); }
  const PlanFigures& figures(int i) const { return pins_[i].figures; }
  const sim::TrainingSettings& settings(int i) const { return pins_[i].settings; }
  QString label(int i) const { return pins_[i].label; }
  QTableWidget* table() const { return table_; }
  QList<QChartView*> chartViews() const override { return {memory_, step_}; }
  QWidget* exportArea() override { return this; }

 signals:
  void pinsChanged();

 private:
  struct Pin {
    sim::TrainingSettings settings;
    PlanFigures figures;
    QString label;
  };
  void redraw();
  std::vector<Pin> pins_;
  std::vector<std::pair<sim::TrainingSettings, MeasuredFigures>> measured_;
  QChartView *memory_, *step_;
  QTableWidget* table_;
};

}  // namespace cclab::gui
