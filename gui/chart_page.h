#pragma once

// A view of ccplan's main window: a page of charts that can be exported (PNG of the charts, CSV of
// their data) and redrawn when the settings change.

#include <QChartView>
#include <QList>
#include <QString>
#include <QWidget>

namespace cclab::gui {

class ChartPage : public QWidget {
  Q_OBJECT
 public:
  using QWidget::QWidget;
  // The charts on the page, in reading order.
  virtual QList<QChartView*> chartViews() const = 0;
  // The part of the page a PNG export shows (the charts and their figures, not the controls).
  virtual QWidget* exportArea() = 0;
  // The data behind the charts (chart, series, x, y) plus the page's own table where it has one.
  virtual QString csv() const;
};

// Writes a widget's image as PNG, atomically (beside the target, then renamed): false when it cannot.
bool savePng(QWidget* widget, const QString& path);

// A chart view with antialiasing and a size that stays readable at 1280x800.
QChartView* makeChartView(QWidget* parent);

}  // namespace cclab::gui
