#include "sim/training/timeline.h"

#include <algorithm>
#include <limits>
#include <stdexcept>

#include <fmt/format.h>

#include "results/chrome_trace.h"
#include "results/json_reader.h"

namespace cclab::sim {
namespace {

constexpr int streamIndex(int stage, StreamKind kind) { return stage * kStreamKinds + static_cast<int>(kind); }

struct Running {
  int task = 0;
  double remaining = 0;  // seconds of work at full speed, left at `since`
  double since = 0;
  double rate = 1;       // of full speed, since `since`
  double share = 1;      // collectives running beside it on its stage, itself included
  double slowdown = 0;   // interference
  int version = 0;       // times priced: which of its endings is current
};

// A running task's expected end at its current rate.
struct Ending {
  double time;
  int task, version, stage;
  // The heap's order: earliest first, ties by task.
  static bool later(const Ending& a, const Ending& b) { return a.time != b.time ? a.time > b.time : a.task > b.task; }
};


// The step's parts, read off the stage that finishes last (whose end is the critical path's): at
// each moment, what that stage's GPU is doing. Its compute stream's task if one runs (a compute
// task's kernels, blocking tensor-parallel collectives and launch overhead in proportion, and
// the time it was slowed beside a collective as interference); else the collectives it waits for
// (exposed communication, split between those running); else an offload transfer; else nothing
// (it waits for another stage: the pipeline bubble). The parts add up to the makespan.
}  // namespace

namespace {
// A compute-stream task that runs kernels, which collectives slow and are slowed by: not a copy
// to or from the host made there (CPU checkpointing's), which the copy engines run.
bool runsKernels(const Task& task) { return task.stream == StreamKind::Compute && task.part != Part::Offload; }
}  // namespace

void attributeStage(const StepGraph& graph, Timeline& t, const std::vector<double>& interfered) {
  struct Edge {
    double time;
    int task;
    bool starts;
  };
  std::vector<Edge> edges;
  for (std::size_t i = 0; i < graph.tasks.size(); ++i) {
    if (graph.tasks[i].stage != t.criticalStage || t.tasks[i].end <= t.tasks[i].start) continue;
    edges.push_back({t.tasks[i].start, static_cast<int>(i), true});
    edges.push_back({t.tasks[i].end, static_cast<int>(i), false});
  }
  std::sort(edges.begin(), edges.end(), [](const Edge& a, const Edge& b) {
    return a.time != b.time ? a.time < b.time : a.starts < b.starts;  // ends before starts
  });
  std::vector<int> active;
  double previous = 0;
  auto account = [&](double span) {
    if (span <= 0) return;
    int compute = -1, offload = -1;
    std::vector<int> collectives;
    for (int i : active) {
      const StreamKind stream = graph.tasks[static_cast<std::size_t>(i)].stream;
      if (stream == StreamKind::Compute) compute = i;
      else if (stream == StreamKind::Offload) offload = i;
      else collectives.push_back(i);
    }
    if (compute >= 0) {
      const Task& task = graph.tasks[static_cast<std::size_t>(compute)];
      const double duration = t.tasks[static_cast<std::size_t>(compute)].end - t.tasks[static_cast<std::size_t>(compute)].start;
      const double scale = span / duration;
      t.onPath[static_cast<std::size_t>(task.part)] += scale * (task.seconds - task.tensorCommSeconds - task.overheadSeconds);
      t.onPath[static_cast<std::size_t>(Part::TensorComm)] += scale * task.tensorCommSeconds;
      t.onPath[static_cast<std::size_t>(Part::Overhead)] += scale * task.overheadSeconds;
      if (!interfered.empty()) t.interference += scale * interfered[static_cast<std::size_t>(compute)];
    } else if (!collectives.empty()) {
      for (int i : collectives) t.onPath[static_cast<std::size_t>(graph.tasks[static_cast<std::size_t>(i)].part)] += span / collectives.size();
    } else if (offload >= 0) {
      t.onPath[static_cast<std::size_t>(Part::Offload)] += span;
    } else {
      t.idle += span;
    }
  };
  for (const Edge& edge : edges) {
    account(edge.time - previous);
    previous = edge.time;
    if (edge.starts) {
      active.push_back(edge.task);
    } else {
      active.erase(std::find(active.begin(), active.end(), edge.task));
    }
  }
  account(t.makespan - previous);
}

Timeline simulate(const StepGraph& graph, const Interference& interference) {
  const std::vector<Task>& tasks = graph.tasks;
  const int n = static_cast<int>(tasks.size());
  Timeline t;
  t.tasks.assign(static_cast<std::size_t>(n), {});
  t.peakBytes = graph.residentBytes;
  if (n == 0) return t;

  // Each stream's tasks in issue order, each task's unfinished dependencies and who waits on it.
  const int streams = graph.stages * kStreamKinds;
  std::vector<std::vector<int>> queue(static_cast<std::size_t>(streams));
  std::vector<int> waitingOn(static_cast<std::size_t>(n), 0);
  std::vector<std::vector<int>> successors(static_cast<std::size_t>(n));
  std::vector<int> streamOf(static_cast<std::size_t>(n)), previousOnStream(static_cast<std::size_t>(n), -1);
  for (int i = 0; i < n; ++i) {
    const Task& task = tasks[static_cast<std::size_t>(i)];
    const int s = streamIndex(task.stage, task.stream);
    streamOf[static_cast<std::size_t>(i)] = s;
    auto& q = queue[static_cast<std::size_t>(s)];
    if (!q.empty()) previousOnStream[static_cast<std::size_t>(i)] = q.back();
    q.push_back(i);
    for (int d : task.after) {
      if (d < 0 || d >= n || d == i) throw std::logic_error(fmt::format("step graph: task {} waits for task {}, which does not exist", i, d));
      ++waitingOn[static_cast<std::size_t>(i)];
      successors[static_cast<std::size_t>(d)].push_back(i);
    }
  }

  std::vector<std::size_t> head(static_cast<std::size_t>(streams), 0);
  std::vector<bool> busy(static_cast<std::size_t>(streams), false);
  std::vector<double> allocated(static_cast<std::size_t>(graph.stages), 0.0);
  std::vector<int> gate(static_cast<std::size_t>(n), -1);  // what the task waited for last
  std::vector<double> interfered(static_cast<std::size_t>(n), 0.0);  // seconds each task was slowed beside another
  // What runs on each stage (at most one task a stream). A task's rate changes only when what runs
  // beside it on its stage changes (or, on CPU ranks, on the cores its stage shares), so only those
  // stages are repriced at an event; each running task's expected end waits in a heap, an entry
  // going stale when its task is repriced.
  std::vector<std::vector<Running>> runningOn(static_cast<std::size_t>(graph.stages));
  std::vector<Ending> endings;
  std::vector<char> touched(static_cast<std::size_t>(graph.stages), 0);
  std::vector<int> touchedStages;
  auto touch = [&](int stage) {
    if (!touched[static_cast<std::size_t>(stage)]) touched[static_cast<std::size_t>(stage)] = 1, touchedStages.push_back(stage);
  };
  double now = 0;
  int finished = 0;
  long running = 0;

  auto tryStart = [&](int s) {
    auto& q = queue[static_cast<std::size_t>(s)];
    std::size_t& h = head[static_cast<std::size_t>(s)];
    if (busy[static_cast<std::size_t>(s)] || h >= q.size()) return;
    const int i = q[h];
    if (waitingOn[static_cast<std::size_t>(i)] > 0) return;
    const Task& task = tasks[static_cast<std::size_t>(i)];
    busy[static_cast<std::size_t>(s)] = true;
    ++h;
    t.tasks[static_cast<std::size_t>(i)].start = now;
    // The last to finish of its dependencies and its stream's previous task gated it.
    double latest = -1;
    for (int d : task.after) {
      if (t.tasks[static_cast<std::size_t>(d)].end > latest) latest = t.tasks[static_cast<std::size_t>(d)].end, gate[static_cast<std::size_t>(i)] = d;
    }
    const int previous = previousOnStream[static_cast<std::size_t>(i)];
    if (previous >= 0 && t.tasks[static_cast<std::size_t>(previous)].end >= latest) gate[static_cast<std::size_t>(i)] = previous;
    double& stageBytes = allocated[static_cast<std::size_t>(task.stage)];
    stageBytes += task.allocatesBytes;
    double& peak = t.peakBytes[static_cast<std::size_t>(task.stage)];
    peak = std::max(peak, graph.residentBytes[static_cast<std::size_t>(task.stage)] + stageBytes);
    Running r;
    r.task = i;
    r.remaining = std::max(0.0, task.seconds);
    r.since = now;
    runningOn[static_cast<std::size_t>(task.stage)].push_back(r);
    ++running;
    touch(task.stage);
  };

  std::vector<double> processor(static_cast<std::size_t>(graph.stages), 1.0);  // the share of a core a stage's rank gets
  std::size_t cores = 0;  // numbered from 0 across the job
  for (const auto& stage : interference.stageCores) {
    for (const Interference::CoreShare& at : stage) cores = std::max(cores, static_cast<std::size_t>(at.core) + 1);
  }
  std::vector<double> coreLoad(cores);
  const bool sharedCores = !interference.stageCores.empty();

  // Of the seconds since it was last priced, `rate` of each was the task's own work; the rest was
  // link sharing and interference (for compute: all of it beyond its own work, cores shared with
  // other ranks included).
  auto advance = [&](Running& r) {
    const double span = now - r.since;
    if (span <= 0) return;
    const double progress = span * r.rate;
    const bool compute = tasks[static_cast<std::size_t>(r.task)].stream == StreamKind::Compute;
    interfered[static_cast<std::size_t>(r.task)] += compute ? span - progress : progress * r.share * r.slowdown;
    r.remaining -= progress;
    r.since = now;
  };
  // Rates. Collectives running at once on a stage share its links; while any runs, the stage's
  // compute slows and they slow too (NCCL's kernels and the GEMMs share SMs and HBM).
  auto busyOn = [&](std::size_t stage, bool& computing, int& communicating) {
    computing = false;
    communicating = 0;
    for (const Running& r : runningOn[stage]) {
      const Task& task = tasks[static_cast<std::size_t>(r.task)];
      if (runsKernels(task)) computing = true;
      if (isCollective(task)) ++communicating;
    }
  };
  auto reprice = [&](std::size_t stage) {
    bool computing = false;
    int communicating = 0;
    busyOn(stage, computing, communicating);
    for (Running& r : runningOn[stage]) {
      advance(r);
      const Task& task = tasks[static_cast<std::size_t>(r.task)];
      r.share = 1;
      r.slowdown = 0;
      if (runsKernels(task) && communicating > 0) r.slowdown = interference.computeSlowdown;
      if (isCollective(task)) {
        r.share = communicating;
        if (computing) r.slowdown = interference.commSlowdown;
      }
      const bool copy = task.part == Part::Offload && task.stream != StreamKind::Compute;  // the copy engines'
      r.rate = (copy ? 1.0 : processor[stage]) / (r.share * (1 + r.slowdown));
      ++r.version;
      endings.push_back({now + std::max(0.0, r.remaining) / r.rate, r.task, r.version, static_cast<int>(stage)});
      std::push_heap(endings.begin(), endings.end(), Ending::later);
    }
  };
  // CPU ranks: every computing stream and every running collective keeps its rank's core busy
  // (MPI progresses a collective by polling); what is busy on a core shares it, and a stage runs
  // at the pace of its most loaded core. A change on one stage can move another's pace, so all
  // stages are repriced (CPU jobs have a few).
  auto repriceTouched = [&] {
    if (sharedCores) {
      std::fill(coreLoad.begin(), coreLoad.end(), 0.0);
      for (std::size_t stage = 0; stage < runningOn.size(); ++stage) {
        bool computing = false;
        int communicating = 0;
        busyOn(stage, computing, communicating);
        for (const Interference::CoreShare& at : interference.stageCores[stage]) {
          coreLoad[static_cast<std::size_t>(at.core)] += at.ranks * ((computing ? 1 : 0) + communicating);
        }
      }
      for (std::size_t stage = 0; stage < runningOn.size(); ++stage) {
        double load = 1;
        for (const Interference::CoreShare& at : interference.stageCores[stage]) load = std::max(load, coreLoad[static_cast<std::size_t>(at.core)]);
        processor[stage] = load > 1 ? 1 / load / (1 + interference.oversubscription) : 1.0;
        reprice(stage);
      }
    } else {
      for (int stage : touchedStages) reprice(static_cast<std::size_t>(stage));
    }
    for (int stage : touchedStages) touched[static_cast<std::size_t>(stage)] = 0;
    touchedStages.clear();
  };

  for (int s = 0; s < streams; ++s) tryStart(s);
  repriceTouched();
  std::vector<int> done;
  while (running > 0) {
    // The next end; with it every task that ends within rounding of it.
    done.clear();
    bool first = true;
    while (!endings.empty()) {
      const Ending e = endings.front();
      std::vector<Running>& on = runningOn[static_cast<std::size_t>(e.stage)];
      auto it = std::find_if(on.begin(), on.end(), [&](const Running& r) { return r.task == e.task; });
      if (it == on.end() || it->version != e.version) {  // repriced since, or ended
        std::pop_heap(endings.begin(), endings.end(), Ending::later);
        endings.pop_back();
        continue;
      }
      if (first) {
        now = std::max(now, e.time);
        first = false;
      } else if ((e.time - now) * it->rate > 1e-15 * std::max(1.0, now)) {
        break;
      }
      std::pop_heap(endings.begin(), endings.end(), Ending::later);
      endings.pop_back();
      advance(*it);
      done.push_back(e.task);
      *it = on.back();
      on.pop_back();
      --running;
      touch(e.stage);
    }
    for (int i : done) {
      const Task& task = tasks[static_cast<std::size_t>(i)];
      t.tasks[static_cast<std::size_t>(i)].end = now;
      allocated[static_cast<std::size_t>(task.stage)] -= task.freesBytes;
      busy[static_cast<std::size_t>(streamOf[static_cast<std::size_t>(i)])] = false;
      ++finished;
      for (int successor : successors[static_cast<std::size_t>(i)]) --waitingOn[static_cast<std::size_t>(successor)];
    }
    // Streams whose head may have become startable: the finished tasks' own and their successors'.
    for (int i : done) {
      tryStart(streamOf[static_cast<std::size_t>(i)]);
      for (int successor : successors[static_cast<std::size_t>(i)]) tryStart(streamOf[static_cast<std::size_t>(successor)]);
    }
    repriceTouched();
  }
  if (finished != n) throw std::logic_error(fmt::format("step graph: {} of {} tasks never started (a dependency cycle)", n - finished, n));

  // The critical path: back from the last task to finish, through what gated each start.
  int last = 0;
  for (int i = 1; i < n; ++i) {
    if (t.tasks[static_cast<std::size_t>(i)].end > t.tasks[static_cast<std::size_t>(last)].end) last = i;
  }
  t.makespan = t.tasks[static_cast<std::size_t>(last)].end;
  t.criticalStage = tasks[static_cast<std::size_t>(last)].stage;
  for (int i = last; i >= 0; i = gate[static_cast<std::size_t>(i)]) t.criticalPath.push_back(i);
  attributeStage(graph, t, interfered);
  std::reverse(t.criticalPath.begin(), t.criticalPath.end());
  return t;
}

std::vector<double> peakFloorBytes(const StepGraph& graph) {
  const std::vector<Task>& tasks = graph.tasks;
  const std::size_t n = tasks.size();
  std::vector<double> floor = graph.residentBytes;
  for (const Task& task : tasks) {
    if (task.allocatesBytes < 0 || task.freesBytes < 0) return floor;  // the replay below assumes neither gives back what it took
  }
  // Each compute task's place in its stage's compute stream; for every task, how many of its
  // stage's compute tasks must have ended before it can end (its own place + 1 for a compute task;
  // for another, the most among its dependencies on the stage and its stream's previous task;
  // dependencies issued later, or on other stages, are left out, which only lowers the floor).
  const auto stages = static_cast<std::size_t>(graph.stages);
  std::vector<int> place(n, -1), endsAfter(n, 0), computeTasks(stages, 0);
  std::vector<int> lastOnStream(stages * kStreamKinds, -1);
  for (std::size_t i = 0; i < n; ++i) {
    const Task& task = tasks[i];
    const auto stage = static_cast<std::size_t>(task.stage);
    int& previous = lastOnStream[static_cast<std::size_t>(streamIndex(task.stage, task.stream))];
    if (task.stream == StreamKind::Compute) {
      place[i] = computeTasks[stage]++;
      endsAfter[i] = place[i] + 1;
    } else {
      int after = previous >= 0 ? endsAfter[static_cast<std::size_t>(previous)] : 0;
      for (int d : task.after) {
        const auto dependency = static_cast<std::size_t>(d);
        if (dependency < i && tasks[dependency].stage == task.stage) after = std::max(after, endsAfter[dependency]);
      }
      endsAfter[i] = after;
    }
    previous = static_cast<int>(i);
  }
  // Per stage, in compute order: the other streams' frees possible before each compute task
  // starts, and the allocations of those it waits for (counted once).
  std::vector<std::vector<double>> freedBefore(stages), waitedFor(stages);
  for (std::size_t s = 0; s < stages; ++s) {
    freedBefore[s].assign(static_cast<std::size_t>(computeTasks[s]) + 1, 0.0);
    waitedFor[s].assign(static_cast<std::size_t>(computeTasks[s]), 0.0);
  }
  std::vector<char> counted(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    const Task& task = tasks[i];
    const auto stage = static_cast<std::size_t>(task.stage);
    if (task.stream != StreamKind::Compute) {
      freedBefore[stage][static_cast<std::size_t>(endsAfter[i])] += task.freesBytes;
      continue;
    }
    for (int d : task.after) {
      const auto dependency = static_cast<std::size_t>(d);
      if (tasks[dependency].stage != task.stage || tasks[dependency].stream == StreamKind::Compute || counted[dependency]) continue;
      counted[dependency] = 1;
      waitedFor[stage][static_cast<std::size_t>(place[i])] += tasks[dependency].allocatesBytes;
    }
  }
  // The replay: at each compute task's start, what must be held.
  std::vector<double> held(stages, 0.0);
  for (std::size_t i = 0; i < n; ++i) {
    const Task& task = tasks[i];
    if (task.stream != StreamKind::Compute) continue;
    const auto stage = static_cast<std::size_t>(task.stage);
    const auto k = static_cast<std::size_t>(place[i]);
    held[stage] += waitedFor[stage][k] + task.allocatesBytes - freedBefore[stage][k];
    floor[stage] = std::max(floor[stage], graph.residentBytes[stage] + held[stage]);
    held[stage] -= task.freesBytes;
  }
  return floor;
}

std::string chromeTrace(const StepGraph& graph, const Timeline& timeline, const std::string& title) {
  std::vector<char> onPath(graph.tasks.size(), 0);
  for (int i : timeline.criticalPath) onPath[static_cast<std::size_t>(i)] = 1;
  results::ChromeTrace trace;
  for (int stage = 0; stage < graph.stages; ++stage) {
    trace.nameProcess(stage, fmt::format("stage {}", stage));
    for (int k = 0; k < kStreamKinds; ++k) trace.nameThread(stage, k, std::string(name(static_cast<StreamKind>(k))));
  }
  for (std::size_t i = 0; i < graph.tasks.size(); ++i) {
    const Task& task = graph.tasks[i];
    const TimedTask& timed = timeline.tasks[i];
    results::Json args = {{"part", std::string(name(task.part))}, {"pass", std::string(name(task.pass))},
                          {"critical_path", onPath[i] != 0}};
    if (task.microBatch >= 0) args["micro_batch"] = task.microBatch;
    if (task.layer >= 0) args["layer"] = task.layer;
    if (!task.collectives.empty()) {
      const GroupCollective& c = task.collectives.front();
      args["collective"] = std::string(cclab::name(c.collective));
      args["bytes"] = c.bytes;
      args["ranks"] = c.ranks;
    }
    trace.add({{"name", task.label},
               {"cat", std::string(name(task.part))},
               {"ph", "X"},
               {"ts", timed.start * 1e6},
               {"dur", (timed.end - timed.start) * 1e6},
               {"pid", task.stage},
               {"tid", static_cast<int>(task.stream)},
               {"args", args}});
  }
  return trace.finish({{"title", title}, {"tool", "ccsim"}});
}

}  // namespace cclab::sim
