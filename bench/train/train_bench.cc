#include "bench/train/train_bench.h"

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <thread>

#include <fmt/format.h>

#include "bench/system_info.h"
#include "bench/train/rank_groups.h"
#include "bench/train/step_runner.h"
#include "bench/watchdog.h"
#include "collectives/errors.h"
#include "results/chrome_trace.h"
#include "results/json_reader.h"
#include "results/results.h"
#include "results/training_record.h"
#include "sim/training/report.h"
#include "sim/training/timeline.h"

namespace cclab::bench {
namespace {

// What each rank sends rank 0 after a measured step: its makespan, its parts (StepTime's, in
// this order) and the seconds its data-parallel streams ran collectives.
constexpr int kSampleDoubles = 11;

struct StepSample {
  double seconds = 0;     // the slowest rank's makespan
  sim::StepTime parts;    // read off the slowest rank
  double skew = 0;        // slowest minus fastest rank
  double dataComm = 0;    // the slowest rank's data-parallel collectives, hidden or not
};

std::array<double, kSampleDoubles> pack(const sim::StepTime& s, double dataComm) {
  return {s.total, s.compute, s.tpComm, s.ppComm, s.dpComm, s.shardComm, s.offload, s.bubble, s.optimizer, s.overhead, dataComm};
}

sim::StepTime unpack(const double* d) {
  sim::StepTime s;
  s.total = d[0], s.compute = d[1], s.tpComm = d[2], s.ppComm = d[3], s.dpComm = d[4], s.shardComm = d[5], s.offload = d[6];
  s.bubble = d[7], s.optimizer = d[8], s.overhead = d[9];
  return s;
}

double exposedComm(const sim::StepTime& s) { return s.tpComm + s.ppComm + s.dpComm + s.shardComm; }
double hidden(const StepSample& s) {
  return s.dataComm > 0 ? std::clamp(1 - (s.parts.dpComm + s.parts.shardComm) / s.dataComm, 0.0, 1.0) : 0.0;
}

// The settings as run: every rank is one GPU of the layout. A cluster smaller than the job gets
// as many GPUs per node as the ranks need (e.g. 4 ranks on the 2-core CPU description).
sim::TrainingSettings settingsForRanks(sim::TrainingSettings s, int ranks, const std::string& backend) {
  if (s.gpus && *s.gpus != ranks) {
    throw InputError(fmt::format("--gpus {} but mpirun started {} rank(s): ccbench train runs one rank per GPU of the layout", *s.gpus, ranks));
  }
  s.gpus = ranks;
  // The step's collectives are priced by the calibration of what runs them.
  if (s.collectives.empty()) s.collectives = backend;
  if (!s.nodes && !s.gpusPerNode) {
    const sim::Cluster shape = s.loadClusterShape();
    if (shape.gpus() < ranks) s.gpusPerNode = (ranks + shape.nodes - 1) / shape.nodes;
  }
  return s;
}

// Chrome trace of one measured step: a process per rank, a thread per stream, as ccsim train
// --trace writes the simulated one (same names), so Perfetto shows them side by side.
std::string measuredTrace(const sim::StepGraph& graph, const std::vector<std::vector<double>>& perRank, const std::string& title) {
  results::ChromeTrace trace;
  for (std::size_t rank = 0; rank < perRank.size(); ++rank) {
    const auto& v = perRank[rank];
    const int pid = static_cast<int>(rank);
    const int stage = v.empty() ? 0 : graph.tasks[static_cast<std::size_t>(v[0])].stage;
    trace.nameProcess(pid, fmt::format("rank {} (stage {})", rank, stage));
    for (int k = 0; k < sim::kStreamKinds; ++k) trace.nameThread(pid, k, std::string(sim::name(static_cast<sim::StreamKind>(k))));
    for (std::size_t i = 0; i + 2 < v.size(); i += 3) {
      const sim::Task& task = graph.tasks[static_cast<std::size_t>(v[i])];
      results::Json args = {{"part", std::string(sim::name(task.part))}, {"pass", std::string(sim::name(task.pass))}};
      if (task.microBatch >= 0) args["micro_batch"] = task.microBatch;
      if (task.layer >= 0) args["layer"] = task.layer;
      trace.add({{"name", task.label}, {"cat", std::string(sim::name(task.part))}, {"ph", "X"}, {"ts", v[i + 1] * 1e6},
                 {"dur", (v[i + 2] - v[i + 1]) * 1e6}, {"pid", pid}, {"tid", static_cast<int>(task.stream)}, {"args", args}});
    }
  }
  return trace.finish({{"title", title}, {"tool", "ccbench train"}});
}

}  // namespace

int runTrainBench(const TrainOptions& o) {
  int size = 1, rank = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);

  // Everything that can be wrong with the input is found here, the same on every rank, before any
  // rank allocates.
  const sim::TrainingSettings settings = settingsForRanks(o.settings, size, o.backend);
  const sim::TrainingRun run = sim::runTraining(settings);
  const sim::TrainConfig& config = run.estimate.config;
  if (config.tp * config.dp * config.pp != size) {
    throw InputError(fmt::format("the layout dp {} x tp {} x pp {} needs {} ranks; mpirun started {}", config.dp, config.tp, config.pp,
                                 config.tp * config.dp * config.pp, size));
  }
  // Its GEMMs run in bf16 (cuBLAS) or fp32 (Eigen, cuBLAS); an fp8 step is priced by ccsim only.
  if (config.precision == sim::Precision::Fp8) {
    throw InputError("--precision fp8 is priced by ccsim train; ccbench train runs mixed (bf16), fp32 or tf32 steps");
  }
  const RankLayout layout = RankLayout::of(config, sim::placement(config, run.job.gpusPerNode));
  const DataType dtype = config.precision == sim::Precision::Mixed ? DataType::BFloat16 : DataType::Float;
  const std::string layoutText = sim::describeLayout(config);

  Watchdog watchdog(o.timeoutS, rank);
  watchdog.describe("setting up the device");
  const std::unique_ptr<StepPlatform> platform = o.device == "cuda" ? makeGpuPlatform(o, dtype) : makeCpuPlatform(o, dtype);
  watchdog.describe("creating the groups' communicators");
  StepRunner runner(run.graph, layout, o, dtype, *platform, watchdog);
  if (o.debugStallRank == rank) {
    for (;;) std::this_thread::sleep_for(std::chrono::hours(1));  // the test hook: a stalled rank
  }

  if (rank == 0) {
    std::printf("# ccbench train: %s on %s, %d rank(s): %s\n", run.modelName.c_str(), run.job.name.c_str(), size, layoutText.c_str());
    std::printf("# device %s, backend %s%s, compute %s, collectives in %s, %zu tasks per step; %d warm-up + %d measured steps%s\n",
                platform->describe().c_str(), o.backend.c_str(), o.backend == "cclab" ? (" (" + o.algo + ")").c_str() : "",
                std::string(name(o.compute)).c_str(), std::string(name(dtype)).c_str(),
                run.graph.tasks.size(), o.warmup, o.iters, o.check ? ", every collective checked" : "");
    std::printf("#\n# %5s %10s %10s %10s %10s %10s %10s %10s %10s %8s\n", "step", "time(s)", "compute", "tp_comm", "pp_comm", "dp_comm",
                "shard_comm", "bubble", "optimizer", "skew(s)");
    std::fflush(stdout);
  }

  sim::StepGraph measuredGraph = run.graph;  // its seconds become the measured ones, for the attribution
  std::vector<StepSample> samples;
  std::vector<MeasuredTask> last;
  for (int step = 0; step < o.warmup + o.iters; ++step) {
    watchdog.describe(fmt::format("step {} (waiting for every rank at its start)", step));
    watchdog.kick();
    MPI_Barrier(MPI_COMM_WORLD);
    watchdog.describe(fmt::format("step {}", step));
    std::vector<MeasuredTask> times = runner.run();
    if (step < o.warmup) continue;

    // This rank's timeline, read as ccsim reads its simulated one.
    sim::Timeline timeline;
    timeline.tasks.resize(times.size());
    timeline.criticalStage = runner.stage();
    double dataComm = 0;
    for (std::size_t i = 0; i < times.size(); ++i) {
      sim::Task& task = measuredGraph.tasks[i];
      if (task.stage != runner.stage()) continue;
      timeline.tasks[i] = {times[i].start, times[i].end};
      timeline.makespan = std::max(timeline.makespan, times[i].end);
      task.seconds = times[i].end - times[i].start;
      task.tensorCommSeconds = std::min(task.seconds, times[i].tensorSeconds);
      task.overheadSeconds = 0;
      if (sim::isCollective(task)) dataComm += task.seconds;
    }
    sim::attributeStage(measuredGraph, timeline);
    sim::StepTime measured = sim::stepTime(timeline);
    if (config.pp == 1) {  // no pipeline to wait for: the gaps between tasks are the runner's own time
      measured.overhead += measured.bubble;
      measured.bubble = 0;
    }
    const auto mine = pack(measured, dataComm);
    std::vector<double> all(rank == 0 ? static_cast<std::size_t>(size) * kSampleDoubles : 0);
    MPI_Gather(mine.data(), kSampleDoubles, MPI_DOUBLE, all.data(), kSampleDoubles, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    last = std::move(times);
    if (rank != 0) continue;
    int slowest = 0;
    double fastest = all[0];
    for (int r = 0; r < size; ++r) {
      if (all[static_cast<std::size_t>(r) * kSampleDoubles] > all[static_cast<std::size_t>(slowest) * kSampleDoubles]) slowest = r;
      fastest = std::min(fastest, all[static_cast<std::size_t>(r) * kSampleDoubles]);
    }
    const double* d = &all[static_cast<std::size_t>(slowest) * kSampleDoubles];
    StepSample sample{d[0], unpack(d), d[0] - fastest, d[10]};
    samples.push_back(sample);
    const sim::StepTime& p = sample.parts;
    std::printf("  %5d %10.4g %10.4g %10.4g %10.4g %10.4g %10.4g %10.4g %10.4g %8.2g\n", step, sample.seconds, p.compute, p.tpComm, p.ppComm,
                p.dpComm, p.shardComm, p.bubble, p.optimizer, sample.skew);
    std::fflush(stdout);
  }
  watchdog.describe("gathering the results");

  long long wrong = runner.wrongElements(), wrongAll = 0;
  MPI_Allreduce(&wrong, &wrongAll, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  const double memory = platform->peakMemoryBytes();
  double peakMemory = 0;
  MPI_Reduce(&memory, &peakMemory, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);

  // The last measured step's task times, every rank's, for the trace.
  std::vector<std::vector<double>> perRank;
  if (!o.tracePath.empty()) {
    std::vector<double> mine;
    for (std::size_t i = 0; i < last.size(); ++i) {
      if (run.graph.tasks[i].stage == runner.stage()) mine.insert(mine.end(), {static_cast<double>(i), last[i].start, last[i].end});
    }
    int count = static_cast<int>(mine.size());
    std::vector<int> counts(static_cast<std::size_t>(size)), offsets(static_cast<std::size_t>(size));
    MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
    std::vector<double> all;
    if (rank == 0) {
      for (int r = 1; r < size; ++r) offsets[static_cast<std::size_t>(r)] = offsets[static_cast<std::size_t>(r) - 1] + counts[static_cast<std::size_t>(r) - 1];
      all.resize(static_cast<std::size_t>(offsets.back() + counts.back()));
    }
    MPI_Gatherv(mine.data(), count, MPI_DOUBLE, all.data(), counts.data(), offsets.data(), MPI_DOUBLE, 0, MPI_COMM_WORLD);
    for (int r = 0; r < size && rank == 0; ++r) {
      const auto begin = all.begin() + offsets[static_cast<std::size_t>(r)];
      perRank.emplace_back(begin, begin + counts[static_cast<std::size_t>(r)]);
    }
  }
  if (rank != 0) return wrongAll > 0 ? 1 : 0;

  // The record: the measured steps, the parts' means over them, peak memory, what ran.
  sim::StepTime mean;
  double hiddenMean = 0, skew = 0;
  results::TrainingMeasurement m;
  for (std::size_t i = 0; i < samples.size(); ++i) {
    const StepSample& s = samples[i];
    m.steps.push_back({static_cast<long>(o.warmup + static_cast<int>(i)), s.seconds, {}});
    const double w = 1.0 / static_cast<double>(samples.size());
    mean.compute += w * s.parts.compute, mean.tpComm += w * s.parts.tpComm, mean.ppComm += w * s.parts.ppComm;
    mean.dpComm += w * s.parts.dpComm, mean.shardComm += w * s.parts.shardComm, mean.offload += w * s.parts.offload;
    mean.bubble += w * s.parts.bubble, mean.optimizer += w * s.parts.optimizer, mean.overhead += w * s.parts.overhead;
    hiddenMean += w * hidden(s);
    skew += w * s.skew;
  }
  const results::Json measuredParts = sim::toJson(mean);
  for (const auto& [key, value] : measuredParts.items()) {
    if (key != "total" && key != "interference") m.parts[key] = value.get<double>();
  }
  m.parts["exposed_comm"] = exposedComm(mean);
  m.parts["hidden_comm_fraction"] = hiddenMean;
  m.source = o.jsonPath;
  m.format = "cclab";
  m.ranks = size;
  m.globalBatch = config.globalBatch;
  m.peakAllocatedBytes = peakMemory;
  // The record replays as a plan file (ccsim calibrate --training, ccreport accuracy), which
  // ccsim plan reads: it carries the global batch it ran, given or not.
  sim::TrainingSettings recorded = settings;
  recorded.globalBatch = config.globalBatch;
  m.settings = sim::toJson(recorded);
  // The prediction beside it: the simulated step, except that sleeping compute takes no core and
  // no memory bandwidth, so a sleeping step is the same graph with nothing shared (on a CPU
  // description the step model otherwise charges ranks that share cores for sharing them).
  const sim::StepTime predicted =
      o.compute == ComputeMode::Sleep ? sim::stepTime(sim::simulate(run.graph, sim::Interference{})) : run.estimate.step;

  // The summary: step time over the measured steps beside the prediction, the parts' means.
  const results::StepStatistics steps = results::stepStatistics(m);
  std::printf("#\n# step time: min %.4g  p50 %.4g  p99 %.4g s; predicted %.4g s (%+.1f%%)\n", steps.min, steps.median, steps.p99,
              predicted.total, 100 * (predicted.total / steps.median - 1));
  std::printf("# %-16s %12s %12s\n", "part (mean)", "measured(s)", "predicted(s)");
  const results::Json predictedParts = sim::toJson(predicted);
  for (const auto& [key, value] : measuredParts.items()) {
    if (key == "total" || key == "interference") continue;
    std::printf("# %-16s %12.4g %12.4g\n", key.c_str(), value.get<double>(), predictedParts.at(key).get<double>());
  }
  std::printf("# data-parallel communication hidden: %.0f%% (predicted %.0f%%); skew between ranks %.3g s; peak %s %.1f MiB per rank\n",
              100 * hiddenMean, 100 * run.estimate.hiddenFraction, skew, platform->memoryKind().c_str(), peakMemory / (1 << 20));
  if (wrongAll > 0) std::printf("# Out of bounds values : %lld FAILED\n", wrongAll);
  else if (o.check) std::printf("# Out of bounds values : 0 OK\n");

  if (!o.jsonPath.empty()) {
    const LocalInfo host = localInfo();
    m.run = {{"tool", "ccbench train"},      {"backend", o.backend}, {"algo", o.backend == "cclab" ? o.algo : "native"},
             {"compute", std::string(name(o.compute))}, {"device", platform->describe()},
             {"memory", platform->memoryKind()}, {"host", host.host}, {"cpu", host.cpuModel}, {"mpi", mpiLibraryVersion()},
             {"warmup_steps", o.warmup}, {"skew_s", skew}, {"predicted_step_s", predicted.total}, {"command", o.command}};
    results::writeFileAtomically(o.jsonPath, results::dumpJson(results::toJson(m)) + "\n");
  }
  if (!o.tracePath.empty()) {
    results::writeFileAtomically(o.tracePath, measuredTrace(run.graph, perRank, fmt::format("ccbench train: {}, {}", run.modelName, layoutText)));
  }
  return wrongAll > 0 ? 1 : 0;
}

}  // namespace cclab::bench
