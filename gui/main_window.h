#pragma once

// ccplan's window: the settings form on the left (a dock), the views as tabs (Plan, Compare,
// Sweep, Collectives, Planner, Timeline), a message bar for what went wrong, and the File/View/Plan menus.
// Every action is also a method taking paths, so tests and --render drive it without dialogs.

#include <QMainWindow>
#include <QTabWidget>

#include "gui/collectives_view.h"
#include "gui/compare_view.h"
#include "gui/message_bar.h"
#include "gui/plan_view.h"
#include "gui/planner_view.h"
#include "gui/settings_panel.h"
#include "gui/sweep_view.h"
#include "gui/timeline_view.h"

namespace cclab::gui {

// A JSON object of settings (a plan file) rather than results: it names a model or cluster and
// no results schema.
bool isPlanFile(const QString& path);
// A measured training run: a Megatron-LM or DeepSpeed log, a PyTorch trace, a cclab training record.
bool isTrainingMeasurement(const QString& path);

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  // `remember`: restore and save the window layout (off in tests and --render).
  explicit MainWindow(bool remember = true, QWidget* parent = nullptr);

  // File actions; each returns false and shows the problem in the message bar, changing nothing.
  bool openResults(const QStringList& paths);
  // A measured training run (training_record.h's formats): its bars go beside the plan's.
  // A measured step to draw beside the plan. Where the record carries the settings it ran and
  // they differ from the plan's (model, cluster, layout, batch), `strict` refuses it (--render);
  // otherwise it is drawn with a warning that says which differ.
  bool openTrainingMeasurement(const QString& path, bool strict = false);
  // A measured step's trace (ccbench train --trace): drawn under the predicted step (Timeline view).
  bool openMeasuredTrace(const QString& path);
  bool openModel(const QString& path);
  bool openCluster(const QString& path);
  bool openPlan(const QString& path);
  // A plan file or results files, told apart by content (as the command line gives them).
  bool openFiles(const QStringList& paths);
  bool savePlan(const QString& path);
  bool exportPng(const QString& path);
  bool exportCsv(const QString& path);

  enum class View { Plan, Compare, Sweep, Collectives, Planner, Timeline };
  void showView(View view);
  View currentView() const { return static_cast<View>(tabs_->currentIndex()); }

  SettingsPanel* settingsPanel() const { return settings_; }
  PlanView* planView() const { return plan_; }
  CompareView* compareView() const { return compare_; }
  SweepView* sweepView() const { return sweep_; }
  CollectivesView* collectivesView() const { return collectives_; }
  PlannerView* plannerView() const { return planner_; }
  TimelineView* timelineView() const { return timeline_; }
  MessageBar* messageBar() const { return message_; }
  // The `ccsim train` command that prints the plan shown.
  QString ccsimCommand() const;

 protected:
  void closeEvent(QCloseEvent* event) override;

 private:
  void settingsChanged();
  void buildMenus();
  ChartPage* currentPage() const;
  bool fail(const QString& problem);
  template <class Load, class Add>
  bool openDescription(const QString& path, Load load, Add add);

  bool remember_;
  SettingsPanel* settings_;
  QTabWidget* tabs_;
  MessageBar* message_;
  PlanView* plan_;
  CompareView* compare_;
  SweepView* sweep_;
  CollectivesView* collectives_;
  PlannerView* planner_;
  TimelineView* timeline_;
};

}  // namespace cclab::gui
