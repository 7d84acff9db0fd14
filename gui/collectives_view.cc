#include "gui/collectives_view.h"

#include <algorithm>
#include <cmath>

#include <QGridLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QCategoryAxis>
#include <QLogValueAxis>
#include <QPushButton>
#include <QScatterSeries>

#include "collectives/errors.h"
#include "collectives/sizes.h"
#include "gui/chart_builders.h"
#include "sim/calibrate.h"

namespace cclab::gui {
namespace {

QString sizeLabel(double bytes) { return QString::fromStdString(describeBytes(static_cast<std::size_t>(bytes))); }

// The chart's x is log2(bytes).
std::vector<QPointF> chartPoints(const std::vector<SizePoint>& points) {
  std::vector<QPointF> chart;
  for (const SizePoint& p : points) chart.push_back({std::log2(p.bytes), p.gbps});
  return chart;
}

}  // namespace

CollectivesView::CollectivesView(QWidget* parent) : ChartPage(parent) {
  collective_ = new QComboBox(this);
  for (Collective c : allCollectives()) collective_->addItem(QString::fromUtf8(name(c).data(), int(name(c).size())), int(c));
  collective_->setToolTip(tr("The collective to plot"));
  metric_ = new QComboBox(this);
  metric_->addItem(tr("bus bandwidth (busbw)"), true);
  metric_->addItem(tr("algorithm bandwidth (algbw)"), false);
  metric_->setToolTip(tr("busbw = algbw × the collective's bus factor (nccl-tests's convention), comparable across rank counts"));
  ranks_ = new QSpinBox(this);
  ranks_->setRange(2, 16384);
  ranks_->setValue(8);
  ranks_->setKeyboardTracking(false);
  ranks_->setToolTip(tr("Ranks of the predicted curves (measured series keep their own)"));
  predictions_ = new QCheckBox(tr("predicted curves per algorithm"), this);
  predictions_->setChecked(true);
  auto* calibrate = new QPushButton(tr("&Calibrate from measurements"), this);
  calibrate->setToolTip(tr("Fit the cluster's latency and bandwidth terms to the opened results (ccsim calibrate) and redraw"));
  auto* reset = new QPushButton(tr("&Uncalibrated"), this);
  reset->setToolTip(tr("Go back to the cluster as described"));
  summary_ = new QLabel(this);
  summary_->setWordWrap(true);
  chart_ = makeChartView(this);
  table_ = new QTableWidget(this);
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->setColumnCount(7);
  table_->setHorizontalHeaderLabels({tr("file"), tr("implementation"), tr("ranks"), tr("size"), tr("measured GB/s"), tr("predicted GB/s"),
                                     tr("error %")});
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
  table_->setMaximumHeight(220);

  // Two rows, so the window stays usable at 1280x800 beside the settings form.
  auto* controls = new QGridLayout;
  controls->addWidget(collective_, 0, 0);
  controls->addWidget(metric_, 0, 1);
  controls->addWidget(new QLabel(tr("ranks"), this), 0, 2);
  controls->addWidget(ranks_, 0, 3);
  controls->addWidget(predictions_, 1, 0, 1, 2);
  controls->addWidget(calibrate, 1, 2, 1, 1);
  controls->addWidget(reset, 1, 3);
  controls->setColumnStretch(4, 1);
  auto* grid = new QGridLayout(this);
  grid->addLayout(controls, 0, 0);
  grid->addWidget(chart_, 1, 0);
  grid->addWidget(summary_, 2, 0);
  grid->addWidget(table_, 3, 0);
  grid->setRowStretch(1, 1);

  connect(collective_, &QComboBox::currentIndexChanged, this, [this] { redraw(); });
  connect(metric_, &QComboBox::currentIndexChanged, this, [this] { redraw(); });
  connect(ranks_, &QSpinBox::valueChanged, this, [this] { redraw(); });
  connect(predictions_, &QCheckBox::toggled, this, [this] { redraw(); });
  connect(calibrate, &QPushButton::clicked, this, [this] {
    if (const QString problem = this->calibrate(); !problem.isEmpty()) summary_->setText(problem);
  });
  connect(reset, &QPushButton::clicked, this, [this] {
    calibrated_.reset();
    emit calibratedChanged(false);
    redraw();
  });
}

QString CollectivesView::openResults(const QStringList& paths) {
  std::vector<OpenedResults> read;
  try {
    for (const QString& path : paths) {
      const std::string p = path.toStdString();
      OpenedResults o{p, results::readResults(p).file.rows, sim::loadMeasurements({p})};
      if (o.rows.empty()) return tr("%1: no results rows in it").arg(path);
      read.push_back(std::move(o));
    }
  } catch (const InputError& e) {
    return QString::fromStdString(e.what());
  }
  // Show what was opened: its first file's first row's collective and rank count.
  const results::Row first = read.front().rows.front();
  for (OpenedResults& o : read) opened_.push_back(std::move(o));
  {
    const QSignalBlocker a(collective_), b(ranks_);
    collective_->setCurrentIndex(collective_->findData(int(first.collective)));
    if (first.nranks >= 2) ranks_->setValue(first.nranks);
  }
  redraw();
  return {};
}

void CollectivesView::clearResults() {
  opened_.clear();
  calibrated_.reset();
  redraw();
}

QString CollectivesView::setCluster(const QString& presetOrPath) {
  if (presetOrPath == clusterName_ && (base_ || presetOrPath.isEmpty())) return {};
  std::optional<sim::Cluster> cluster;
  if (!presetOrPath.isEmpty()) {
    try {
      cluster = sim::loadCluster(presetOrPath.toStdString());
    } catch (const InputError& e) {
      return QString::fromStdString(e.what());
    }
  }
  clusterName_ = presetOrPath;
  base_ = std::move(cluster);
  if (calibrated_) emit calibratedChanged(false);
  calibrated_.reset();
  if (base_ && opened_.empty()) {
    const QSignalBlocker block(ranks_);
    ranks_->setValue(std::max(2, base_->gpus()));
  }
  redraw();
  return {};
}

QString CollectivesView::calibrate() {
  if (!base_) return tr("choose a cluster to calibrate first");
  std::vector<sim::Measurement> all;
  for (const OpenedResults& o : opened_) all.insert(all.end(), o.measured.begin(), o.measured.end());
  if (all.empty()) return tr("open measured results first (File ▸ Open results…): there is nothing to calibrate from");
  try {
    calibrated_ = sim::calibrate(*base_, all).fitted;
  } catch (const InputError& e) {
    return tr("cannot calibrate: %1").arg(QString::fromStdString(e.what()));
  }
  emit calibratedChanged(true);
  redraw();
  return {};
}

const sim::Cluster* CollectivesView::cluster() const { return calibrated_ ? &*calibrated_ : base_ ? &*base_ : nullptr; }

void CollectivesView::setCollective(Collective c) { collective_->setCurrentIndex(collective_->findData(int(c))); }
bool CollectivesView::hasCollective(Collective c) const {
  return std::any_of(opened_.begin(), opened_.end(), [&](const OpenedResults& o) {
    return std::any_of(o.rows.begin(), o.rows.end(), [&](const results::Row& r) { return r.collective == c; });
  });
}
void CollectivesView::setBusBandwidth(bool busbw) { metric_->setCurrentIndex(busbw ? 0 : 1); }
void CollectivesView::setRanks(int ranks) { ranks_->setValue(ranks); }
void CollectivesView::setPredictionsShown(bool shown) { predictions_->setChecked(shown); }

void CollectivesView::redraw() {
  const CollectivesChoice choice{static_cast<Collective>(collective_->currentData().toInt()), metric_->currentData().toBool(),
                                 ranks_->value(), predictions_->isChecked()};
  const sim::Cluster* cluster = this->cluster();
  const CollectivesModel model = buildCollectivesModel(opened_, cluster, choice);

  auto* chart = new QChart;
  const QString collectiveName = collective_->currentText();
  chart->setTitle(tr("%1 — %2%3").arg(collectiveName, metric_->currentText(),
                                       cluster ? tr(" on %1%2").arg(QString::fromStdString(cluster->name), calibrated_ ? tr(" (calibrated)") : QString())
                                               : QString()));
  chart->legend()->setAlignment(Qt::AlignRight);
  // x is log2(bytes) on a category axis, so the ticks read "4 KiB" rather than "4e+03".
  auto* x = new QCategoryAxis;
  x->setTitleText(tr("message size"));
  x->setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
  auto* y = new QLogValueAxis;
  y->setBase(10);
  y->setTitleText(choice.busBandwidth ? tr("busbw (GB/s)") : tr("algbw (GB/s)"));
  y->setLabelFormat("%g");
  chart->addAxis(x, Qt::AlignBottom);
  chart->addAxis(y, Qt::AlignLeft);
  auto add = [&](QXYSeries* s) {
    chart->addSeries(s);
    s->attachAxis(x);
    s->attachAxis(y);
  };
  int color = 0;
  for (const PredictedCurve& curve : model.predictedCurves) {
    add(lineSeries(QString::fromStdString(curve.label), chartPoints(curve.points), color++, true));
  }
  // Each measured series in its own colour, its rows' predictions beside it in the same colour.
  for (const MeasuredSeries& measured : model.measuredSeries) {
    auto* s = new QScatterSeries;
    s->setName(QString::fromStdString(measured.label));
    s->setColor(paletteColor(color++));
    s->setMarkerSize(9);
    for (const QPointF& p : chartPoints(measured.points)) s->append(p);
    add(s);
    if (measured.predictedPoints) {
      QLineSeries* line = lineSeries(QString::fromStdString(measured.predictedLabel), chartPoints(*measured.predictedPoints), 0, true);
      QPen pen = line->pen();
      pen.setColor(s->color());
      line->setPen(pen);
      line->setPointsVisible(false);
      add(line);
    }
  }
  for (int power : model.axes.sizeTickPowers()) x->append(sizeLabel(std::ldexp(1.0, power)), power);
  x->setRange(model.axes.xMin(), model.axes.xMax());
  y->setRange(model.axes.yMin(), model.axes.yMax());
  chart_->setChart(chart);

  table_->setRowCount(0);
  for (const ErrorRow& e : model.errorRows) {
    const int row = table_->rowCount();
    table_->insertRow(row);
    const QStringList cells = {
        QString::fromStdString(e.file),     QString::fromStdString(e.implementation), QString::number(e.ranks),
        sizeLabel(double(e.sizeBytes)),     QString::number(e.measuredGbps, 'g', 4),  QString::number(e.predictedGbps, 'g', 4),
        QString::number(e.errorPct, 'f', 1)};
    for (int c = 0; c < cells.size(); ++c) table_->setItem(row, c, new QTableWidgetItem(cells[c]));
  }
  table_->setVisible(table_->rowCount() > 0);
  medianError_.reset();
  if (model.errorSummary) medianError_ = model.errorSummary->medianAbsErrorPct;

  QString text;
  if (!model.problem.empty()) text = tr("Predictions left out: %1. ").arg(QString::fromStdString(model.problem));
  if (model.errorSummary) {
    text += tr("%1 measured rows: median |error| of the predictions %2% (bandwidth, per row below).")
                .arg(model.errorSummary->rows)
                .arg(*medianError_, 0, 'f', 1);
  } else if (opened_.empty()) {
    text += tr("Open measurements (File ▸ Open results…: ccbench JSON/CSV, nccl-tests logs or -J JSON) to lay them over the predictions.");
  }
  summary_->setText(text);
}

QString CollectivesView::csv() const {
  // The chart's x is log2(bytes): write bytes.
  QString text = QStringLiteral("chart,series,size_bytes,gbps\n");
  const QString title = '"' + chart_->chart()->title().replace('"', '\'') + '"';
  for (QAbstractSeries* s : chart_->chart()->series()) {
    for (const QPointF& p : static_cast<QXYSeries*>(s)->points()) {
      text += QStringLiteral("%1,\"%2\",%3,%4\n").arg(title, s->name()).arg(std::exp2(p.x()), 0, 'f', 0).arg(p.y(), 0, 'g', 10);
    }
  }
  for (int r = 0; r < table_->rowCount(); ++r) {
    QStringList cells{QStringLiteral("\"errors\"")};
    for (int c = 0; c < table_->columnCount(); ++c) cells << '"' + table_->item(r, c)->text() + '"';
    text += cells.join(',') + '\n';
  }
  return text;
}

}  // namespace cclab::gui
