#include "gui/sweep_view.h"

#include <algorithm>

#include <QFormLayout>
#include <QHBoxLayout>
#include <QLogValueAxis>
#include <QScatterSeries>
#include <QVBoxLayout>
#include <QValueAxis>

#include "collectives/errors.h"
#include "gui/chart_builders.h"

namespace cclab::gui {
namespace {

struct Axis {
  const char* flag;
  const char* label;
  const char* defaults;
  bool logarithmic;  // powers of two read better on a log-2 axis
};

const Axis kAxes[] = {
    {"gpus", "GPUs", "8,16,32,64,128,256,512", true},
    {"micro-batch", "micro-batch", "1,2,4,8,16", true},
    {"global-batch", "global batch", "64,128,256,512,1024,2048", true},
    {"zero", "ZeRO stage", "0,1,2,3", false},
    {"tp", "tensor-parallel size", "1,2,4,8", true},
    {"pp", "pipeline stages", "1,2,4,8", true},
    {"vpp", "virtual stages", "1,2,4", true},
    {"seq", "sequence length", "1024,2048,4096,8192", true},
};

const Axis& axisOf(const QString& flag) {
  for (const Axis& a : kAxes) {
    if (flag == a.flag) return a;
  }
  return kAxes[0];
}

void setSwept(sim::TrainingSettings& s, const QString& flag, int value) {
  if (flag == "gpus") s.gpus = value;
  if (flag == "micro-batch") s.microBatch = value;
  if (flag == "global-batch") s.globalBatch = value;
  if (flag == "zero") {
    s.fsdp.clear();
    s.zero = value;
  }
  if (flag == "tp") s.tp = value;
  if (flag == "pp") s.pp = value;
  if (flag == "vpp") s.vpp = value;
  if (flag == "seq") s.seq = value;
}

// The swept axis, spanning the values with a margin.
QAbstractAxis* xAxis(const Axis& a, const std::vector<int>& values) {
  const double low = values.empty() ? 1 : values.front(), high = values.empty() ? 2 : values.back();
  if (a.logarithmic) {
    auto* x = new QLogValueAxis;
    x->setBase(2);
    x->setLabelFormat("%g");
    x->setTitleText(a.label);
    x->setRange(low / 1.3, high * 1.3);
    return x;
  }
  auto* x = new QValueAxis;
  x->setLabelFormat("%d");
  x->setTickInterval(1);
  x->setTickType(QValueAxis::TicksDynamic);
  x->setTitleText(a.label);
  x->setRange(low - 0.2, high + 0.2);
  return x;
}

}  // namespace

SweepView::SweepView(QWidget* parent) : ChartPage(parent) {
  axis_ = new QComboBox(this);
  for (const Axis& a : kAxes) axis_->addItem(a.label, QString(a.flag));
  axis_->setToolTip(tr("The setting to sweep; every other setting stays as in the plan"));
  values_edit_ = new QLineEdit(this);
  values_edit_->setToolTip(tr("The values to try, comma-separated"));
  note_ = new QLabel(this);
  note_->setWordWrap(true);
  charts_ = new QWidget(this);
  time_ = makeChartView(charts_);
  memory_ = makeChartView(charts_);
  auto* chartsLayout = new QHBoxLayout(charts_);
  chartsLayout->setContentsMargins(0, 0, 0, 0);
  chartsLayout->addWidget(time_);
  chartsLayout->addWidget(memory_);
  auto* controls = new QFormLayout;
  controls->addRow(tr("S&weep"), axis_);
  controls->addRow(tr("V&alues"), values_edit_);
  auto* column = new QVBoxLayout(this);
  column->addLayout(controls);
  column->addWidget(charts_, 1);
  column->addWidget(note_);
  connect(axis_, &QComboBox::currentIndexChanged, this, [this] { setAxis(axis_->currentData().toString()); });
  connect(values_edit_, &QLineEdit::editingFinished, this, [this] {
    if (const QString problem = setValues(values_edit_->text()); !problem.isEmpty()) note_->setText(problem);
  });
  setAxis(kAxes[0].flag);
}

void SweepView::setBase(const sim::TrainingSettings& base) {
  base_ = base;
  redraw();
}

void SweepView::setAxis(const QString& flag) {
  const Axis& a = axisOf(flag);
  if (axis_->currentData().toString() != flag) {
    const QSignalBlocker block(axis_);
    axis_->setCurrentIndex(axis_->findData(QString(a.flag)));
  }
  setValues(a.defaults);
}

QString SweepView::setValues(const QString& text) {
  std::vector<int> values;
  for (const QString& part : text.split(',', Qt::SkipEmptyParts)) {
    bool ok = false;
    const int v = part.trimmed().toInt(&ok);
    const int least = axis_->currentData().toString() == "zero" ? 0 : 1;
    if (!ok || v < least) return tr("'%1' is not a value for %2: give whole numbers from %3, comma-separated").arg(part.trimmed(), axis_->currentText()).arg(least);
    values.push_back(v);
  }
  if (values.empty()) return tr("give at least one value to sweep");
  if (values.size() > 64) return tr("at most 64 values (got %1)").arg(values.size());
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
  values_ = values;
  QStringList shown;
  for (int v : values_) shown << QString::number(v);
  values_edit_->setText(shown.join(','));
  redraw();
  return {};
}

void SweepView::redraw() {
  const QString flag = axis_->currentData().toString();
  const Axis& a = axisOf(flag);
  points_.clear();
  skipped_.clear();
  if (!base_.model.empty()) {
    for (int v : values_) {
      sim::TrainingSettings s = base_;
      setSwept(s, flag, v);
      try {
        points_.push_back({v, evaluate(s)});
      } catch (const InputError& e) {
        skipped_ << QStringLiteral("%1 %2: %3").arg(a.label).arg(v).arg(QString::fromStdString(e.what()));
      }
    }
  }
  note_->setText(skipped_.isEmpty() ? QString() : tr("Left out (the simulator rejects them): %1").arg(skipped_.join("; ")));

  std::vector<QPointF> step, mfu, bubble, scaling, memory;
  QScatterSeries* overflow = new QScatterSeries;
  overflow->setName(tr("does not fit"));
  overflow->setColor(Qt::red);
  overflow->setMarkerSize(12);
  double capacity = 0;
  for (const Point& p : points_) {
    step.push_back({double(p.x), p.figures.stepTotalSeconds});
    mfu.push_back({double(p.x), 100 * p.figures.mfu});
    bubble.push_back({double(p.x), 100 * p.figures.bubbleShare});
    memory.push_back({double(p.x), p.figures.memoryTotalGiB});
    if (!p.figures.fits) overflow->append(p.x, p.figures.memoryTotalGiB);
    capacity = p.figures.capacityGiB;
    // Scaling efficiency: throughput per GPU relative to the smallest GPU count swept.
    if (flag == "gpus" && !points_.empty()) {
      const PlanFigures& first = points_.front().figures;
      const double perGpu0 = first.samplesPerSecond / first.gpus;
      if (perGpu0 > 0) scaling.push_back({double(p.x), 100 * p.figures.samplesPerSecond / p.figures.gpus / perGpu0});
    }
  }

  // Both charts: the swept setting along x, a value axis from 0 to a little above `top` on the left.
  struct Chart {
    QChart* chart;
    QAbstractAxis* x;
    QValueAxis* y;
    void add(QXYSeries* s, QAbstractAxis* yAxis = nullptr) {
      chart->addSeries(s);
      s->attachAxis(x);
      s->attachAxis(yAxis ? yAxis : y);
    }
  };
  auto newChart = [&](const QString& title, const QString& yTitle, double top) {
    Chart c{new QChart, xAxis(a, values_), new QValueAxis};
    c.chart->setTitle(title);
    c.chart->addAxis(c.x, Qt::AlignBottom);
    c.y->setTitleText(yTitle);
    c.y->setLabelFormat("%.3g");
    c.y->setRange(0, top > 0 ? top * 1.1 : 1);
    c.chart->addAxis(c.y, Qt::AlignLeft);
    return c;
  };

  double longest = 0;
  for (const QPointF& p : step) longest = std::max(longest, p.y());
  Chart time = newChart(tr("Step time and MFU across %1").arg(a.label), tr("step time (s)"), longest);
  auto* percent = new QValueAxis;
  percent->setTitleText(tr("percent"));
  percent->setRange(0, 100);
  time.chart->addAxis(percent, Qt::AlignRight);
  time.add(lineSeries(tr("step time (s)"), step, 0));
  time.add(lineSeries(tr("MFU (%)"), mfu, 1), percent);
  time.add(lineSeries(tr("pipeline bubble (% of step)"), bubble, 7, true), percent);
  if (!scaling.empty()) time.add(lineSeries(tr("scaling efficiency (%)"), scaling, 2, true), percent);
  time_->setChart(time.chart);

  double top = capacity;
  for (const QPointF& p : memory) top = std::max(top, p.y());
  Chart mem = newChart(tr("Memory per GPU across %1").arg(a.label), tr("GiB"), top);
  mem.add(lineSeries(tr("memory per GPU (GiB)"), memory, 4));
  if (!points_.empty()) {
    std::vector<QPointF> line = {{double(values_.front()), capacity}, {double(values_.back()), capacity}};
    QLineSeries* capacityLine = lineSeries(tr("GPU memory (GiB)"), line, 3, true);
    capacityLine->setPointsVisible(false);
    mem.add(capacityLine);
  }
  mem.add(overflow);
  memory_->setChart(mem.chart);
}

}  // namespace cclab::gui
