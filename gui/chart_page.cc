#include "gui/chart_page.h"

#include <QFile>
#include <QPainter>
#include <QPixmap>

#include "gui/chart_builders.h"

namespace cclab::gui {

QString ChartPage::csv() const {
  QString text;
  for (QChartView* view : chartViews()) {
    if (view->chart() == nullptr) continue;
    const QString one = chartCsv(view->chart());
    text += text.isEmpty() ? one : one.section('\n', 1);  // one header line
  }
  return text;
}

bool savePng(QWidget* widget, const QString& path) {
  const QPixmap image = widget->grab();
  const QString partial = path + ".partial.png";
  if (image.save(partial, "PNG") && (!QFile::exists(path) || QFile::remove(path)) && QFile::rename(partial, path)) return true;
  QFile::remove(partial);
  return false;
}

QChartView* makeChartView(QWidget* parent) {
  auto* view = new QChartView(parent);
  view->setRenderHint(QPainter::Antialiasing);
  view->setMinimumSize(360, 240);
  return view;
}

}  // namespace cclab::gui
