#include "gui/settings_panel.h"

#include <cmath>
#include <map>

#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QVBoxLayout>

#include "collectives/sizes.h"
#include "gui/plan_figures.h"
#include "sim/cluster.h"
#include "sim/training/model_card.h"

namespace cclab::gui {
namespace {

// ZeRO stages as --zero takes them; the FSDP strategies follow from the simulator's table.
const std::pair<const char*, int> kZeroStages[] = {
    {"DDP (no sharding)", 0}, {"ZeRO-1 (optimizer)", 1}, {"ZeRO-2 (+ gradients)", 2}, {"ZeRO-3 (+ parameters)", 3}};

QString qtext(std::string_view text) { return QString::fromUtf8(text.data(), static_cast<int>(text.size())); }

// A setting's choices, from the table the simulator parses it with (sim/training/train_config.h):
// the item's data is the flag's value, its text the table's label. `unset` first, when given.
template <class Table>
QComboBox* choices(const Table& table, QWidget* parent, const QString& unset = {}) {
  auto* box = new QComboBox(parent);
  if (!unset.isEmpty()) box->addItem(unset, QString());
  for (const auto& row : table) box->addItem(qtext(row.label.empty() ? row.name : row.label), qtext(row.name));
  return box;
}

QSpinBox* spin(int min, int max, int value, QWidget* parent, const QString& special = {}) {
  auto* box = new QSpinBox(parent);
  box->setRange(min, max);
  box->setValue(value);
  if (!special.isEmpty()) box->setSpecialValueText(special);
  box->setKeyboardTracking(false);  // typing "64" prices 64, not 6 then 64
  return box;
}

}  // namespace

SettingsPanel::SettingsPanel(QWidget* parent) : QWidget(parent) {
  model_ = new QComboBox(this);
  for (const std::string& name : sim::modelCardNames()) model_->addItem(QString::fromStdString(name), QString::fromStdString(name));
  cluster_ = new QComboBox(this);
  for (const std::string& name : sim::presetNames()) cluster_->addItem(QString::fromStdString(name), QString::fromStdString(name));
  gpus_ = spin(1, 16384, 64, this);
  globalBatch_ = spin(1, 10'000'000, 512, this);
  microBatch_ = spin(1, 4096, 1, this);
  seq_ = spin(0, 1 << 20, 0, this, tr("model's context"));
  precision_ = choices(sim::precisions(), this);
  optimizer_ = choices(sim::optimizers(), this);
  dp_ = spin(0, 16384, 0, this, tr("auto (GPUs left)"));
  tp_ = spin(1, 512, 1, this);
  pp_ = spin(1, 512, 1, this);
  vpp_ = spin(1, 64, 1, this);
  sharding_ = new QComboBox(this);
  // Sharding choices as the flags say them: "zero:N" or "fsdp:<strategy>".
  for (const auto& [label, stage] : kZeroStages) sharding_->addItem(label, QStringLiteral("zero:%1").arg(stage));
  for (const auto& strategy : sim::fsdpStrategies()) {
    sharding_->addItem(QStringLiteral("FSDP %1").arg(qtext(strategy.name)), QStringLiteral("fsdp:%1").arg(qtext(strategy.name)));
  }
  recompute_ = choices(sim::recomputes(), this);
  recomputeLayers_ = spin(0, 1 << 16, 0, this, tr("all"));
  schedule_ = choices(sim::schedules(), this, tr("auto"));
  offload_ = choices(sim::offloadStates(), this);
  offloadDevice_ = choices(sim::offloadDevices(), this);
  execution_ = choices(sim::executions(), this);
  prefetch_ = spin(0, 64, 1, this);
  tiles_ = spin(1, 4096, 1, this);
  vocabMultiple_ = spin(1, 1 << 16, 1, this, tr("as the card"));
  flash_ = new QCheckBox(tr("flash attention"), this);
  flash_->setChecked(true);
  sequenceParallel_ = new QCheckBox(tr("sequence parallelism"), this);
  cpuCheckpointing_ = new QCheckBox(tr("checkpoints in host memory"), this);
  pinMemory_ = new QCheckBox(tr("pinned host buffers"), this);
  swapPipeline_ = new QCheckBox(tr("pipelined NVMe swapper"), this);
  overlap_ = new QCheckBox(tr("overlap gradient reduction"), this);
  overlap_->setChecked(true);
  tokensB_ = new QDoubleSpinBox(this);
  tokensB_->setRange(0, 1e6);
  tokensB_->setDecimals(1);
  tokensB_->setSuffix(tr(" B"));
  tokensB_->setSpecialValueText(tr("20 per parameter"));
  tokensB_->setKeyboardTracking(false);
  frameworkGiB_ = new QDoubleSpinBox(this);
  frameworkGiB_->setRange(0, 64);
  frameworkGiB_->setSingleStep(0.5);
  frameworkGiB_->setValue(2);
  frameworkGiB_->setSuffix(tr(" GiB"));
  frameworkGiB_->setKeyboardTracking(false);

  // Tooltips come from the one table of settings (sim/training/settings.h), as --help does.
  std::map<std::string, QWidget*> byFlag = {
      {"model", model_},         {"cluster", cluster_},     {"gpus", gpus_},           {"global-batch", globalBatch_},
      {"micro-batch", microBatch_}, {"seq", seq_},          {"precision", precision_}, {"optimizer", optimizer_},
      {"dp", dp_},               {"tp", tp_},               {"pp", pp_},               {"vpp", vpp_},
      {"zero", sharding_},       {"recompute", recompute_}, {"schedule", schedule_},   {"offload", offload_},
      {"offload-device", offloadDevice_}, {"flash-attention", flash_}, {"sequence-parallel", sequenceParallel_},
      {"overlap-grad-reduce", overlap_}, {"tokens", tokensB_}, {"framework-overhead", frameworkGiB_},
      {"execution", execution_}, {"prefetch", prefetch_}, {"tiles", tiles_}, {"vocab-multiple", vocabMultiple_}, {"recompute-layers", recomputeLayers_},
      {"cpu-checkpointing", cpuCheckpointing_}, {"pin-memory", pinMemory_}, {"swap-pipeline", swapPipeline_}};
  const sim::TrainingSettings none;
  sim::forEachSetting(none, [&](std::string_view name, const auto&, std::string_view help, sim::SettingScope) {
    if (auto it = byFlag.find(std::string(name)); it != byFlag.end()) {
      it->second->setToolTip(QStringLiteral("--%1: %2").arg(QString::fromUtf8(name.data(), int(name.size())), QString::fromUtf8(help.data(), int(help.size()))));
    }
  });
  sharding_->setToolTip(tr("How data-parallel ranks share the model states: --zero 0..3 or --fsdp <strategy>"));

  auto group = [this](const QString& title) {
    auto* box = new QGroupBox(title, this);
    auto* form = new QFormLayout(box);
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    return std::pair{box, form};
  };
  auto [what, whatForm] = group(tr("Model and cluster"));
  whatForm->addRow(tr("&Model"), model_);
  whatForm->addRow(tr("C&luster"), cluster_);
  whatForm->addRow(tr("&GPUs"), gpus_);
  whatForm->addRow(tr("Vocabulary padded to"), vocabMultiple_);
  auto [batch, batchForm] = group(tr("Batch and precision"));
  batchForm->addRow(tr("Global &batch"), globalBatch_);
  batchForm->addRow(tr("Micro-batc&h"), microBatch_);
  batchForm->addRow(tr("&Sequence"), seq_);
  batchForm->addRow(tr("Precision"), precision_);
  batchForm->addRow(tr("Optimizer"), optimizer_);
  batchForm->addRow(tr("Token budget"), tokensB_);
  auto [layout, layoutForm] = group(tr("Parallel layout"));
  layoutForm->addRow(tr("Data parallel"), dp_);
  layoutForm->addRow(tr("&Tensor parallel"), tp_);
  layoutForm->addRow(tr("&Pipeline stages"), pp_);
  layoutForm->addRow(tr("&Virtual stages"), vpp_);
  layoutForm->addRow(tr("Schedule"), schedule_);
  layoutForm->addRow(tr("&Sharding"), sharding_);
  layoutForm->addRow(tr("ZeRO-3 prefetch"), prefetch_);
  layoutForm->addRow(tr("ZeRO-3 tiles"), tiles_);
  layoutForm->addRow(tr("&Execution"), execution_);
  auto [memory, memoryForm] = group(tr("Memory savers"));
  memoryForm->addRow(tr("&Recompute"), recompute_);
  memoryForm->addRow(tr("Layers recomputed"), recomputeLayers_);
  memoryForm->addRow(cpuCheckpointing_);
  memoryForm->addRow(tr("&Offload"), offload_);
  memoryForm->addRow(tr("Offload to"), offloadDevice_);
  memoryForm->addRow(pinMemory_);
  memoryForm->addRow(swapPipeline_);
  memoryForm->addRow(flash_);
  memoryForm->addRow(sequenceParallel_);
  memoryForm->addRow(overlap_);
  memoryForm->addRow(tr("Framework"), frameworkGiB_);
  auto* column = new QVBoxLayout(this);
  for (QGroupBox* box : {what, batch, layout, memory}) column->addWidget(box);
  column->addStretch();

  auto notify = [this] {
    if (!quiet_) emit changed();
  };
  for (QComboBox* box : {model_, cluster_, precision_, optimizer_, sharding_, recompute_, schedule_, offload_, offloadDevice_, execution_}) {
    connect(box, &QComboBox::currentIndexChanged, this, notify);
  }
  for (QSpinBox* box : {gpus_, globalBatch_, microBatch_, seq_, dp_, tp_, pp_, vpp_, prefetch_, tiles_, vocabMultiple_, recomputeLayers_}) connect(box, &QSpinBox::valueChanged, this, notify);
  for (QDoubleSpinBox* box : {tokensB_, frameworkGiB_}) connect(box, &QDoubleSpinBox::valueChanged, this, notify);
  for (QCheckBox* box : {flash_, sequenceParallel_, overlap_, cpuCheckpointing_, pinMemory_, swapPipeline_}) {
    connect(box, &QCheckBox::toggled, this, notify);
  }

  // A first plan that fits and says something: LLaMA-2 7B with ZeRO-1 on 64 A100s.
  quiet_ = true;
  selectData(model_, "llama2-7b");
  selectData(cluster_, "dgx-a100");
  selectData(sharding_, "zero:1");
  gpus_->setValue(64);
  quiet_ = false;
}

void SettingsPanel::selectData(QComboBox* box, const QString& data, const QString& label) {
  int index = box->findData(data);
  if (index < 0) {
    box->addItem(label.isEmpty() ? QFileInfo(data).fileName() : label, data);
    index = box->count() - 1;
    box->setItemData(index, data, Qt::ToolTipRole);
  }
  box->setCurrentIndex(index);
}

void SettingsPanel::addModel(const QString& path) { selectData(model_, path); }
void SettingsPanel::addCluster(const QString& path, const QString& label) { selectData(cluster_, path, label); }

sim::TrainingSettings SettingsPanel::settings() const {
  sim::TrainingSettings s = kept_;
  s.model = model_->currentData().toString().toStdString();
  s.cluster = cluster_->currentData().toString().toStdString();
  s.gpus = gpus_->value();
  s.globalBatch = globalBatch_->value();
  s.microBatch = microBatch_->value();
  s.seq = seq_->value() > 0 ? std::optional<int>(seq_->value()) : std::nullopt;
  s.precision = precision_->currentData().toString().toStdString();
  s.optimizer = optimizer_->currentData().toString().toStdString();
  s.dp = dp_->value() > 0 ? std::optional<int>(dp_->value()) : std::nullopt;
  s.tp = tp_->value();
  s.pp = pp_->value();
  s.vpp = vpp_->value();
  const QString sharding = sharding_->currentData().toString();
  s.zero.reset();
  s.fsdp.clear();
  if (sharding.startsWith("zero:")) {
    s.zero = sharding.mid(5).toInt();
  } else {
    s.fsdp = sharding.mid(5).toStdString();
  }
  s.recompute = recompute_->currentData().toString().toStdString();
  // Some layers only with full recompute (0: all of them).
  s.recomputeLayers = s.recompute == "full" && recomputeLayers_->value() > 0 ? std::optional<int>(recomputeLayers_->value()) : std::nullopt;
  // Checkpoints in host memory only with full recompute (the only recompute that keeps checkpoints).
  s.cpuCheckpointing = s.recompute == "full" && cpuCheckpointing_->isChecked() ? "on" : "";
  s.schedule = schedule_->currentData().toString().toStdString();
  s.offload = offload_->currentData().toString().toStdString();
  s.offloadDevice = offloadDevice_->currentData().toString().toStdString();
  // Pinned buffers only where the optimizer goes to host memory (NVMe's swapper pins its own).
  s.pinMemory = s.offload != "none" && s.offloadDevice == "cpu" && pinMemory_->isChecked() ? "on" : "";
  // The swapper pipelined only where the optimizer goes to NVMe.
  s.swapPipeline = s.offload != "none" && s.offloadDevice == "nvme" && swapPipeline_->isChecked() ? "on" : "";
  s.flash = flash_->isChecked() ? "on" : "off";
  s.sequenceParallel = sequenceParallel_->isChecked() ? "on" : "off";
  s.overlap = overlap_->isChecked() ? "on" : "off";
  s.execution = execution_->currentData().toString().toStdString();
  s.prefetch = prefetch_->value() == 1 ? std::nullopt : std::optional<int>(prefetch_->value());  // 1: the default
  // Tiles only with DeepSpeed's ZeRO-3, the one that gathers a module (a tile) at a time.
  s.tiles = s.zero == 3 && tiles_->value() > 1 ? std::optional<int>(tiles_->value()) : std::nullopt;
  s.vocabMultiple = vocabMultiple_->value() > 1 ? std::optional<int>(vocabMultiple_->value()) : std::nullopt;  // 1: no padding
  s.tokens = tokensB_->value() > 0 ? std::optional<double>(tokensB_->value() * 1e9) : std::nullopt;
  const double frameworkBytes = std::round(frameworkGiB_->value() * kGiB);
  s.framework = std::fmod(frameworkGiB_->value(), 1.0) == 0 ? QString::number(frameworkGiB_->value()).toStdString() + "G"
                                                             : QString::number(qint64(frameworkBytes)).toStdString();
  return s;
}

void SettingsPanel::setSettings(const sim::TrainingSettings& s) {
  quiet_ = true;
  kept_ = s;
  if (!s.model.empty()) selectData(model_, QString::fromStdString(s.model));
  if (!s.cluster.empty()) selectData(cluster_, QString::fromStdString(s.cluster));
  if (s.gpus) gpus_->setValue(*s.gpus);
  if (s.globalBatch) globalBatch_->setValue(*s.globalBatch);
  microBatch_->setValue(s.microBatch.value_or(1));
  seq_->setValue(s.seq.value_or(0));
  selectData(precision_, QString::fromStdString(s.precision.empty() ? "mixed" : s.precision));
  selectData(optimizer_, QString::fromStdString(s.optimizer.empty() ? "adam" : s.optimizer));
  dp_->setValue(s.dp.value_or(0));
  tp_->setValue(s.tp.value_or(1));
  pp_->setValue(s.pp.value_or(1));
  vpp_->setValue(s.vpp.value_or(1));
  selectData(sharding_, !s.fsdp.empty() ? QStringLiteral("fsdp:%1").arg(QString::fromStdString(s.fsdp))
                                         : QStringLiteral("zero:%1").arg(s.zero.value_or(0)));
  selectData(recompute_, QString::fromStdString(s.recompute.empty() ? "none" : s.recompute));
  recomputeLayers_->setValue(s.recomputeLayers.value_or(0));
  selectData(schedule_, QString::fromStdString(s.schedule));
  selectData(offload_, QString::fromStdString(s.offload));
  selectData(offloadDevice_, QString::fromStdString(s.offloadDevice));
  flash_->setChecked(s.flash != "off");
  sequenceParallel_->setChecked(s.sequenceParallel == "on");
  cpuCheckpointing_->setChecked(s.cpuCheckpointing == "on");
  pinMemory_->setChecked(s.pinMemory == "on");
  swapPipeline_->setChecked(s.swapPipeline == "on");
  overlap_->setChecked(s.overlap != "off");
  selectData(execution_, QString::fromStdString(s.execution.empty() ? "fused" : s.execution));
  prefetch_->setValue(s.prefetch.value_or(1));
  tiles_->setValue(s.tiles.value_or(1));
  vocabMultiple_->setValue(s.vocabMultiple.value_or(1));
  tokensB_->setValue(s.tokens.value_or(0) / 1e9);
  try {
    frameworkGiB_->setValue(static_cast<double>(parseSize(s.framework, "--framework-overhead")) / kGiB);
  } catch (const std::exception&) {
    frameworkGiB_->setValue(2);  // the caller checked the settings; a bad size cannot get here
  }
  quiet_ = false;
  emit changed();
}

}  // namespace cclab::gui
