#include "gui/plan_view.h"

#include <QGridLayout>

#include "collectives/errors.h"
#include "gui/chart_builders.h"

namespace cclab::gui {

QString describeThroughput(const PlanFigures& f) {
  if (f.statesOnly) return QObject::tr("model states only");
  QString rate = f.perSample ? QObject::tr("%1 samples/s").arg(formatCount(f.samplesPerSecond))
                             : QObject::tr("%1 tokens/s").arg(formatCount(f.tokensPerSecond));
  return QObject::tr("%1 · MFU %2% · step %3 s").arg(rate).arg(100 * f.mfu, 0, 'f', 1).arg(f.stepTotalSeconds, 0, 'g', 4);
}

PlanView::PlanView(QWidget* parent) : ChartPage(parent) {
  memory_ = makeChartView(this);
  step_ = makeChartView(this);
  summary_ = new QLabel(this);
  summary_->setTextFormat(Qt::RichText);
  summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  problem_ = new QLabel(this);
  problem_->setWordWrap(true);
  problem_->setStyleSheet("color: #d62728; font-weight: bold;");
  problem_->hide();
  auto* grid = new QGridLayout(this);
  grid->addWidget(problem_, 0, 0, 1, 2);
  grid->addWidget(memory_, 1, 0, 1, 2);
  grid->addWidget(step_, 2, 0, 1, 2);
  grid->addWidget(summary_, 3, 0, 1, 2);
  grid->setRowStretch(1, 1);
  grid->setRowStretch(2, 1);
}

void PlanView::showPlan(const sim::TrainingSettings& settings) {
  try {
    showFigures(evaluate(settings));
  } catch (const InputError& e) {
    clearCharts(QString::fromStdString(e.what()));
  }
}

void PlanView::clearCharts(const QString& why) {
  figures_.reset();
  problemText_ = why;
  problem_->setText(tr("Cannot price this plan: %1").arg(why));
  problem_->show();
  memory_->setChart(new QChart);  // QChartView owns and deletes the previous chart
  step_->setChart(new QChart);
  summary_->clear();
}

void PlanView::showFigures(const PlanFigures& f) {
  figures_ = f;
  problem_->hide();
  const QString fit = f.fits ? tr("fits: %1 GiB of %2 GiB").arg(f.memoryTotalGiB, 0, 'f', 1).arg(f.capacityGiB, 0, 'f', 0)
                             : tr("does not fit: %1 GiB > %2 GiB").arg(f.memoryTotalGiB, 0, 'f', 1).arg(f.capacityGiB, 0, 'f', 0);
  QStringList memoryBars = {tr("per GPU")};
  std::vector<std::vector<Segment>> memorySegments = {f.memoryGiB};
  if (measured_ && measured_->peakGiB) {
    memoryBars = {tr("predicted"), tr("measured")};
    memorySegments.push_back({{"measured_peak", tr("measured peak allocated"), QColor(0x34, 0x49, 0x5e), *measured_->peakGiB}});
  }
  QChart* memory = stackedBarChart(tr("Memory per GPU — %1").arg(fit), memoryBars, memorySegments, tr("GiB"), f.capacityGiB,
                                    /*horizontal=*/true);
  if (!f.fits) memory->setTitleBrush(QColor(Qt::red));
  memory_->setChart(memory);
  if (f.statesOnly) {
    step_->setChart(new QChart);
  } else {
    QString title = tr("Step time — %1 s").arg(f.stepTotalSeconds, 0, 'g', 4);
    QStringList bars = {tr("one step")};
    std::vector<std::vector<Segment>> segments = {f.stepSeconds};
    if (measured_ && !measured_->stepSeconds.empty()) {
      title += tr(", measured %1 s (%2%3%)")
                   .arg(measured_->stepTotalSeconds, 0, 'g', 4)
                   .arg(f.stepTotalSeconds >= measured_->stepTotalSeconds ? "+" : "")
                   .arg(100 * (f.stepTotalSeconds / measured_->stepTotalSeconds - 1), 0, 'f', 1);
      bars = {tr("predicted"), tr("measured")};
      segments.push_back(measured_->stepSeconds);
    }
    step_->setChart(stackedBarChart(title, bars, segments, tr("seconds"), std::nullopt, /*horizontal=*/true));
  }
  QString text = tr("<b>%1</b> on <b>%2</b> (%3 GPUs): %4<br>").arg(f.model.toHtmlEscaped(), f.cluster.toHtmlEscaped()).arg(f.gpus).arg(f.layout);
  text += describeThroughput(f);
  if (!f.statesOnly) {
    text += tr(" · HFU %1% · pipeline bubble %2% of the step").arg(100 * f.hfu, 0, 'f', 1).arg(100 * f.bubbleShare, 0, 'f', 1);
    if (f.trainSeconds > 0) {
      text += tr("<br>To train on %1 %2: <b>%3</b>, %4 GPU-hours").arg(formatCount(f.trainBudget), f.perSample ? tr("samples") : tr("tokens"),
                                                                      formatDuration(f.trainSeconds), formatCount(f.gpuHours));
      if (f.costUsd > 0) text += tr(", <b>$%1</b>").arg(formatCount(f.costUsd));
    }
  }
  summary_->setText(text);
}

void PlanView::setMeasured(std::optional<MeasuredFigures> measured) {
  measured_ = std::move(measured);
  if (figures_) showFigures(*figures_);
}

QString PlanView::csv() const {
  QString text = ChartPage::csv();
  if (figures_) {
    const PlanFigures& f = *figures_;
    text += QStringLiteral("\"figures\",\"tokens_per_s\",,%1\n\"figures\",\"mfu\",,%2\n\"figures\",\"train_time_s\",,%3\n\"figures\",\"cost_usd\",,%4\n")
                .arg(f.tokensPerSecond, 0, 'g', 10).arg(f.mfu, 0, 'g', 10).arg(f.trainSeconds, 0, 'g', 10).arg(f.costUsd, 0, 'g', 10);
  }
  return text;
}

}  // namespace cclab::gui
