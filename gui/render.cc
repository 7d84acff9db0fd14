#include "gui/render.h"

#include <cstdio>
#include <memory>

#include <QCoreApplication>

#include "collectives/errors.h"
#include "collectives/vocabulary.h"
#include "gui/main_window.h"

namespace cclab::gui {
namespace {

int badInput(const QString& problem) {
  std::fprintf(stderr, "ccplan: error: %s\n", problem.toUtf8().constData());
  return 2;
}

}  // namespace

int render(const RenderOptions& o) {
  if (o.inputs.empty()) return badInput("--render needs a plan file or results files");
  if (o.output.empty()) return badInput("--render needs -o <out.png>");
  if (o.width < 320 || o.height < 240 || o.width > 8192 || o.height > 8192) {
    return badInput(QStringLiteral("--size %1x%2 is out of range (320x240 to 8192x8192)").arg(o.width).arg(o.height));
  }
  if (o.metric != "busbw" && o.metric != "algbw") return badInput(QStringLiteral("unknown --metric '%1' (valid: busbw, algbw)").arg(o.metric.c_str()));
  MainWindow window(/*remember=*/false);
  window.resize(o.width, o.height);
  const bool plan = isPlanFile(QString::fromStdString(o.inputs.front()));
  std::string view = o.view.empty() ? (plan ? "plan" : "collectives") : o.view;
  QStringList inputs;
  for (const std::string& in : o.inputs) inputs << QString::fromStdString(in);
  if (plan) {
    if (view == "collectives") return badInput("--view collectives draws results files, not a plan");
    if (!window.openPlan(inputs.front())) return badInput(window.messageBar()->text());
    // After the plan: measured training runs to draw beside it, nothing else.
    // A measured step's trace draws under the predicted timeline (the view then, unless --view says).
    for (qsizetype i = 1; i < inputs.size(); ++i) {
      if (isMeasuredStepTrace(inputs[i])) {
        if (!window.openMeasuredTrace(inputs[i])) return badInput(window.messageBar()->text());
        if (o.view.empty()) view = "timeline";
        continue;
      }
      if (!isTrainingMeasurement(inputs[i])) {
        return badInput(QStringLiteral("--render takes one plan file, then measured training runs or traces (%1 is neither)").arg(inputs[i]));
      }
      if (!window.openTrainingMeasurement(inputs[i], /*strict=*/true)) return badInput(window.messageBar()->text());
    }
  } else {
    if (view != "collectives") return badInput(QStringLiteral("--view %1 needs a plan file (got results)").arg(view.c_str()));
    if (!window.openResults(inputs)) return badInput(window.messageBar()->text());
  }
  window.messageBar()->hide();
  ChartPage* page = nullptr;
  if (view == "plan") {
    if (!window.planView()->figures()) return badInput(window.planView()->problem());
    window.showView(MainWindow::View::Plan);
    page = window.planView();
  } else if (view == "compare") {
    window.compareView()->pinShardingStages(window.settingsPanel()->settings());
    window.showView(MainWindow::View::Compare);
    page = window.compareView();
  } else if (view == "sweep") {
    window.sweepView()->setAxis(QString::fromStdString(o.sweep));
    if (window.sweepView()->axis()->currentData().toString().toStdString() != o.sweep) {
      return badInput(QStringLiteral("unknown --sweep '%1' (valid: gpus, micro-batch, global-batch, zero, tp, pp, vpp, seq)").arg(o.sweep.c_str()));
    }
    window.showView(MainWindow::View::Sweep);
    page = window.sweepView();
  } else if (view == "timeline") {
    if (const QString problem = window.timelineView()->problem(); !problem.isEmpty()) return badInput(problem);
    window.showView(MainWindow::View::Timeline);
    page = window.timelineView();
  } else if (view == "collectives") {
    CollectivesView* c = window.collectivesView();
    if (const QString problem = c->setCluster(QString::fromStdString(o.cluster)); !problem.isEmpty()) return badInput(problem);
    c->setPredictionsShown(!o.cluster.empty());
    if (!o.collective.empty()) {
      try {
        const Collective wanted = parseCollective(o.collective);
        if (!c->hasCollective(wanted)) return badInput(QStringLiteral("--collective %1: the files have no %1 rows").arg(o.collective.c_str()));
        c->setCollective(wanted);
      } catch (const InputError& e) {
        return badInput(e.what());
      }
    }
    c->setBusBandwidth(o.metric == "busbw");
    window.showView(MainWindow::View::Collectives);
    page = c;
  } else {
    return badInput(QStringLiteral("unknown --view '%1' (valid: plan, compare, sweep, timeline, collectives)").arg(view.c_str()));
  }
  window.show();
  QCoreApplication::processEvents();
  if (!o.title.empty()) {
    for (QChartView* chart : page->chartViews()) chart->chart()->setTitle(QString::fromStdString(o.title));
  }
  if (o.window) {
    window.resize(o.width, o.height);
    QCoreApplication::processEvents();
    if (!savePng(&window, QString::fromStdString(o.output))) return badInput(QStringLiteral("%1: cannot write the PNG").arg(o.output.c_str()));
    return 0;
  }
  // The image is the view's chart area alone, at the size asked for.
  std::unique_ptr<QWidget> area(page->exportArea());
  area->setParent(nullptr);
  area->resize(o.width, o.height);
  area->show();
  QCoreApplication::processEvents();
  if (!savePng(area.get(), QString::fromStdString(o.output))) return badInput(QStringLiteral("%1: cannot write the PNG").arg(o.output.c_str()));
  return 0;
}

}  // namespace cclab::gui
