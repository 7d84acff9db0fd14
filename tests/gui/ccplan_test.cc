// ccplan driven as a user drives it (offscreen): choose a model, change the ZeRO stage, switch
// views, open files — and checked on what the charts hold, against ccsim and closed forms.

#include <cmath>
#include <set>

#include <QBarSet>
#include <QDir>
#include <QImage>
#include <QLineSeries>
#include <QProcess>
#include <QSettings>
#include <QAbstractBarSeries>
#include <QStandardPaths>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include "gui/chart_builders.h"
#include "gui/main_window.h"
#include "results/json_reader.h"
#include "sim/training/model_card.h"

using namespace cclab;
using namespace cclab::gui;

namespace {

const QString kSource = CCLAB_SOURCE_DIR;

// The bar set labelled `label` in a chart's stacked bars (nullptr when the chart has none).
QBarSet* barSet(QChartView* view, const QString& label) {
  for (QAbstractSeries* s : view->chart()->series()) {
    if (auto* bars = qobject_cast<QAbstractBarSeries*>(s)) {
      for (QBarSet* set : bars->barSets()) {
        if (set->label() == label) return set;
      }
    }
  }
  return nullptr;
}

QXYSeries* xySeries(QChartView* view, const QString& name) { return qobject_cast<QXYSeries*>(findSeries(view->chart(), name)); }

// ccsim's output for the same settings, through a plan file: what the GUI must agree with.
QJsonObject ccsimJson(const QString& planFile) {
  QProcess ccsim;
  ccsim.start(CCSIM, {"train", "--plan", planFile, "--json"});
  if (!ccsim.waitForFinished(60000) || ccsim.exitCode() != 0) {
    qWarning() << ccsim.readAllStandardError();
    return {};
  }
  return QJsonDocument::fromJson(ccsim.readAllStandardOutput()).object();
}

void selectData(QComboBox* box, const QString& data) {
  const int index = box->findData(data);
  QVERIFY2(index >= 0, qPrintable(data));
  box->setCurrentIndex(index);
}

// Colours in an image other than the background: a chart with drawn series has many.
int distinctColors(const QImage& image) {
  std::set<QRgb> colors;
  for (int y = 0; y < image.height(); y += 2) {
    for (int x = 0; x < image.width(); x += 2) colors.insert(image.pixel(x, y));
  }
  return static_cast<int>(colors.size());
}

constexpr double kLlama2_7bParams = 6738415616;  // exact, as models/cards/llama2-7b.json gives it

}  // namespace

class CcplanTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

  // The first plan: LLaMA-2 7B, ZeRO-1, 64 A100s. Every number in the plan view equals ccsim's.
  void planViewEqualsCcsimTrainJson() {
    MainWindow w(false);
    SettingsPanel* p = w.settingsPanel();
    selectData(p->model(), "llama2-7b");
    selectData(p->cluster(), "dgx-a100");
    p->gpus()->setValue(64);
    p->globalBatch()->setValue(512);
    selectData(p->sharding(), "zero:2");
    const auto& f = w.planView()->figures();
    QVERIFY(f.has_value());
    QTemporaryDir dir;
    const QString plan = dir.filePath("plan.json");
    QVERIFY(w.savePlan(plan));
    const QJsonObject j = ccsimJson(plan);
    QVERIFY(!j.isEmpty());
    const QJsonObject memory = j["memory_per_gpu_bytes"].toObject();
    for (const Segment& s : f->memoryGiB) QCOMPARE(s.value * kGiB, memory[s.key].toDouble());
    const QJsonObject step = j["step_time_s"].toObject();
    for (const Segment& s : f->stepSeconds) QCOMPARE(s.value, step[s.key].toDouble());
    QCOMPARE(f->tokensPerSecond, j["tokens_per_s"].toDouble());
    QCOMPARE(f->mfu, j["mfu"].toDouble());
    QCOMPARE(f->costUsd, j["cost_usd"].toDouble());
    QCOMPARE(f->fits, j["fits"].toBool());
    QCOMPARE(j["layout"].toObject()["sharding"].toString(), QString("zero2"));
    // And the bars hold those values.
    QBarSet* optimizer = barSet(w.planView()->chartViews()[0], "optimizer");
    QVERIFY(optimizer);
    QCOMPARE(optimizer->at(0) * kGiB, memory["optimizer_states"].toDouble());
    QBarSet* compute = barSet(w.planView()->chartViews()[1], "compute");
    QVERIFY(compute);
    QCOMPARE(compute->at(0), step["compute"].toDouble());
    // The status bar says the equivalent command.
    QVERIFY(w.ccsimCommand().contains("--model llama2-7b"));
    QVERIFY(w.ccsimCommand().contains("--zero 2"));
    // A plan file without a global batch: the window prices what ccsim train --plan does (micro-batch
    // x dp samples), not the form's own default.
    const QString bare = dir.filePath("bare.json");
    QFile out(bare);
    QVERIFY(out.open(QIODevice::WriteOnly));
    out.write(R"({"model": "gpt2", "cluster": "dgx-a100", "gpus": 8, "seq": 512})");
    out.close();
    QVERIFY(w.openPlan(bare));
    QCOMPARE(p->globalBatch()->value(), 8);
    const QJsonObject fromFile = ccsimJson(bare);
    QVERIFY(!fromFile.isEmpty());
    QCOMPARE(w.planView()->figures()->stepTotalSeconds, fromFile["step_time_s"].toObject()["total"].toDouble());
    // The optimizer offloaded with pinned host buffers: the plan file says so and ccsim agrees.
    selectData(p->sharding(), "zero:2");
    selectData(p->offload(), "optimizer");
    p->pinMemory()->setChecked(true);
    QCOMPARE(p->settings().pinMemory, std::string("on"));
    const QString pinned = dir.filePath("pinned.json");
    QVERIFY(w.savePlan(pinned));
    const QJsonObject fromPinned = ccsimJson(pinned);
    QVERIFY(fromPinned["layout"].toObject()["pin_memory"].toBool());
    QCOMPARE(w.planView()->figures()->stepTotalSeconds, fromPinned["step_time_s"].toObject()["total"].toDouble());
    selectData(p->offload(), "none");  // nothing offloaded: nothing pinned, whatever the box says
    QCOMPARE(p->settings().pinMemory, std::string());
    // The optimizer on NVMe under ZeRO-3 with its swapper pipelined: the same round trip.
    selectData(p->sharding(), "zero:3");
    selectData(p->offload(), "optimizer");
    selectData(p->offloadDevice(), "nvme");
    p->swapPipeline()->setChecked(true);
    QCOMPARE(p->settings().swapPipeline, std::string("on"));
    QCOMPARE(p->settings().pinMemory, std::string());  // pinned buffers are host memory's
    const QString pipelined = dir.filePath("pipelined.json");
    QVERIFY(w.savePlan(pipelined));
    const QJsonObject fromPipelined = ccsimJson(pipelined);
    QVERIFY(fromPipelined["layout"].toObject()["pipeline_read"].toBool());
    QVERIFY(fromPipelined["layout"].toObject()["pipeline_write"].toBool());
    QCOMPARE(w.planView()->figures()->stepTotalSeconds, fromPipelined["step_time_s"].toObject()["total"].toDouble());
    selectData(p->offloadDevice(), "cpu");
    QCOMPARE(p->settings().swapPipeline, std::string());
    selectData(p->offload(), "none");
    selectData(p->sharding(), "zero:2");
    // Memory-centric tiling under DeepSpeed's ZeRO-3: the plan file carries it and ccsim agrees.
    selectData(p->sharding(), "zero:3");
    p->tiles()->setValue(4);
    QCOMPARE(p->settings().tiles, std::optional<int>(4));
    const QString tiled = dir.filePath("tiled.json");
    QVERIFY(w.savePlan(tiled));
    const QJsonObject fromTiled = ccsimJson(tiled);
    QCOMPARE(fromTiled["layout"].toObject()["tiles"].toInt(), 4);
    QCOMPARE(w.planView()->figures()->stepTotalSeconds, fromTiled["step_time_s"].toObject()["total"].toDouble());
    selectData(p->sharding(), "fsdp:full_shard");  // FSDP gathers a layer whole: no tiles, whatever the box says
    QVERIFY(!p->settings().tiles.has_value());
  }

  // ZeRO stages change the memory bars by the ZeRO paper's rules (mixed precision Adam, K = 12),
  // and the capacity line turns red when the plan does not fit.
  void zeroStageChangesMemoryAndFit() {
    MainWindow w(false);
    SettingsPanel* p = w.settingsPanel();
    selectData(p->model(), "llama2-7b");
    p->gpus()->setValue(64);
    const double dp = 64, phi = kLlama2_7bParams;
    struct Expect {
      const char* sharding;
      double parameters, gradients, optimizer;
    } expected[] = {{"zero:0", 2 * phi, 2 * phi, 12 * phi},
                    {"zero:1", 2 * phi, 2 * phi, 12 * phi / dp},
                    {"zero:2", 2 * phi, 2 * phi / dp, 12 * phi / dp},
                    {"zero:3", 2 * phi / dp, 2 * phi / dp, 12 * phi / dp}};
    for (const Expect& e : expected) {
      selectData(p->sharding(), e.sharding);
      QChartView* memory = w.planView()->chartViews()[0];
      QVERIFY(barSet(memory, "parameters"));
      QCOMPARE(barSet(memory, "parameters")->at(0) * kGiB, e.parameters);
      QCOMPARE(barSet(memory, "gradients")->at(0) * kGiB, e.gradients);
      QCOMPARE(barSet(memory, "optimizer")->at(0) * kGiB, e.optimizer);
    }
    // DDP: 16 bytes per parameter = 100 GiB of states alone on an 80 GiB A100.
    selectData(p->sharding(), "zero:0");
    QVERIFY(!w.planView()->figures()->fits);
    auto* line = qobject_cast<QLineSeries*>(findSeries(w.planView()->chartViews()[0]->chart(), "GPU memory (80 GiB)"));
    QVERIFY(line);
    QCOMPARE(line->pen().color(), QColor(Qt::red));
    QVERIFY(w.planView()->chartViews()[0]->chart()->title().contains("does not fit"));
    selectData(p->sharding(), "zero:3");
    QVERIFY(w.planView()->figures()->fits);
    line = qobject_cast<QLineSeries*>(findSeries(w.planView()->chartViews()[0]->chart(), "GPU memory (80 GiB)"));
    QVERIFY(line->pen().color() != QColor(Qt::red));
  }

  // The seed documents' comparison: DDP vs ZeRO-1/2/3 side by side.
  void compareDdpAndZeroStages() {
    MainWindow w(false);
    selectData(w.settingsPanel()->model(), "llama2-7b");
    w.settingsPanel()->gpus()->setValue(64);
    CompareView* c = w.compareView();
    QVERIFY(c->pinShardingStages(w.settingsPanel()->settings()).isEmpty());
    QCOMPARE(c->pinned(), 4);
    QBarSet* optimizer = barSet(c->chartViews()[0], "optimizer");
    QVERIFY(optimizer);
    QCOMPARE(optimizer->count(), 4);
    QCOMPARE(optimizer->at(0) * kGiB, 12 * kLlama2_7bParams);
    QCOMPARE(optimizer->at(3) * kGiB, 12 * kLlama2_7bParams / 64);
    for (int i = 1; i < 4; ++i) QVERIFY(c->figures(i).memoryTotalGiB < c->figures(i - 1).memoryTotalGiB);
    QCOMPARE(c->table()->item(4, 0)->text(), QString("no"));   // DDP does not fit
    QCOMPARE(c->table()->item(4, 3)->text(), QString("yes"));  // ZeRO-3 does
    // A fifth pin is refused with a reason; clearing empties the charts.
    QVERIFY(c->pin(w.settingsPanel()->settings()).contains("pinned already"));
    c->clear();
    QCOMPARE(c->pinned(), 0);
  }

  // Sweeping the global batch with 4 pipeline stages: the bubble falls with the micro-batches. It
  // is the simulated step's (the stage that ends last waiting), never below the schedule's fill
  // and drain, (p-1)/(m+p-1), and above it here: the last stage also runs the logits.
  void sweepShowsTheBubbleFalling() {
    MainWindow w(false);
    SettingsPanel* p = w.settingsPanel();
    selectData(p->model(), "llama2-7b");
    p->gpus()->setValue(64);
    p->pp()->setValue(4);
    w.showView(MainWindow::View::Sweep);
    SweepView* s = w.sweepView();
    s->setAxis("global-batch");
    QVERIFY(s->setValues("64,128,256,512,1024").isEmpty());
    QCOMPARE(int(s->points().size()), 5);
    QXYSeries* bubble = xySeries(s->chartViews()[0], "pipeline bubble (% of step)");
    QVERIFY(bubble);
    QCOMPARE(bubble->count(), 5);
    const double stages = 4, dp = 16;
    for (int i = 0; i < 5; ++i) {
      const double m = s->points()[i].x / dp;  // micro-batches of 1 per pipeline per step
      const double schedule = 100 * (stages - 1) / (m + stages - 1);
      QVERIFY2(bubble->at(i).y() > schedule && bubble->at(i).y() < 2 * schedule + 5,
               qPrintable(QString("%1 against the schedule's %2").arg(bubble->at(i).y()).arg(schedule)));
      if (i > 0) QVERIFY(bubble->at(i).y() < bubble->at(i - 1).y());
    }
    // Values that are not whole numbers are refused with a reason, and the sweep stays.
    QVERIFY(!s->setValues("64,abc").isEmpty());
    QCOMPARE(int(s->points().size()), 5);
    // A GPU-count sweep adds scaling efficiency, 100% at the first point.
    s->setAxis("gpus");
    QXYSeries* scaling = xySeries(s->chartViews()[0], "scaling efficiency (%)");
    QVERIFY(scaling);
    QCOMPARE(scaling->at(0).y(), 100.0);
  }

  // Measured CPU results over the simulator's predictions; calibrating improves the error.
  void collectivesViewLaysMeasurementsOverPredictions() {
    MainWindow w(false);
    selectData(w.settingsPanel()->cluster(), "cpu-2core-amd-epyc");
    CollectivesView* c = w.collectivesView();
    QVERIFY(w.openResults({kSource + "/results/measured/cpu-2core-amd-epyc/sweep_np2.json", kSource + "/results/measured/cpu-2core-amd-epyc/sweep_np4.json"}));
    QCOMPARE(w.currentView(), MainWindow::View::Collectives);
    c->setCollective(Collective::AllReduce);
    QVERIFY2(c->measuredRows() > 20, qPrintable(c->summary()));
    qInfo() << c->summary();
    QVERIFY(xySeries(c->chartViews()[0], "sweep_np2 (mpi native, 2 ranks)"));
    QVERIFY(xySeries(c->chartViews()[0], "predicted ring (2 ranks)") || xySeries(c->chartViews()[0], "predicted ring (4 ranks)"));
    const double before = c->medianAbsErrorPct().value();
    QVERIFY(c->calibrate().isEmpty());
    QVERIFY(c->calibrated());
    const double after = c->medianAbsErrorPct().value();
    QVERIFY2(after < before, qPrintable(QString("median |error| %1% -> %2%").arg(before).arg(after)));
    // A measured point's bandwidth is the file's (mean over repeats): check one against the file.
    QXYSeries* measured = xySeries(c->chartViews()[0], "sweep_np2 (mpi native, 2 ranks)");
    QVERIFY(measured->count() > 5);
    // Beside each measured series, its rows' predictions (ccsim validate's), one per size.
    QXYSeries* predictedForIt = xySeries(c->chartViews()[0], "predicted: sweep_np2 (mpi native, 2 ranks)");
    QVERIFY(predictedForIt);
    QCOMPARE(predictedForIt->count(), measured->count());
    QCOMPARE(predictedForIt->at(0).x(), measured->at(0).x());
    QVERIFY(c->csv().contains("size_bytes"));
    // nccl-tests logs open the same way: a one-GPU H100 log (busbw is 0 with one rank, so algbw).
    selectData(w.settingsPanel()->cluster(), "dgx-h100");
    QVERIFY(w.openResults({kSource + "/tests/data/nccl-tests-h100/all_reduce.txt"}));
    c->setBusBandwidth(false);
    QXYSeries* nccl = xySeries(c->chartViews()[0], "all_reduce");
    QVERIFY2(nccl, qPrintable(c->summary()));
    // The log's 15 sizes, out of place, less 8 B and 32 B whose algbw prints as 0.00 (a log axis
    // has no zero); x is log2(size).
    QCOMPARE(nccl->count(), 13);
    QCOMPARE(nccl->at(0), QPointF(7, 0.02));
    int predicted = 0;
    for (QAbstractSeries* s : c->chartViews()[0]->chart()->series()) predicted += s->name().startsWith("predicted");
    QVERIFY(predicted >= 2);
  }

  // Clicking a planner row loads that layout into the plan view.
  void plannerRowLoadsIntoPlanView() {
    MainWindow w(false);
    selectData(w.settingsPanel()->model(), "llama2-7b");
    w.settingsPanel()->gpus()->setValue(64);
    PlannerView* planner = w.plannerView();
    QVERIFY(planner->run(w.settingsPanel()->settings()).isEmpty());
    QVERIFY(planner->plans() > 1);
    const QString tp = planner->table()->item(1, 1)->text();
    const QString step = planner->table()->item(1, 8)->text();
    QCOMPARE(planner->table()->item(1, 7)->text(), QString("-"));  // everything on the GPUs
    emit planner->table()->cellClicked(1, 0);
    QCOMPARE(w.currentView(), MainWindow::View::Plan);
    QCOMPARE(w.settingsPanel()->tp()->value(), tp.toInt());
    QCOMPARE(QString::number(w.planView()->figures()->stepTotalSeconds, 'g', 4), step);
    // LLaMA-3 405B on one DGX A100 fits only offloaded to NVMe: the row says so, and loading it
    // sets the offload in the form, which prices the same step.
    selectData(w.settingsPanel()->model(), "llama3-405b");
    w.settingsPanel()->gpus()->setValue(8);
    w.settingsPanel()->globalBatch()->setValue(8);
    sim::TrainingSettings huge = w.settingsPanel()->settings();
    huge.seq = 8192;
    QVERIFY(planner->run(huge).isEmpty());
    QVERIFY(planner->plans() > 0);
    QVERIFY(planner->table()->item(0, 7)->text().startsWith("optimizer+params:nvme"));
    const QString offloadedStep = planner->table()->item(0, 8)->text();
    emit planner->table()->cellClicked(0, 0);
    QCOMPARE(w.settingsPanel()->settings().offload, std::string("optimizer+params"));
    QCOMPARE(w.settingsPanel()->settings().offloadDevice, std::string("nvme"));
    QCOMPARE(w.settingsPanel()->settings().swapPipeline, std::string("on"));  // its swapper pipelined
    QCOMPARE(QString::number(w.planView()->figures()->stepTotalSeconds, 'g', 4), offloadedStep);
    // LLaMA-2 70B on the same node: the optimizer in host memory, its buffers pinned; loading the
    // row ticks "pinned host buffers".
    selectData(w.settingsPanel()->model(), "llama2-70b");
    sim::TrainingSettings seventy = w.settingsPanel()->settings();
    seventy.seq = 4096;
    seventy.globalBatch = 64;
    seventy.offload = "none";  // the row loaded above set them: the planner would keep them
    seventy.offloadDevice = "cpu";
    seventy.swapPipeline.clear();
    seventy.cpuCheckpointing.clear();
    seventy.tiles.reset();
    const QString problem = planner->run(seventy);
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
    QVERIFY(planner->plans() > 0);
    QVERIFY2(planner->table()->item(0, 7)->text().endsWith(":cpu pinned"), qPrintable(planner->table()->item(0, 7)->text()));
    const QString pinnedStep = planner->table()->item(0, 8)->text();
    emit planner->table()->cellClicked(0, 0);
    QCOMPARE(w.settingsPanel()->settings().offloadDevice, std::string("cpu"));
    QCOMPARE(w.settingsPanel()->settings().pinMemory, std::string("on"));
    QCOMPARE(QString::number(w.planView()->figures()->stepTotalSeconds, 'g', 4), pinnedStep);
  }

  // Malformed and foreign files: a message in the window, nothing else changes.
  void badFilesChangeNothing() {
    MainWindow w(false);
    QTemporaryDir dir;
    auto write = [&](const QString& name, const QByteArray& text) {
      QFile f(dir.filePath(name));
      f.open(QIODevice::WriteOnly);
      f.write(text);
      return dir.filePath(name);
    };
    const QString broken = write("broken.json", "{\"rows\": [1, 2");
    const QString foreign = kSource + "/CMakeLists.txt";
    const QString unknownKey = write("plan.json", "{\"model\": \"llama2-7b\", \"cluster\": \"dgx-a100\", \"tensor\": 8}");
    const QString badValue = write("plan2.json", "{\"model\": \"llama2-7b\", \"cluster\": \"dgx-a100\", \"recompute\": \"some\"}");
    const QString command = w.ccsimCommand();
    struct Case {
      std::function<bool()> open;
      const char* says;
    } cases[] = {{[&] { return w.openResults({broken}); }, "broken.json"},
                 {[&] { return w.openResults({foreign}); }, "CMakeLists.txt"},
                 {[&] { return w.openModel(broken); }, "broken.json"},
                 {[&] { return w.openModel(foreign); }, "CMakeLists.txt"},
                 {[&] { return w.openCluster(broken); }, "broken.json"},
                 {[&] { return w.openPlan(unknownKey); }, "unknown setting 'tensor'"},
                 {[&] { return w.openPlan(badValue); }, "some"},
                 {[&] { return w.openPlan(dir.filePath("missing.json")); }, "missing.json"}};
    for (const Case& c : cases) {
      QVERIFY(!c.open());
      QVERIFY(w.messageBar()->isVisibleTo(&w));
      QVERIFY(w.messageBar()->isError());
      QVERIFY2(w.messageBar()->text().contains(c.says), qPrintable(w.messageBar()->text()));
      QCOMPARE(w.ccsimCommand(), command);
      QCOMPARE(w.collectivesView()->measuredRows(), 0);
    }
  }

  // Settings the simulator rejects are shown in the view; none of them crash it.
  void impossibleSettingsAreExplained() {
    MainWindow w(false);
    SettingsPanel* p = w.settingsPanel();
    p->gpus()->setValue(64);
    p->tp()->setValue(3);
    QVERIFY(!w.planView()->figures());
    QVERIFY(w.planView()->problem().contains("3"));
    p->tp()->setValue(1);
    QVERIFY(w.planView()->figures());
    p->gpus()->setValue(12);  // not whole 8-GPU nodes
    QVERIFY(w.planView()->problem().contains("12"));
    p->gpus()->setValue(8);
    selectData(p->offload(), "optimizer+params");  // needs ZeRO-3
    QVERIFY(w.planView()->problem().contains("ZeRO-3"));
    selectData(p->sharding(), "zero:3");
    QVERIFY(w.planView()->figures());
    QVERIFY(w.planView()->problem().isEmpty());
  }

  // Every view exports a PNG with its series drawn and a CSV of its data.
  void exportsEveryView() {
    MainWindow w(false);
    w.resize(1280, 800);
    w.show();
    selectData(w.settingsPanel()->model(), "llama2-7b");
    w.compareView()->pinShardingStages(w.settingsPanel()->settings());
    QVERIFY(w.openResults({kSource + "/results/measured/cpu-2core-amd-epyc/sweep_np2.json"}));
    QTemporaryDir dir;
    const MainWindow::View views[] = {MainWindow::View::Plan, MainWindow::View::Compare, MainWindow::View::Sweep,
                                      MainWindow::View::Collectives};
    for (MainWindow::View v : views) {
      w.showView(v);
      QCoreApplication::processEvents();
      const QString png = dir.filePath(QString("view%1.png").arg(int(v)));
      const QString csv = dir.filePath(QString("view%1.csv").arg(int(v)));
      QVERIFY(w.exportPng(png));
      QVERIFY(w.exportCsv(csv));
      const QImage image(png);
      QVERIFY2(image.width() >= 400 && image.height() >= 250, qPrintable(QString("%1x%2").arg(image.width()).arg(image.height())));
      QVERIFY2(distinctColors(image) > 20, qPrintable(png));
      QFile text(csv);
      QVERIFY(text.open(QIODevice::ReadOnly));
      QVERIFY(text.readAll().count('\n') > 4);
    }
    QFile plan(dir.filePath("view0.csv"));
    plan.open(QIODevice::ReadOnly);
    QVERIFY(plan.readAll().contains("optimizer"));
  }

  // The window fits 1280x800 and comes back as it was left.
  void windowLayoutIsRemembered() {
    {
      MainWindow w(true);
      QVERIFY2(w.minimumSizeHint().width() <= 1280 && w.minimumSizeHint().height() <= 800,
               qPrintable(QString("%1x%2").arg(w.minimumSizeHint().width()).arg(w.minimumSizeHint().height())));
      w.resize(1240, 700);
      w.show();
      w.showView(MainWindow::View::Sweep);
      w.close();
    }
    MainWindow again(true);
    QCOMPARE(again.currentView(), MainWindow::View::Sweep);
    QCOMPARE(again.size(), QSize(1240, 700));
    QSettings().clear();
  }

  // ccplan --render draws without a display; bad input is one line and exit 2.
  void renderHeadless() {
    QTemporaryDir dir;
    QFile plan(dir.filePath("plan.json"));
    plan.open(QIODevice::WriteOnly);
    plan.write(R"({"model": "gpt3-175b", "cluster": "dgx-a100", "gpus": 1024, "tp": 8, "pp": 16, "zero": 1, "global-batch": 1536})");
    plan.close();
    auto run = [](const QStringList& args, QString* err = nullptr) {
      QProcess p;
      p.start(CCPLAN, args);
      p.waitForFinished(120000);
      if (err) *err = p.readAllStandardError();
      return p.exitCode();
    };
    const QString out = dir.filePath("plan.png");
    QCOMPARE(run({"--render", plan.fileName(), "-o", out}), 0);
    QImage image(out);
    QCOMPARE(image.size(), QSize(1280, 800));
    QVERIFY(distinctColors(image) > 20);
    const QString results = dir.filePath("results.png");
    QCOMPARE(run({"--render", kSource + "/results/measured/cpu-2core-amd-epyc/sweep_np2.json", kSource + "/results/measured/cpu-2core-amd-epyc/sweep_np3.json",
                  "--collective", "all_gather", "--size", "900x500", "-o", results}),
             0);
    QCOMPARE(QImage(results).size(), QSize(900, 500));
    QString err;
    QCOMPARE(run({"--render", kSource + "/CMakeLists.txt", "-o", dir.filePath("x.png")}, &err), 2);
    QCOMPARE(err.count('\n'), 1);
    QVERIFY(!QFile::exists(dir.filePath("x.png")));
    QCOMPARE(run({"--render", plan.fileName(), "--view", "sideways", "-o", dir.filePath("x.png")}, &err), 2);
    QVERIFY(err.contains("sideways"));
    QCOMPARE(run({"--render", plan.fileName()}, &err), 2);
    QVERIFY(err.contains("-o"));
    const QString timeline = dir.filePath("timeline.png");
    QCOMPARE(run({"--render", plan.fileName(), "--view", "timeline", "--size", "1000x400", "-o", timeline}), 0);
    QCOMPARE(QImage(timeline).size(), QSize(1000, 400));
    QVERIFY(distinctColors(QImage(timeline)) > 5);
    // A collective the files do not hold is said, not drawn as an empty chart.
    QCOMPARE(run({"--render", kSource + "/tests/data/nccl-tests-h100/all_reduce_perf.json", "--collective", "broadcast", "-o",
                  dir.filePath("x.png")}, &err), 2);
    QVERIFY2(err.contains("--collective broadcast: the files have no broadcast rows"), qPrintable(err));
    // A measured run of other settings is no measurement of the plan: refused, naming them.
    QFile record(dir.filePath("other.json"));
    record.open(QIODevice::WriteOnly);
    record.write(R"({"schema": "cclab.training", "version": 1, "format": "cclab", "ranks": 2, "steps": [{"index": 1, "seconds": 0.2}],
      "settings": {"model": "gpt2", "cluster": "cpu-2core-amd-epyc", "gpus": 2, "global-batch": 1536}})");
    record.close();
    QCOMPARE(run({"--render", plan.fileName(), record.fileName(), "-o", dir.filePath("x.png")}, &err), 2);
    QVERIFY2(err.contains("it ran other settings than the plan's (model, cluster, gpus)"), qPrintable(err));
    QCOMPARE(err.count('\n'), 1);
  }

  // A measured training run opens beside the plan: a second bar of the step (its median after a
  // warm-up step) and of memory (its peak allocated).
  void measuredRunBesideThePlan() {
    MainWindow w(false);
    SettingsPanel* p = w.settingsPanel();
    selectData(p->model(), "gpt2-large");
    p->gpus()->setValue(8);
    p->globalBatch()->setValue(16);
    QVERIFY(isTrainingMeasurement(kSource + "/tests/data/training/measured/megatron.log"));
    QVERIFY(!isTrainingMeasurement(kSource + "/CMakeLists.txt"));
    QVERIFY(w.openFiles({kSource + "/tests/data/training/measured/megatron.log"}));
    QCOMPARE(w.currentView(), MainWindow::View::Plan);
    QChartView* step = w.planView()->chartViews()[1];
    QVERIFY(step->chart()->title().contains("measured 1.086 s"));
    QBarSet* measured = barSet(step, "measured step");
    QVERIFY(measured);
    QCOMPARE(measured->count(), 2);  // predicted, measured
    QCOMPARE(measured->at(1), (1.0804 + 1.092) / 2);
    QBarSet* peak = barSet(w.planView()->chartViews()[0], "measured peak allocated");
    QVERIFY(peak);
    QCOMPARE(peak->at(1), 5120.0 / 1024);
    // A trace brings its parts: compute and exposed communication, the rest of the step.
    QVERIFY(w.openFiles({kSource + "/tests/data/training/measured/pytorch_trace.json"}));
    step = w.planView()->chartViews()[1];
    QVERIFY(barSet(step, "exposed comm"));
    QCOMPARE(barSet(step, "exposed comm")->at(1), 200e-6);  // (300 + 100) / 2 us
    // ccbench train's record has the step's own parts: drawn part by part, as the prediction is.
    QTemporaryDir dir;
    const QString record = dir.filePath("step.json");
    QFile out(record);
    QVERIFY(out.open(QIODevice::WriteOnly));
    out.write(R"({"schema": "cclab.training", "version": 1, "format": "cclab", "ranks": 8,
      "steps": [{"index": 1, "seconds": 0.3}, {"index": 2, "seconds": 0.2}, {"index": 3, "seconds": 0.2}],
      "step_parts_s": {"compute": 0.12, "dp_comm": 0.03, "pipeline_bubble": 0.01, "optimizer": 0.005, "exposed_comm": 0.03}})");
    out.close();
    QVERIFY(w.openFiles({record}));
    step = w.planView()->chartViews()[1];
    QVERIFY(barSet(step, "DP comm"));
    QCOMPARE(barSet(step, "DP comm")->at(1), 0.03);
    QCOMPARE(barSet(step, "bubble")->at(1), 0.01);
    QCOMPARE(barSet(step, "compute")->at(1), 0.12);
    QVERIFY(!barSet(step, "exposed comm"));
    // Parts that add up past the median step (means over a run with one slow step) are drawn at
    // their shares of the bar, none cut off.
    QFile slow(dir.filePath("slow.json"));
    QVERIFY(slow.open(QIODevice::WriteOnly));
    slow.write(R"({"schema": "cclab.training", "version": 1, "format": "cclab", "ranks": 8,
      "steps": [{"index": 1, "seconds": 0.2}, {"index": 2, "seconds": 0.2}, {"index": 3, "seconds": 0.2}, {"index": 4, "seconds": 1.0}],
      "step_parts_s": {"compute": 0.3, "dp_comm": 0.1}})");
    slow.close();
    QVERIFY(w.openFiles({slow.fileName()}));
    step = w.planView()->chartViews()[1];
    QVERIFY(barSet(step, "compute") && barSet(step, "DP comm"));
    QCOMPARE(barSet(step, "compute")->at(1), 0.15);
    QCOMPARE(barSet(step, "DP comm")->at(1), 0.05);
    QVERIFY(!barSet(step, "rest of the step"));  // nothing of the step is left over

    // A record that carries its settings also goes beside the compare view's pin of them: here a
    // ZeRO-3 run of the current plan, drawn after DDP vs ZeRO-1/2/3's fourth bar and no other.
    sim::TrainingSettings zero3 = p->settings();
    zero3.fsdp.clear();
    zero3.zero = 3;
    results::Json withSettings = results::parseJson(R"({"schema": "cclab.training", "version": 1, "format": "cclab",
      "steps": [{"index": 1, "seconds": 0.5}, {"index": 2, "seconds": 0.4}, {"index": 3, "seconds": 0.4}],
      "step_parts_s": {"compute": 0.3, "shard_comm": 0.05}})", "record");
    withSettings["settings"] = sim::toJson(zero3);
    const QString zero3Record = dir.filePath("zero3.json");
    results::writeFileAtomically(zero3Record.toStdString(), results::dumpJson(withSettings));
    QVERIFY(w.openFiles({zero3Record}));
    QVERIFY(w.compareView()->pinShardingStages(p->settings()).isEmpty());
    QVERIFY(w.compareView()->measuredFor(3));
    QCOMPARE(w.compareView()->measuredFor(3)->stepTotalSeconds, 0.4);
    for (int stage = 0; stage < 3; ++stage) QVERIFY(!w.compareView()->measuredFor(stage));
    QBarSet* shard = barSet(w.compareView()->chartViews()[1], "ZeRO-3/FSDP comm");
    QVERIFY(shard);
    QCOMPARE(shard->count(), 5);  // four pins, then the measured run after the fourth
    QCOMPARE(shard->at(4), 0.05);
  }

  // The timeline view draws ccsim train's simulated step: the same step time, a lane per busy
  // stream of each stage, every task in the CSV, the critical path marked.
  void timelineViewDrawsTheSimulatedStep() {
    MainWindow w(false);
    SettingsPanel* p = w.settingsPanel();
    selectData(p->model(), "llama2-7b");
    selectData(p->cluster(), "dgx-a100");
    p->gpus()->setValue(64);
    p->globalBatch()->setValue(512);
    selectData(p->sharding(), "zero:3");
    w.showView(MainWindow::View::Timeline);
    const TimelineView* view = w.timelineView();
    QVERIFY2(view->problem().isEmpty(), qPrintable(view->problem()));
    const sim::TrainingRun run = sim::runTraining(p->settings());
    QCOMPARE(view->canvas()->timeline().makespan, run.estimate.step.total);
    QCOMPARE(view->canvas()->graph().tasks.size(), run.graph.tasks.size());
    // One stage: compute, gathers and reductions (ZeRO-3 uses both data-parallel streams).
    QCOMPARE(static_cast<int>(view->canvas()->lanes().size()), 3);
    QVERIFY(view->summaryText().contains("hidden behind compute"));
    const QStringList lines = view->csv().trimmed().split('\n');
    QCOMPARE(lines.size() - 1, static_cast<int>(run.graph.tasks.size()));
    QCOMPARE(lines.filter(",yes").size(), static_cast<int>(run.timeline.criticalPath.size()));
    // A measured step of the same settings (ccbench train --trace's form; here every task 10%
    // longer) draws under the predicted one: every task matched, the axis spans the longer step.
    results::Json events = results::Json::array();
    for (std::size_t i = 0; i < run.graph.tasks.size(); ++i) {
      const sim::Task& task = run.graph.tasks[i];
      const sim::TimedTask& t = run.timeline.tasks[i];
      events.push_back({{"name", task.label}, {"ph", "X"}, {"ts", 1.1e6 * t.start}, {"dur", 1.1e6 * (t.end - t.start)}, {"pid", task.stage},
                        {"tid", static_cast<int>(task.stream)}, {"args", results::Json::object()}});
    }
    QTemporaryDir dir;
    const QString trace = dir.filePath("measured_trace.json");
    results::writeFileAtomically(trace.toStdString(),
                                 results::dumpJson({{"traceEvents", events}, {"otherData", {{"tool", "ccbench train"}}}}));
    QVERIFY(isMeasuredStepTrace(trace));
    QVERIFY(!isMeasuredStepTrace(kSource + "/tests/data/training/measured/pytorch_trace.json"));
    QVERIFY(w.openFiles({trace}));
    QCOMPARE(w.currentView(), MainWindow::View::Timeline);
    QCOMPARE(w.timelineView()->canvas()->measured().size(), run.graph.tasks.size());
    QVERIFY(qAbs(w.timelineView()->canvas()->measuredMakespan() - 1.1 * run.estimate.step.total) < 1e-9 * run.estimate.step.total + 1e-12);
    QVERIFY(w.timelineView()->summaryText().contains(QStringLiteral("%1 of the %1 tasks matched").arg(run.graph.tasks.size())));
    // A layout the simulator refuses is shown as the problem, not drawn.
    p->tp()->setValue(3);
    QVERIFY(!w.timelineView()->problem().isEmpty());
    QVERIFY(w.timelineView()->canvas()->lanes().empty());
  }
};

QTEST_MAIN(CcplanTest)
#include "ccplan_test.moc"
