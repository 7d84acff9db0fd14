#pragma once

// The collectives view: bandwidth against message size on log axes — the simulator's predicted
// curve per algorithm for the chosen cluster, and the measured points of any results files opened
// (ccbench JSON/CSV, nccl-tests text or -J JSON) with the prediction for each measured row and its
// relative error. "Calibrate" fits the cluster to the opened measurements and redraws. The numbers
// come from the Qt-free model (gui/collectives_model.h); this view draws them.

#include <optional>
#include <vector>

#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QSpinBox>
#include <QTableWidget>

#include "gui/chart_page.h"
#include "gui/collectives_model.h"
#include "sim/cluster.h"

namespace cclab::gui {

class CollectivesView : public ChartPage {
  Q_OBJECT
 public:
  explicit CollectivesView(QWidget* parent = nullptr);

  // Reads results files (all or none: a file that cannot be read changes nothing) and returns
  // the problem, if any.
  QString openResults(const QStringList& paths);
  void clearResults();
  // The cluster the predictions are for: a preset or a cluster file ("" draws no predictions).
  // Keeps a calibration made from the opened files only while the cluster stays the same.
  QString setCluster(const QString& presetOrPath);
  // Fits the cluster to the opened measurements and redraws with it; returns the problem, if any.
  QString calibrate();
  bool calibrated() const { return calibrated_.has_value(); }
  const sim::Cluster* cluster() const;
  void setCollective(Collective collective);
  bool hasCollective(Collective collective) const;  // some opened row is of it
  void setBusBandwidth(bool busbw);
  void setRanks(int ranks);
  void setPredictionsShown(bool shown);

  // Median |error| of the predictions for the measured rows of the shown collective, in percent
  // (empty without measured rows or a cluster).
  std::optional<double> medianAbsErrorPct() const { return medianError_; }
  int measuredRows() const { return table_->rowCount(); }
  QString summary() const { return summary_->text(); }
  QTableWidget* errorTable() const { return table_; }
  QList<QChartView*> chartViews() const override { return {chart_}; }
  QWidget* exportArea() override { return chart_; }
  QString csv() const override;

 signals:
  void calibratedChanged(bool calibrated);

 private:
  void redraw();
  std::vector<OpenedResults> opened_;
  QString clusterName_;
  std::optional<sim::Cluster> base_, calibrated_;
  std::optional<double> medianError_;
  QComboBox *collective_, *metric_;
  QSpinBox* ranks_;
  QCheckBox* predictions_;
  QLabel* summary_;
  QChartView* chart_;
  QTableWidget* table_;
};

}  // namespace cclab::gui
