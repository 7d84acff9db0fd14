#pragma once

// The left-hand form: every setting of a training run (the flags of `ccsim train`), with each
// setting's help text as its tooltip. It reads and writes sim::TrainingSettings, so what the form
// shows is exactly what a saved plan file and `ccsim train --plan` hold.

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QSpinBox>
#include <QWidget>

#include "sim/training/settings.h"

namespace cclab::gui {

class SettingsPanel : public QWidget {
  Q_OBJECT
 public:
  explicit SettingsPanel(QWidget* parent = nullptr);

  sim::TrainingSettings settings() const;
  // Shows `settings` (adding a model or cluster file to the lists if new) and emits changed() once.
  void setSettings(const sim::TrainingSettings& settings);
  // Adds a model config.json or a cluster file to its list and selects it.
  void addModel(const QString& path);
  void addCluster(const QString& path, const QString& label = {});

  // The widgets, named for tests and for the main window's shortcuts.
  QComboBox* model() const { return model_; }
  QComboBox* cluster() const { return cluster_; }
  QComboBox* sharding() const { return sharding_; }
  QSpinBox* gpus() const { return gpus_; }
  QSpinBox* globalBatch() const { return globalBatch_; }
  QSpinBox* microBatch() const { return microBatch_; }
  QSpinBox* tp() const { return tp_; }
  QSpinBox* pp() const { return pp_; }
  QSpinBox* vpp() const { return vpp_; }
  QSpinBox* dp() const { return dp_; }
  QComboBox* recompute() const { return recompute_; }
  QComboBox* offload() const { return offload_; }
  QComboBox* offloadDevice() const { return offloadDevice_; }
  QCheckBox* pinMemory() const { return pinMemory_; }
  QCheckBox* swapPipeline() const { return swapPipeline_; }
  QSpinBox* tiles() const { return tiles_; }

 signals:
  void changed();

 private:
  void selectData(QComboBox* box, const QString& data, const QString& label = {});

  sim::TrainingSettings kept_;  // settings the form does not show (deepspeed, params, nodes): kept as loaded
  QComboBox *model_, *cluster_, *precision_, *optimizer_, *sharding_, *recompute_, *schedule_, *offload_, *offloadDevice_, *execution_;
  QSpinBox *gpus_, *globalBatch_, *microBatch_, *seq_, *dp_, *tp_, *pp_, *vpp_, *prefetch_, *tiles_, *vocabMultiple_, *recomputeLayers_;
  QDoubleSpinBox *tokensB_, *frameworkGiB_;
  QCheckBox *flash_, *sequenceParallel_, *overlap_, *cpuCheckpointing_, *pinMemory_, *swapPipeline_;
  bool quiet_ = false;  // setSettings() in progress: one changed() at the end
};

}  // namespace cclab::gui
