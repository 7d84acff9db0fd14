#include "results/json_reader.h"
#include "gui/main_window.h"

#include <functional>

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QCloseEvent>
#include <QDockWidget>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenuBar>
#include <QMessageBox>
#include <QScrollArea>
#include <QScrollBar>
#include <QSettings>
#include <QStatusBar>
#include <QVBoxLayout>

#include "collectives/errors.h"

namespace cclab::gui {

bool isPlanFile(const QString& path) {
  QFile file(path);
  if (!file.open(QIODevice::ReadOnly)) return false;
  const results::Json doc = results::Json::parse(file.readAll().toStdString(), nullptr, /*allow_exceptions=*/false);
  return doc.is_object() && !doc.contains("schema") && (doc.contains("model") || doc.contains("cluster"));
}

bool isTrainingMeasurement(const QString& path) {
  try {
    results::readTraining(path.toStdString());
    return true;
  } catch (const InputError&) {
    return false;
  }
}

MainWindow::MainWindow(bool remember, QWidget* parent) : QMainWindow(parent), remember_(remember) {
  setWindowTitle(tr("ccplan — what-if planning for distributed training"));
  settings_ = new SettingsPanel;
  auto* scroll = new QScrollArea;
  scroll->setWidget(settings_);
  scroll->setWidgetResizable(true);
  scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  scroll->setMinimumWidth(settings_->sizeHint().width() + scroll->verticalScrollBar()->sizeHint().width() + 4);
  auto* dock = new QDockWidget(tr("Settings"), this);
  dock->setObjectName("settings");
  dock->setWidget(scroll);
  dock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable);
  addDockWidget(Qt::LeftDockWidgetArea, dock);

  message_ = new MessageBar;
  tabs_ = new QTabWidget;
  plan_ = new PlanView;
  compare_ = new CompareView;
  sweep_ = new SweepView;
  collectives_ = new CollectivesView;
  planner_ = new PlannerView;
  timeline_ = new TimelineView;
  tabs_->addTab(plan_, tr("&Plan"));
  tabs_->addTab(compare_, tr("C&ompare"));
  tabs_->addTab(sweep_, tr("S&weep"));
  tabs_->addTab(collectives_, tr("Co&llectives"));
  tabs_->addTab(planner_, tr("Pla&nner"));
  tabs_->addTab(timeline_, tr("&Timeline"));
  tabs_->setTabToolTip(0, tr("Memory per GPU and step time of the plan in the settings"));
  tabs_->setTabToolTip(1, tr("Up to four pinned plans side by side"));
  tabs_->setTabToolTip(2, tr("One setting swept: step time, MFU and memory"));
  tabs_->setTabToolTip(3, tr("Predicted collective bandwidth per algorithm, with measured results laid over it"));
  tabs_->setTabToolTip(4, tr("The fastest layouts that fit (ccsim plan)"));
  tabs_->setTabToolTip(5, tr("The plan's step as simulated: every stream of every stage, the critical path underlined"));
  auto* central = new QWidget;
  auto* column = new QVBoxLayout(central);
  column->setContentsMargins(4, 4, 4, 4);
  column->addWidget(message_);
  column->addWidget(tabs_, 1);
  setCentralWidget(central);
  buildMenus();

  connect(settings_, &SettingsPanel::changed, this, &MainWindow::settingsChanged);
  connect(planner_, &PlannerView::planChosen, this, [this](const sim::TrainingSettings& s) {
    settings_->setSettings(s);
    showView(View::Plan);
  });
  resize(1280, 800);
  if (remember_) {
    QSettings stored;
    restoreGeometry(stored.value("window/geometry").toByteArray());
    restoreState(stored.value("window/state").toByteArray());
    tabs_->setCurrentIndex(stored.value("window/view", 0).toInt());
  }
  settingsChanged();
}

void MainWindow::buildMenus() {
  auto action = [this](QMenu* menu, const QString& text, const QKeySequence& keys, const QString& tip, auto slot) {
    QAction* a = menu->addAction(text);
    a->setShortcut(keys);
    a->setStatusTip(tip);
    a->setToolTip(tip);
    connect(a, &QAction::triggered, this, slot);
    return a;
  };
  QMenu* file = menuBar()->addMenu(tr("&File"));
  action(file, tr("Open &results…"), QKeySequence::Open, tr("ccbench results (JSON, CSV), nccl-tests logs or -J JSON"), [this] {
    const QStringList paths = QFileDialog::getOpenFileNames(this, tr("Open results"), {}, tr("Results (*.json *.csv *.txt *.log);;All files (*)"));
    if (!paths.isEmpty()) openResults(paths);
  });
  action(file, tr("Open &model…"), QKeySequence(tr("Ctrl+M")), tr("A Hugging Face config.json (or a cclab model card)"), [this] {
    const QString path = QFileDialog::getOpenFileName(this, tr("Open model"), {}, tr("config.json (*.json);;All files (*)"));
    if (!path.isEmpty()) openModel(path);
  });
  action(file, tr("Open &cluster…"), QKeySequence(tr("Ctrl+K")), tr("A cluster description or a calibrated cluster (ccsim calibrate -o)"), [this] {
    const QString path = QFileDialog::getOpenFileName(this, tr("Open cluster"), {}, tr("Cluster (*.json);;All files (*)"));
    if (!path.isEmpty()) openCluster(path);
  });
  action(file, tr("Open p&lan…"), QKeySequence(tr("Ctrl+L")), tr("A plan file saved by ccplan (the settings of ccsim train)"), [this] {
    const QString path = QFileDialog::getOpenFileName(this, tr("Open plan"), {}, tr("Plan (*.json);;All files (*)"));
    if (!path.isEmpty()) openPlan(path);
  });
  file->addSeparator();
  action(file, tr("&Save plan…"), QKeySequence::Save, tr("Save the settings as a plan file: ccsim train --plan FILE re-runs it"), [this] {
    const QString path = QFileDialog::getSaveFileName(this, tr("Save plan"), "plan.json", tr("Plan (*.json)"));
    if (!path.isEmpty()) savePlan(path);
  });
  action(file, tr("&Export PNG…"), QKeySequence(tr("Ctrl+E")), tr("The current view's charts as a PNG image"), [this] {
    const QString path = QFileDialog::getSaveFileName(this, tr("Export PNG"), "ccplan.png", tr("PNG (*.png)"));
    if (!path.isEmpty()) exportPng(path);
  });
  action(file, tr("Export &CSV…"), QKeySequence(tr("Ctrl+Shift+E")), tr("The data behind the current view's charts as CSV"), [this] {
    const QString path = QFileDialog::getSaveFileName(this, tr("Export CSV"), "ccplan.csv", tr("CSV (*.csv)"));
    if (!path.isEmpty()) exportCsv(path);
  });
  file->addSeparator();
  action(file, tr("&Quit"), QKeySequence::Quit, tr("Quit ccplan"), [this] { close(); });

  QMenu* view = menuBar()->addMenu(tr("&View"));
  const QStringList names = {tr("Plan"), tr("Compare"), tr("Sweep"), tr("Collectives"), tr("Planner"), tr("Timeline")};
  for (int i = 0; i < names.size(); ++i) {
    action(view, names[i], QKeySequence(QStringLiteral("Ctrl+%1").arg(i + 1)), tr("Show the %1 view").arg(names[i]),
           [this, i] { showView(static_cast<View>(i)); });
  }

  QMenu* plan = menuBar()->addMenu(tr("&Plan"));
  action(plan, tr("&Pin for comparison"), QKeySequence(tr("Ctrl+P")), tr("Add the current plan to the Compare view (up to four)"), [this] {
    if (const QString problem = compare_->pin(settings_->settings()); !problem.isEmpty()) {
      fail(problem);
    } else {
      showView(View::Compare);
    }
  });
  action(plan, tr("&DDP vs ZeRO-1/2/3"), QKeySequence(tr("Ctrl+D")), tr("Compare the current plan under DDP and each ZeRO stage"), [this] {
    const QString problems = compare_->pinShardingStages(settings_->settings());
    if (!problems.isEmpty()) fail(problems);
    showView(View::Compare);
  });
  action(plan, tr("C&lear pinned"), QKeySequence(), tr("Remove the pinned plans"), [this] { compare_->clear(); });
  plan->addSeparator();
  action(plan, tr("&Run planner"), QKeySequence(tr("Ctrl+R")), tr("Rank the layouts that fit for this model, cluster and GPU count"), [this] {
    showView(View::Planner);
    if (const QString problem = planner_->run(settings_->settings()); !problem.isEmpty()) fail(problem);
  });
  action(plan, tr("&Copy ccsim command"), QKeySequence(tr("Ctrl+Shift+C")), tr("The ccsim train command that prints this plan"),
         [this] { QApplication::clipboard()->setText(ccsimCommand()); });

  QMenu* help = menuBar()->addMenu(tr("&Help"));
  action(help, tr("&About ccplan"), QKeySequence(), tr("What ccplan is"), [this] {
    QMessageBox::about(this, tr("About ccplan"),
                       tr("<b>ccplan</b> — cclab's what-if planner. Every number comes from cclab's simulator (the same as "
                          "<code>ccsim train</code>) or from measured results files. See docs/ccplan.md."));
  });
}

void MainWindow::settingsChanged() {
  const sim::TrainingSettings s = settings_->settings();
  plan_->showPlan(s);
  timeline_->showPlan(s);
  sweep_->setBase(s);
  if (const QString problem = collectives_->setCluster(QString::fromStdString(s.cluster)); !problem.isEmpty()) fail(problem);
  statusBar()->showMessage(ccsimCommand());
}

QString MainWindow::ccsimCommand() const {
  const results::Json given = sim::toJson(settings_->settings());
  const results::Json defaults = sim::toJson(sim::TrainingSettings{});
  QString command = QStringLiteral("ccsim train");
  for (const auto& [key, value] : given.items()) {
    if (defaults.contains(key) && defaults[key] == value) continue;
    QString text = value.is_string() ? QString::fromStdString(value.get<std::string>()) : QString::fromStdString(results::dumpJson(value));
    if (text.contains(' ') || text.contains('+')) text = '\'' + text + '\'';
    command += QStringLiteral(" --%1 %2").arg(QString::fromStdString(key), text);
  }
  return command;
}

bool MainWindow::fail(const QString& problem) {
  message_->showError(problem);
  return false;
}

bool MainWindow::openResults(const QStringList& paths) {
  if (const QString problem = collectives_->openResults(paths); !problem.isEmpty()) return fail(problem);
  message_->showInfo(tr("Opened %1: its measurements are in the Collectives view.").arg(paths.join(", ")));
  showView(View::Collectives);
  return true;
}

template <class Load, class Add>
bool MainWindow::openDescription(const QString& path, Load load, Add add) {
  try {
    load(path.toStdString());  // read once: the lists offer only files the simulator reads
  } catch (const InputError& e) {
    return fail(QString::fromStdString(e.what()));
  }
  std::invoke(add, settings_, path);
  return true;
}

bool MainWindow::openModel(const QString& path) { return openDescription(path, sim::loadModel, &SettingsPanel::addModel); }

bool MainWindow::openCluster(const QString& path) {
  return openDescription(path, sim::loadCluster, [](SettingsPanel* panel, const QString& p) { panel->addCluster(p); });
}

bool MainWindow::openPlan(const QString& path) {
  sim::TrainingSettings s;
  try {
    s = sim::readPlanFile(path.toStdString());
    if (s.model.empty()) throw InputError(path.toStdString() + ": the plan names no model (ccplan plans a model card or config.json)");
    // Names and files must be valid before anything changes; a layout that does not divide is a
    // plan like any other (the plan view says why it cannot be priced).
    s.config(s.loadClusterShape());
    s.loadModelCard();
  } catch (const InputError& e) {
    return fail(QString::fromStdString(e.what()));
  }
  // Without a global batch ccsim train runs micro-batch x dp samples: the form shows the same
  // (its own default would price another step than `ccsim train --plan` of this file).
  if (!s.globalBatch) {
    try {
      s.globalBatch = sim::runTraining(s).estimate.config.globalBatch;
    } catch (const InputError&) {
      // A layout that does not resolve keeps the form's batch; the plan view says why.
    }
  }
  settings_->setSettings(s);
  message_->hide();
  return true;
}

bool MainWindow::openTrainingMeasurement(const QString& path, bool strict) {
  QStringList differ;
  try {
    const results::TrainingMeasurement record = results::readTraining(path.toStdString());
    if (record.settings.is_object()) {
      const results::Json plan = sim::toJson(settings_->settings());
      for (const char* key : {"model", "cluster", "gpus", "dp", "tp", "pp", "vpp", "zero", "fsdp", "micro-batch", "global-batch", "seq", "scale"}) {
        if (record.settings.contains(key) && plan.contains(key) && record.settings.at(key) != plan.at(key)) differ << key;
      }
    }
    if (strict && !differ.isEmpty()) {
      return fail(tr("%1: it ran other settings than the plan's (%2)").arg(path, differ.join(", ")));
    }
    plan_->setMeasured(measuredFigures(record));
    // With its settings (a ccbench train record) it also goes beside the compare view's pin of them.
    if (record.settings.is_object()) {
      sim::TrainingSettings settings;
      sim::applyJson(record.settings, settings, path.toStdString());
      compare_->addMeasured(settings, measuredFigures(record));
    }
  } catch (const InputError& e) {
    return fail(QString::fromStdString(e.what()));
  }
  if (differ.isEmpty()) {
    message_->showInfo(tr("Opened %1: the measured step is drawn beside the plan's (Plan view).").arg(path));
  } else {
    message_->showError(tr("Opened %1, which ran other settings than the plan's (%2): drawn beside it all the same (Plan view).")
                            .arg(path, differ.join(", ")));
  }
  showView(View::Plan);
  return true;
}

bool MainWindow::openMeasuredTrace(const QString& path) {
  try {
    timeline_->setMeasuredTrace(path);
    timeline_->showPlan(settings_->settings());
  } catch (const InputError& e) {
    return fail(QString::fromStdString(e.what()));
  }
  message_->showInfo(tr("Opened %1: the measured step is drawn under the predicted one (Timeline view).").arg(path));
  showView(View::Timeline);
  return true;
}

bool MainWindow::openFiles(const QStringList& paths) {
  QStringList results;
  for (const QString& path : paths) {
    if (isPlanFile(path)) {
      if (!openPlan(path)) return false;
    } else if (isMeasuredStepTrace(path)) {
      if (!openMeasuredTrace(path)) return false;
    } else if (isTrainingMeasurement(path)) {
      if (!openTrainingMeasurement(path)) return false;
    } else {
      results << path;
    }
  }
  return results.isEmpty() || openResults(results);
}

bool MainWindow::savePlan(const QString& path) {
  try {
    results::writeFileAtomically(path.toStdString(), results::dumpJson(sim::toJson(settings_->settings()), 2) + "\n");
  } catch (const InputError& e) {
    return fail(QString::fromStdString(e.what()));
  }
  statusBar()->showMessage(tr("Saved %1: re-run it with ccsim train --plan %1").arg(path), 10000);
  return true;
}

ChartPage* MainWindow::currentPage() const { return qobject_cast<ChartPage*>(tabs_->currentWidget()); }

bool MainWindow::exportPng(const QString& path) {
  QWidget* area = currentPage() ? currentPage()->exportArea() : tabs_->currentWidget();
  if (!savePng(area, path)) return fail(tr("%1: cannot write the PNG").arg(path));
  return true;
}

bool MainWindow::exportCsv(const QString& path) {
  QString text;
  if (ChartPage* page = currentPage()) {
    text = page->csv();
  } else {
    QTableWidget* table = planner_->table();
    QStringList header;
    for (int c = 0; c < table->columnCount(); ++c) header << table->horizontalHeaderItem(c)->text();
    text = header.join(',') + '\n';
    for (int r = 0; r < table->rowCount(); ++r) {
      QStringList cells;
      for (int c = 0; c < table->columnCount(); ++c) cells << table->item(r, c)->text();
      text += cells.join(',') + '\n';
    }
  }
  try {
    results::writeFileAtomically(path.toStdString(), text.toStdString());
  } catch (const InputError& e) {
    return fail(QString::fromStdString(e.what()));
  }
  return true;
}

void MainWindow::showView(View view) { tabs_->setCurrentIndex(static_cast<int>(view)); }

void MainWindow::closeEvent(QCloseEvent* event) {
  if (remember_) {
    QSettings stored;
    stored.setValue("window/geometry", saveGeometry());
    stored.setValue("window/state", saveState());
    stored.setValue("window/view", tabs_->currentIndex());
  }
  event->accept();
}

}  // namespace cclab::gui
