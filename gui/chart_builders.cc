#include "gui/chart_builders.h"

#include <algorithm>

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QHorizontalStackedBarSeries>
#include <QPen>
#include <QScatterSeries>
#include <QStackedBarSeries>
#include <QValueAxis>

namespace cclab::gui {

QColor paletteColor(int index) {
  static const QColor kPalette[] = {QColor(0x1f, 0x77, 0xb4), QColor(0xff, 0x7f, 0x0e), QColor(0x2c, 0xa0, 0x2c), QColor(0xd6, 0x27, 0x28),
                                    QColor(0x94, 0x67, 0xbd), QColor(0x8c, 0x56, 0x4b), QColor(0xe3, 0x77, 0xc2), QColor(0x7f, 0x7f, 0x7f),
                                    QColor(0xbc, 0xbd, 0x22), QColor(0x17, 0xbe, 0xcf)};
  return kPalette[index % std::size(kPalette)];
}

QChart* stackedBarChart(const QString& title, const QStringList& categories, const std::vector<std::vector<Segment>>& bars,
                        const QString& unit, std::optional<double> capacity, bool horizontal) {
  auto* chart = new QChart;
  chart->setTitle(title);
  chart->legend()->setAlignment(Qt::AlignBottom);
  QAbstractBarSeries* series = horizontal ? static_cast<QAbstractBarSeries*>(new QHorizontalStackedBarSeries) : new QStackedBarSeries;
  double tallest = 0;
  for (const auto& bar : bars) {
    double sum = 0;
    for (const Segment& s : bar) sum += s.value;
    tallest = std::max(tallest, sum);
  }
  // One set per segment key, in the order keys first appear (bars need not have the same
  // segments: a measured bar beside a predicted one); a bar without the key holds 0 in it.
  std::vector<const Segment*> keys;
  for (const auto& bar : bars) {
    for (const Segment& s : bar) {
      if (std::none_of(keys.begin(), keys.end(), [&](const Segment* k) { return k->key == s.key; })) keys.push_back(&s);
    }
  }
  for (const Segment* key : keys) {
    std::vector<double> values;
    for (const auto& bar : bars) {
      const auto it = std::find_if(bar.begin(), bar.end(), [&](const Segment& s) { return s.key == key->key; });
      values.push_back(it == bar.end() ? 0.0 : it->value);
    }
    if (std::none_of(values.begin(), values.end(), [](double v) { return v > 0; })) continue;
    auto* set = new QBarSet(key->label);
    set->setColor(key->color);
    set->setBorderColor(key->color.darker(120));
    for (double v : values) set->append(v);
    series->append(set);
  }
  series->setBarWidth(0.6);
  chart->addSeries(series);
  auto* x = new QBarCategoryAxis;
  x->append(categories);
  auto* y = new QValueAxis;  // the values (GiB, seconds); x holds the categories
  y->setTitleText(unit);
  y->setLabelFormat("%.3g");
  chart->addAxis(x, horizontal ? Qt::AlignLeft : Qt::AlignBottom);
  chart->addAxis(y, horizontal ? Qt::AlignBottom : Qt::AlignLeft);
  series->attachAxis(x);
  series->attachAxis(y);
  double top = tallest;
  if (capacity) {
    top = std::max(top, *capacity);
    const bool over = tallest > *capacity;
    auto* line = new QLineSeries;
    line->setName(QStringLiteral("GPU memory (%1 %2)").arg(*capacity, 0, 'g', 3).arg(unit));
    const QPointF from(-0.5, *capacity), to(categories.size() - 0.5, *capacity);
    line->append(horizontal ? from.transposed() : from);
    line->append(horizontal ? to.transposed() : to);
    QPen pen(over ? QColor(Qt::red) : QColor(0x2c, 0xa0, 0x2c));
    pen.setWidth(over ? 4 : 2);
    pen.setStyle(over ? Qt::SolidLine : Qt::DashLine);
    line->setPen(pen);
    chart->addSeries(line);
    line->attachAxis(x);
    line->attachAxis(y);
  }
  y->setRange(0, top > 0 ? top * 1.12 : 1);
  y->applyNiceNumbers();
  return chart;
}

QAbstractSeries* findSeries(QChart* chart, const QString& name) {
  for (QAbstractSeries* s : chart->series()) {
    if (s->name() == name) return s;
  }
  return nullptr;
}

QString chartCsv(QChart* chart) {
  QString csv = QStringLiteral("chart,series,x,y\n");
  const QString title = '"' + chart->title().replace('"', '\'') + '"';
  for (QAbstractSeries* s : chart->series()) {
    if (auto* bars = qobject_cast<QAbstractBarSeries*>(s)) {
      QStringList categories;
      for (QAbstractAxis* axis : bars->attachedAxes()) {
        if (auto* c = qobject_cast<QBarCategoryAxis*>(axis)) categories = c->categories();
      }
      for (QBarSet* set : bars->barSets()) {
        for (int i = 0; i < set->count(); ++i) {
          csv += QStringLiteral("%1,\"%2\",\"%3\",%4\n").arg(title, set->label(), i < categories.size() ? categories[i] : QString::number(i))
                     .arg(set->at(i), 0, 'g', 10);
        }
      }
    } else if (auto* xy = qobject_cast<QXYSeries*>(s)) {
      for (const QPointF& p : xy->points()) {
        csv += QStringLiteral("%1,\"%2\",%3,%4\n").arg(title, xy->name()).arg(p.x(), 0, 'g', 10).arg(p.y(), 0, 'g', 10);
      }
    }
  }
  return csv;
}

QLineSeries* lineSeries(const QString& name, const std::vector<QPointF>& points, int colorIndex, bool dashed) {
  auto* s = new QLineSeries;
  s->setName(name);
  for (const QPointF& p : points) s->append(p);
  QPen pen(paletteColor(colorIndex));
  pen.setWidth(2);
  if (dashed) pen.setStyle(Qt::DashLine);
  s->setPen(pen);
  s->setPointsVisible(true);
  return s;
}

}  // namespace cclab::gui
