#pragma once

// The sweep view: one setting swept over a list of values (GPU count, micro-batch, global batch,
// ZeRO stage, TP, PP, virtual stages, sequence) with step time, MFU, the pipeline bubble (and,
// across GPU counts, scaling efficiency) on one chart and memory against capacity on another.

#include <vector>

#include <QComboBox>
#include <QLabel>
#include <QLineEdit>

#include "gui/chart_page.h"
#include "gui/plan_figures.h"

namespace cclab::gui {

class SweepView : public ChartPage {
  Q_OBJECT
 public:
  explicit SweepView(QWidget* parent = nullptr);

  // The plan the sweep varies one setting of; redraws.
  void setBase(const sim::TrainingSettings& base);
  // The swept setting by its flag name ("gpus", "micro-batch", "zero", ...); resets the values to
  // that axis's defaults.
  void setAxis(const QString& flag);
  // Comma-separated values; returns the problem with them, if any (and keeps the old values).
  QString setValues(const QString& values);

  struct Point {
    int x = 0;
    PlanFigures figures;
  };
  const std::vector<Point>& points() const { return points_; }
  const QStringList& skipped() const { return skipped_; }
  QComboBox* axis() const { return axis_; }
  QList<QChartView*> chartViews() const override { return {time_, memory_}; }
  QWidget* exportArea() override { return charts_; }

 private:
  void redraw();
  sim::TrainingSettings base_;
  std::vector<int> values_;
  std::vector<Point> points_;
  QStringList skipped_;
  QComboBox* axis_;
  QLineEdit* values_edit_;
  QLabel* note_;
  QWidget* charts_;
  QChartView *time_, *memory_;
};

}  // namespace cclab::gui
