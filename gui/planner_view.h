#pragma once

// The planner: `ccsim plan` for the current model, cluster and GPU count — the fastest layouts
// that fit, ranked. Choosing a row loads it into the plan view.

#include <vector>

#include <QLabel>
#include <QSpinBox>
#include <QTableWidget>

#include "sim/training/settings.h"

namespace cclab::gui {

class PlannerView : public QWidget {
  Q_OBJECT
 public:
  explicit PlannerView(QWidget* parent = nullptr);
  // Runs the planner on the model, cluster, GPUs, batch and precision of `base`; returns the
  // problem, if any.
  QString run(const sim::TrainingSettings& base);
  QTableWidget* table() const { return table_; }
  // The settings of ranked plan `row` (the base with the plan's layout).
  sim::TrainingSettings settingsOf(int row) const { return plans_.at(row); }
  int plans() const { return static_cast<int>(plans_.size()); }
  QString summary() const { return summary_->text(); }

 signals:
  void planChosen(const sim::TrainingSettings& settings);

 private:
  std::vector<sim::TrainingSettings> plans_;
  QSpinBox *top_, *maxMicroBatch_;
  QLabel* summary_;
  QTableWidget* table_;
  sim::TrainingSettings base_;
};

}  // namespace cclab::gui
