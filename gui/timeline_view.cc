#include "gui/timeline_view.h"

#include <algorithm>

#include <QPainter>
#include <QVBoxLayout>

#include "collectives/errors.h"
#include "gui/plan_figures.h"

namespace cclab::gui {
namespace {

constexpr const char* kStreamNames[] = {"compute", "gathers", "reductions", "offload"};
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
      if (used) lanes_.push_back({stage, stream, tr("stage %1 %2").arg(stage).arg(kStreamNames[k])});
    }
  }
  onPath_.assign(graph_.tasks.size(), 0);
  for (int i : timeline_.criticalPath) onPath_[static_cast<std::size_t>(i)] = 1;
  updateGeometry();
  update();
}

void TimelineCanvas::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), Qt::white);
  if (lanes_.empty() || timeline_.makespan <= 0) return;
  const double width = std::max(50, this->width() - kLabelWidth - 10);
  const int lanes = static_cast<int>(lanes_.size());
  const int laneHeight = std::clamp((height() - kAxisHeight - 4) / lanes, 4, kMaxLaneHeight);
  auto x = [&](double seconds) { return kLabelWidth + seconds / timeline_.makespan * width; };
  auto laneOf = [&](const sim::Task& t) {
    for (std::size_t k = 0; k < lanes_.size(); ++k) {
      if (lanes_[k].stage == t.stage && lanes_[k].stream == t.stream) return static_cast<int>(k);
    }
    return -1;
  };
  // The time axis: ten ticks over the step.
  p.setPen(Qt::darkGray);
  for (int k = 0; k <= 10; ++k) {
    const double t = timeline_.makespan * k / 10;
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
      const QRectF box(x(timed.start), kAxisHeight + laneHeight * lane + gap, std::max(1.0, x(timed.end) - x(timed.start)), laneHeight - 2 * gap);
      p.fillRect(box, partColor(task.part));
      if (pass == 1) p.fillRect(QRectF(box.left(), box.bottom() - 2, box.width(), 2), Qt::black);  // underlined
    }
  }
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
    canvas_->setStep(std::move(run.graph), std::move(run.timeline));
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
                .arg(kStreamNames[static_cast<int>(task.stream)])
                .arg(QString::fromStdString(task.label))
                .arg(QString::fromUtf8(sim::name(task.part).data(), static_cast<int>(sim::name(task.part).size())))
                .arg(t.tasks[i].start * 1e3, 0, 'g', 9)
                .arg(t.tasks[i].end * 1e3, 0, 'g', 9)
                .arg(onPath[i] ? "yes" : "no");
  }
  return text;
}

}  // namespace cclab::gui
