#include "gui/compare_view.h"

#include <algorithm>

#include <QGridLayout>
#include <QHeaderView>
#include <QLabel>

#include "collectives/errors.h"
#include "results/json_reader.h"
#include "gui/chart_builders.h"
#include "gui/plan_view.h"

namespace cclab::gui {

CompareView::CompareView(QWidget* parent) : ChartPage(parent) {
  memory_ = makeChartView(this);
  step_ = makeChartView(this);
  table_ = new QTableWidget(this);
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
  table_->setMaximumHeight(260);
  auto* hint = new QLabel(tr("Pin the current plan with Plan ▸ Pin (Ctrl+P), up to %1; Plan ▸ DDP vs ZeRO-1/2/3 pins all four stages.")
                              .arg(kMaxPinned),
                          this);
  auto* grid = new QGridLayout(this);
  grid->addWidget(hint, 0, 0, 1, 2);
  grid->addWidget(memory_, 1, 0);
  grid->addWidget(step_, 1, 1);
  grid->addWidget(table_, 2, 0, 1, 2);
  grid->setRowStretch(1, 1);
  redraw();
}

QString CompareView::pin(const sim::TrainingSettings& settings) {
  if (pinned() >= kMaxPinned) return tr("%1 plans are pinned already: clear them first (Plan ▸ Clear pinned)").arg(kMaxPinned);
  Pin p{settings, {}, {}};
  try {
    p.figures = evaluate(settings);
  } catch (const InputError& e) {
    return tr("Cannot pin this plan: %1").arg(QString::fromStdString(e.what()));
  }
  p.label = QStringLiteral("%1: %2").arg(QChar('A' + pinned())).arg(p.figures.layout.section(", ", -1));
  pins_.push_back(std::move(p));
  redraw();
  return {};
}

QString CompareView::pinShardingStages(const sim::TrainingSettings& settings) {
  pins_.clear();
  QStringList problems;
  for (int stage = 0; stage <= 3; ++stage) {
    sim::TrainingSettings s = settings;
    s.fsdp.clear();
    s.zero = stage;
    if (stage != 3 && s.offload == "optimizer+params") s.offload = "optimizer";  // parameters offload only with ZeRO-3
    if (const QString problem = pin(s); !problem.isEmpty()) problems << QStringLiteral("ZeRO-%1: %2").arg(stage).arg(problem);
  }
  redraw();
  return problems.join("; ");
}

void CompareView::addMeasured(const sim::TrainingSettings& settings, MeasuredFigures measured) {
  const std::string key = results::dumpJson(sim::toJson(settings));
  std::erase_if(measured_, [&](const auto& m) { return results::dumpJson(sim::toJson(m.first)) == key; });  // the latest run of a plan
  measured_.emplace_back(settings, std::move(measured));
  redraw();
}

const MeasuredFigures* CompareView::measuredFor(int i) const {
  // The same settings, key for key, as a plan file writes them.
  const std::string key = results::dumpJson(sim::toJson(pins_[static_cast<std::size_t>(i)].settings));
  for (const auto& [settings, figures] : measured_) {
    if (results::dumpJson(sim::toJson(settings)) == key) return &figures;
  }
  return nullptr;
}

void CompareView::clear() {
  pins_.clear();
  redraw();
}

void CompareView::redraw() {
  QStringList categories;
  std::vector<std::vector<Segment>> memory, step;
  double capacity = 0;
  for (int i = 0; i < pinned(); ++i) {
    const Pin& p = pins_[static_cast<std::size_t>(i)];
    categories << p.label;
    memory.push_back(p.figures.memoryGiB);
    step.push_back(p.figures.stepSeconds);
    capacity = capacity == 0 ? p.figures.capacityGiB : std::min(capacity, p.figures.capacityGiB);
    if (const MeasuredFigures* m = measuredFor(i); m && !m->stepSeconds.empty()) {
      categories << tr("%1 measured").arg(QChar('A' + i));
      std::vector<Segment> peak;
      if (m->peakGiB) peak.push_back({"measured_peak", tr("measured peak allocated"), QColor(0x34, 0x49, 0x5e), *m->peakGiB});
      memory.push_back(peak);
      step.push_back(m->stepSeconds);
    }
  }
  memory_->setChart(stackedBarChart(tr("Memory per GPU"), categories, memory, tr("GiB"),
                                    pins_.empty() ? std::nullopt : std::optional<double>(capacity)));
  step_->setChart(stackedBarChart(tr("Step time"), categories, step, tr("seconds")));

  const QStringList rows = {tr("model"), tr("cluster"), tr("layout"), tr("memory per GPU"), tr("fits"), tr("throughput"),
                            tr("time to train"), tr("cost")};
  table_->clear();
  table_->setRowCount(rows.size());
  table_->setColumnCount(pinned());
  table_->setVerticalHeaderLabels(rows);
  QStringList columns;
  for (const Pin& p : pins_) columns << p.label;
  table_->setHorizontalHeaderLabels(columns);
  for (int c = 0; c < pinned(); ++c) {
    const PlanFigures& f = pins_[c].figures;
    const QStringList cells = {f.model,
                               QStringLiteral("%1 (%2 GPUs)").arg(f.cluster).arg(f.gpus),
                               f.layout,
                               QStringLiteral("%1 GiB").arg(f.memoryTotalGiB, 0, 'f', 1),
                               f.fits ? tr("yes") : tr("no"),
                               describeThroughput(f),
                               f.trainSeconds > 0 ? formatDuration(f.trainSeconds) : QStringLiteral("—"),
                               f.costUsd > 0 ? QStringLiteral("$%1").arg(formatCount(f.costUsd)) : QStringLiteral("—")};
    for (int r = 0; r < cells.size(); ++r) {
      auto* item = new QTableWidgetItem(cells[r]);
      if (r == 4 && !f.fits) item->setForeground(QColor(Qt::red));
      table_->setItem(r, c, item);
    }
  }
  emit pinsChanged();
}

}  // namespace cclab::gui
