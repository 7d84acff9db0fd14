#include "gui/planner_view.h"

#include <chrono>

#include <QFormLayout>
#include <QHeaderView>
#include <QPushButton>
#include <QVBoxLayout>

#include "collectives/errors.h"
#include "gui/plan_figures.h"
#include "sim/training/planner.h"
#include "sim/training/report.h"

namespace cclab::gui {

PlannerView::PlannerView(QWidget* parent) : QWidget(parent) {
  top_ = new QSpinBox(this);
  top_->setRange(1, 200);
  top_->setValue(20);
  top_->setToolTip(tr("How many plans to list (ccsim plan --top)"));
  maxMicroBatch_ = new QSpinBox(this);
  maxMicroBatch_->setRange(1, 1024);
  maxMicroBatch_->setValue(64);
  maxMicroBatch_->setToolTip(tr("Largest micro-batch to try (ccsim plan --max-micro-batch)"));
  auto* runButton = new QPushButton(tr("&Run planner"), this);
  runButton->setToolTip(tr("Search data/tensor/pipeline sizes, virtual stages, ZeRO stage, micro-batch and recompute for the "
                           "current model, cluster, GPUs, global batch and sequence (Ctrl+R)"));
  summary_ = new QLabel(tr("Run the planner to rank the layouts that fit."), this);
  summary_->setWordWrap(true);
  table_ = new QTableWidget(this);
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setSelectionMode(QAbstractItemView::SingleSelection);
  table_->setColumnCount(12);
  table_->setHorizontalHeaderLabels({tr("dp"), tr("tp"), tr("pp"), tr("vpp"), tr("sharding"), tr("micro-batch"), tr("recompute"),
                                     tr("offload"), tr("step s"), tr("GiB/GPU"), tr("MFU %"), tr("tokens/s")});
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
  table_->setToolTip(tr("Click a plan to load it into the plan view"));
  auto* form = new QFormLayout;
  form->addRow(tr("Plans to list"), top_);
  form->addRow(tr("Largest micro-batch"), maxMicroBatch_);
  auto* column = new QVBoxLayout(this);
  column->addLayout(form);
  column->addWidget(runButton);
  column->addWidget(summary_);
  column->addWidget(table_, 1);
  connect(runButton, &QPushButton::clicked, this, [this] { run(base_); });
  connect(table_, &QTableWidget::cellClicked, this, [this](int row, int) {
    if (row >= 0 && row < plans()) emit planChosen(plans_[row]);
  });
}

QString PlannerView::run(const sim::TrainingSettings& base) {
  base_ = base;
  plans_.clear();
  table_->setRowCount(0);
  QString problem;
  try {
    const sim::PlanningInputs in = sim::planningInputs(base);
    sim::TrainingPricer pricer(in.job, in.base.collectives);
    const auto start = std::chrono::steady_clock::now();
    const sim::PlanResult result = sim::plan(in.model, in.base, pricer, {top_->value(), maxMicroBatch_->value()});
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    summary_->setText(tr("Explored %1 layouts in %2 ms: %3 do not divide or break a rule, %4 do not fit, %5 fit.%6")
                          .arg(result.explored).arg(ms, 0, 'f', 1).arg(result.notDividing).arg(result.notFitting).arg(result.fitting)
                          .arg(result.best.empty() ? tr(" No layout fits, on the GPUs alone or offloading: try more GPUs.")
                               : result.offloaded  ? tr(" Nothing fit on the GPUs alone: these offload. Click a plan to load it.")
                                                   : tr(" Click a plan to load it.")));
    for (const sim::TrainingEstimate& e : result.best) {
      const sim::TrainConfig& c = e.config;
      sim::TrainingSettings s = base;
      sim::setLayout(s, c);
      plans_.push_back(s);
      const int row = table_->rowCount();
      table_->insertRow(row);
      const QStringList cells = {QString::number(c.dp), QString::number(c.tp), QString::number(c.pp), QString::number(c.vpp),
                                 QString::fromStdString(c.shardingName), QString::number(c.microBatch),
                                 QString::fromUtf8(sim::name(c.recompute).data()), QString::fromStdString(sim::placementLabel(c)),
                                 QString::number(e.step.total, 'g', 4),
                                 QString::number(e.memory.total / kGiB, 'f', 1), QString::number(100 * e.mfu, 'f', 1),
                                 formatCount(e.tokensPerSecond)};
      for (int col = 0; col < cells.size(); ++col) table_->setItem(row, col, new QTableWidgetItem(cells[col]));
    }
  } catch (const InputError& e) {
    problem = QString::fromStdString(e.what());
    summary_->setText(tr("Cannot plan: %1").arg(problem));
  }
  return problem;
}

}  // namespace cclab::gui
