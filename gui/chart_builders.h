#pragma once

// Qt Charts built from figures: stacked bars with a capacity line (plan and compare views) and
// lines on value or log axes (sweep and collectives views). Styling lives here once.

#include <optional>
#include <vector>

#include <QChart>
#include <QLineSeries>
#include <QString>
#include <QStringList>

#include "gui/plan_figures.h"

namespace cclab::gui {

// One stacked bar per category; bars[i] holds category i's segments: one bar set per segment key,
// in the order keys first appear, and a bar without a key holds 0 in it.
// Segments that are zero in every bar are left out of the legend. `capacity` draws a horizontal
// line across the bars (the GPU's memory): red and thick when a bar passes it.
// `horizontal` lays the bars along x (one wide bar reads best in the plan view).
QChart* stackedBarChart(const QString& title, const QStringList& categories, const std::vector<std::vector<Segment>>& bars,
                        const QString& unit, std::optional<double> capacity = std::nullopt, bool horizontal = false);

// The series in a chart by name (nullptr when absent): what tests and CSV export read.
QAbstractSeries* findSeries(QChart* chart, const QString& name);

// A chart's data as CSV: one line per point or bar segment ("series,x,y").
QString chartCsv(QChart* chart);

// A line series with points, named, in a colour picked from the palette by index.
QLineSeries* lineSeries(const QString& name, const std::vector<QPointF>& points, int colorIndex, bool dashed = false);
QColor paletteColor(int index);

}  // namespace cclab::gui
