#include "gui/timeline_view.h"

#include <algorithm>
#include <map>
#include <tuple>

#include <QPainter>
#include <QVBoxLayout>

#include "collectives/errors.h"
#include "gui/plan_figures.h"
#include "results/json_reader.h"

namespace cclab::gui {
namespace {

constexpr int kMaxLaneHeight = 26, kLabelWidth = 150, kAxisHeight = 30;

}  // namespace

TimelineCanvas::TimelineCanvas(QWidget* parent) : QWidget(parent) {
  setMinimumHeight(120);
  setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
}

void TimelineCanvas::setStep(sim::StepGraph graph, sim::Timeline timeline) {
  graph_ = std::move(graph);
  timeline_ = std::move(timeline);
  lanes_.clear();
  for (int stage = 0; stage < graph_.stages; ++stage) {
    for (int k = 0; k < sim::kStreamKinds; ++k) {
      const auto stream = static_cast<sim::StreamKind>(k);
      const bool used = std::any_of(graph_.tasks.begin(), graph_.tasks.end(),
                                    [&](const sim::Task& t) { return t.stage == stage && t.stream == stream; });
      if (used) lanes_.push_back({stage, stream, tr("stage %1 %2").arg(stage).arg(QString::fromUtf8(sim::name(stream).data(), static_cast<int>(sim::name(stream).size())))});
    }
  }
  onPath_.assign(graph_.tasks.size(), 0);
  for (int i : timeline_.criticalPath) onPath_[static_cast<std::size_t>(i)] = 1;
  updateGeometry();
  update();
}

void TimelineCanvas::setMeasured(std::vector<sim::TimedTask> measured, double makespan) {
  measured_ = std::move(measured);
  measuredMakespan_ = makespan;
  update();
}

void TimelineCanvas::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), Qt::white);
  if (lanes_.empty() || timeline_.makespan <= 0) return;
  const double width = std::max(50, this->width() - kLabelWidth - 10);
  const int lanes = static_cast<int>(lanes_.size());
  const int laneHeight = std::clamp((height() - kAxisHeight - 4) / lanes, 4, kMaxLaneHeight);
  const bool overlay = measured_.size() == graph_.tasks.size() && measuredMakespan_ > 0;
  const double span = overlay ? std::max(timeline_.makespan, measuredMakespan_) : timeline_.makespan;
  auto x = [&](double seconds) { return kLabelWidth + seconds / span * width; };
  auto laneOf = [&](const sim::Task& t) {
    for (std::size_t k = 0; k < lanes_.size(); ++k) {
      if (lanes_[k].stage == t.stage && lanes_[k].stream == t.stream) return static_cast<int>(k);
    }
    return -1;
  };
  // The time axis: ten ticks over the step.
  p.setPen(Qt::darkGray);
  for (int k = 0; k <= 10; ++k) {
    const double t = span * k / 10;
    const int px = static_cast<int>(x(t));
    p.drawLine(px, kAxisHeight - 6, px, kAxisHeight + laneHeight * lanes);
    p.drawText(px - 40, 2, 80, kAxisHeight - 8, Qt::AlignCenter, QString::number(t * 1e3, 'g', 4) + " ms");
  }
  for (std::size_t k = 0; k < lanes_.size(); ++k) {
    const int top = kAxisHeight + laneHeight * static_cast<int>(k);
    p.setPen(Qt::black);
    p.drawText(4, top, kLabelWidth - 8, laneHeight, Qt::AlignVCenter | Qt::AlignLeft, lanes_[k].label);
  }
  // The tasks, coloured by part; the critical path's drawn over the rest, underlined in black.
  for (int pass = 0; pass < 2; ++pass) {
    for (std::size_t i = 0; i < graph_.tasks.size(); ++i) {
      if ((onPath_[i] != 0) != (pass == 1)) continue;
      const sim::Task& task = graph_.tasks[i];
      const sim::TimedTask& timed = timeline_.tasks[i];
      const int lane = laneOf(task);
      if (lane < 0 || timed.end <= timed.start) continue;
      const double gap = laneHeight >= 12 ? 3 : 1;
      const double h = overlay ? (laneHeight - 2 * gap) / 2 : laneHeight - 2 * gap;  // overlay: the top half
      const QRectF box(x(timed.start), kAxisHeight + laneHeight * lane + gap, std::max(1.0, x(timed.end) - x(timed.start)), h);
      p.fillRect(box, partColor(task.part));
      if (pass == 1) p.fillRect(QRectF(box.left(), box.bottom() - 2, box.width(), 2), Qt::black);  // underlined
    }
  }
  // The measured tasks in the bottom half of each lane, lighter and outlined.
  if (!overlay) return;
  for (std::size_t i = 0; i < graph_.tasks.size(); ++i) {
    const sim::TimedTask& timed = measured_[i];
    const int lane = laneOf(graph_.tasks[i]);
    if (lane < 0 || timed.end <= timed.start) continue;
    const double gap = laneHeight >= 12 ? 3 : 1;
    const double h = (laneHeight - 2 * gap) / 2;
    const QRectF box(x(timed.start), kAxisHeight + laneHeight * lane + gap + h, std::max(1.0, x(timed.end) - x(timed.start)), h);
    QColor color = partColor(graph_.tasks[i].part);
    color.setAlpha(110);
    p.fillRect(box, color);
    p.setPen(QPen(partColor(graph_.tasks[i].part).darker(150), 0));
    p.drawRect(box);
  }
}

bool isMeasuredStepTrace(const QString& path) {
  if (!path.endsWith(".json", Qt::CaseInsensitive)) return false;
  try {
    const results::Json j = results::readJsonFile(path.toStdString(), "trace");
    return j.is_object() && j.contains("otherData") && j["otherData"].is_object() && j["otherData"].value("tool", "") == "ccbench train";
  } catch (const std::exception&) {
    return false;
  }
}

std::vector<sim::TimedTask> matchMeasuredTrace(const results::Json& trace, const sim::StepGraph& graph, int* matched) {
  std::vector<sim::TimedTask> out(graph.tasks.size());
  int count = 0;
  // Each stage's tasks by (stream, name), in graph order: the trace lists a rank's tasks so.
  std::map<std::tuple<int, int, std::string>, std::vector<std::size_t>> tasks;
  for (std::size_t i = 0; i < graph.tasks.size(); ++i) {
    const sim::Task& t = graph.tasks[i];
    tasks[{t.stage, static_cast<int>(t.stream), t.label}].push_back(i);
  }
  std::map<std::tuple<int, int, std::string>, std::size_t> next;
  std::map<int, int> rankOfStage;  // the first rank seen of each stage
  const results::Json* events = trace.is_object() && trace.contains("traceEvents") ? &trace["traceEvents"] : nullptr;
  if (events == nullptr || !events->is_array()) {
    if (matched) *matched = 0;
    return out;
  }
  for (const auto& e : *events) {
    if (!e.is_object() || e.value("ph", "") != "X" || !e.contains("args") || !e["args"].is_object()) continue;
    const int rank = e.value("pid", -1), stream = e.value("tid", -1);
    const std::string name = e.value("name", "");
    // The stage: the task's own, found by its name on a stage with that task.
    int stage = -1;
    for (int s = 0; s < graph.stages && stage < 0; ++s) {
      if (tasks.count({s, stream, name}) && (!rankOfStage.count(s) || rankOfStage[s] == rank)) stage = s;
    }
    if (stage < 0) continue;
    rankOfStage.emplace(stage, rank);
    const auto key = std::make_tuple(stage, stream, name);
    std::size_t& k = next[key];
    const auto& list = tasks[key];
    if (k >= list.size()) continue;
    const double start = e.value("ts", 0.0) * 1e-6;
    out[list[k++]] = {start, start + e.value("dur", 0.0) * 1e-6};
    ++count;
  }
  if (matched) *matched = count;
  return out;
}

TimelineView::TimelineView(QWidget* parent) : ChartPage(parent) {
  area_ = new QWidget(this);
  canvas_ = new TimelineCanvas(area_);
  summary_ = new QLabel(area_);
  summary_->setWordWrap(true);
  summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  problem_ = new QLabel(this);
  problem_->setWordWrap(true);
  problem_->setStyleSheet("color: #d62728; font-weight: bold;");
  problem_->hide();
  auto* inner = new QVBoxLayout(area_);
  inner->setContentsMargins(0, 0, 0, 0);
  inner->addWidget(canvas_, 1);
  inner->addWidget(summary_);
  auto* column = new QVBoxLayout(this);
  column->addWidget(problem_);
  column->addWidget(area_, 1);
}

void TimelineView::showPlan(const sim::TrainingSettings& settings) {
  try {
    sim::TrainingRun run = sim::runTraining(settings);
    if (run.graph.tasks.empty()) throw InputError("a model known by its parameter count only (--params) has no step to draw");
    const sim::TrainingEstimate& e = run.estimate;
    const sim::StepTime& s = e.step;
    QString parts;
    for (const Segment& segment : figuresFrom(e, run.modelName, run.job).stepSeconds) {
      if (segment.value > 0) parts += tr(" · %1 %2 s").arg(segment.label).arg(segment.value, 0, 'g', 3);
    }
    summary_->setText(tr("step %1 s%2. %3 tasks on %4 stage(s); %5% of %6 s of data-parallel communication hidden behind compute; "
                         "closed forms say %7 s. Underlined: the critical path.")
                          .arg(s.total, 0, 'g', 4)
                          .arg(parts)
                          .arg(run.graph.tasks.size())
                          .arg(run.graph.stages)
                          .arg(100 * e.hiddenFraction, 0, 'f', 1)
                          .arg(e.communication, 0, 'g', 3)
                          .arg(e.closedForm.total, 0, 'g', 4));
    if (!measuredTrace_.is_null()) {
      int matched = 0;
      std::vector<sim::TimedTask> measured = matchMeasuredTrace(measuredTrace_, run.graph, &matched);
      double makespan = 0;
      for (const sim::TimedTask& t : measured) makespan = std::max(makespan, t.end);
      summary_->setText(summary_->text() + tr(" Measured (%1, lower half of each lane): step %2 s, %3 of the %4 tasks matched.")
                                                 .arg(measuredSource_)
                                                 .arg(makespan, 0, 'g', 4)
                                                 .arg(matched)
                                                 .arg(run.graph.tasks.size()));
      canvas_->setStep(std::move(run.graph), std::move(run.timeline));
      canvas_->setMeasured(std::move(measured), makespan);
    } else {
      canvas_->setStep(std::move(run.graph), std::move(run.timeline));
      canvas_->setMeasured({}, 0);
    }
    problemText_.clear();
    problem_->hide();
  } catch (const InputError& e) {
    problemText_ = QString::fromStdString(e.what());
    problem_->setText(tr("Cannot simulate this plan: %1").arg(problemText_));
    problem_->show();
    canvas_->setStep({}, {});
    summary_->clear();
  }
}

void TimelineView::setMeasuredTrace(const QString& path) {
  measuredTrace_ = results::readJsonFile(path.toStdString(), "trace");
  measuredSource_ = path;
}

QString TimelineView::csv() const {
  QString text = "stage,stream,task,part,start_ms,end_ms,critical_path\n";
  const sim::StepGraph& g = canvas_->graph();
  const sim::Timeline& t = canvas_->timeline();
  std::vector<char> onPath(g.tasks.size(), 0);
  for (int i : t.criticalPath) onPath[static_cast<std::size_t>(i)] = 1;
  for (std::size_t i = 0; i < g.tasks.size(); ++i) {
    const sim::Task& task = g.tasks[i];
    text += QStringLiteral("%1,%2,\"%3\",%4,%5,%6,%7\n")
                .arg(task.stage)
                .arg(QString::fromUtf8(sim::name(task.stream).data(), static_cast<int>(sim::name(task.stream).size())))
                .arg(QString::fromStdString(task.label))
                .arg(QString::fromUtf8(sim::name(task.part).data(), static_cast<int>(sim::name(task.part).size())))
                .arg(t.tasks[i].start * 1e3, 0, 'g', 9)
                .arg(t.tasks[i].end * 1e3, 0, 'g', 9)
                .arg(onPath[i] ? "yes" : "no");
  }
  return text;
}

}  // namespace cclab::gui
