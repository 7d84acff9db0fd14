#include "sim/training/planner.h"

#include <algorithm>

#include "collectives/errors.h"
#include "sim/training/step_graph.h"
#include "sim/training/timeline.h"

namespace cclab::sim {
namespace {

std::vector<int> divisors(int n, int limit) {
  std::vector<int> d;
  for (int k = 1; k <= std::min(n, limit); ++k) {
    if (n % k == 0) d.push_back(k);
  }
  return d;
}

bool faster(const TrainingEstimate& a, const TrainingEstimate& b) {
  if (a.step.total != b.step.total) return a.step.total < b.step.total;
  return a.memory.total < b.memory.total;  // equal speed: the one with more headroom
}

// Where a layout keeps its model states and checkpoints, and how finely it gathers its layers.
struct StatePlacement {
  OffloadTarget optimizer = OffloadTarget::None, parameters = OffloadTarget::None;
  bool checkpointsOnHost = false;
  int tiles = 1;
  bool pinned = false;     // the host buffers of an optimizer in host memory page-locked (pin_memory)
  bool pipelined = false;  // the NVMe swapper of an optimizer on NVMe pipelined (pipeline_read and _write)
};

// What the second search tries, on a cluster that describes its hosts' links (and NVMe): the
// optimizer on the GPU, in host memory or on NVMe (ZeRO-Offload), the parameters with it
// (ZeRO-Infinity), full recompute's checkpoints in host memory or not, and under ZeRO-3 a
// layer's linear layers in 1, 4 or 16 tiles, an optimizer in host memory with its buffers pageable
// (DeepSpeed's default) or pinned (its pin_memory), one on NVMe with its swapper in turn (the
// default) or pipelined (pipeline_read and pipeline_write); everything but the first search's
// all-on-the-GPU. resolve() turns away the pairings DeepSpeed refuses.
std::vector<StatePlacement> offloadedPlacements(const Cluster& cluster) {
  std::vector<StatePlacement> placements;
  if (cluster.host.pcieBandwidthGBps <= 0) return placements;
  std::vector<OffloadTarget> optimizer = {OffloadTarget::None, OffloadTarget::Cpu};
  if (cluster.host.nvmeBandwidthGBps > 0) optimizer.push_back(OffloadTarget::Nvme);
  for (OffloadTarget device : optimizer) {
    for (bool parameters : {false, true}) {
      if (parameters && device == OffloadTarget::None) continue;
      for (bool checkpointsOnHost : {false, true}) {
        for (int tiles : {1, 4, 16}) {
          if (device == OffloadTarget::None && !checkpointsOnHost && tiles == 1) continue;  // the first search
          for (bool tuned : {false, true}) {  // DeepSpeed's default, or the option that speeds the device up
            if (tuned && device == OffloadTarget::None) continue;
            placements.push_back({device, parameters ? device : OffloadTarget::None, checkpointsOnHost, tiles,
                                  tuned && device == OffloadTarget::Cpu, tuned && device == OffloadTarget::Nvme});
          }
        }
      }
    }
  }
  return placements;
}

// One search: lists the layouts of each placement asked for as candidates (counting why the
// others were dropped), then simulates candidates into the kept list.
class LayoutSearch {
 public:
  LayoutSearch(const ModelCard& model, const TrainConfig& base, TrainingPricer& pricer, const PlanSearch& search, PlanResult& result)
      : model_(model),
        base_(base),
        pricer_(pricer),
        cluster_(pricer.cluster()),
        search_(search),
        result_(result),
        shaped_(model.architecture != Architecture::Given) {}

  struct Candidate {
    double lowerBound;  // the closed forms' step time
    TrainConfig config;
  };

  // Every layout with `placement`. Tensor parallelism stays inside a node; pipeline stages are at
  // most the layers (a split that does not divide them gives the ends one layer fewer). resolve()
  // judges the rest (heads, key/value heads, batch, interleaving, ZeRO-3 with pipelines, what may
  // be offloaded), so the rules live in one place.
  void enumerate(const StatePlacement& placement, std::vector<Candidate>& candidates) {
    const int gpus = base_.gpus;
    for (int tp : divisors(gpus, shaped_ ? cluster_.gpusPerNode : 1)) {
      for (int pp : divisors(gpus / tp, shaped_ ? model_.layers : 1)) {
        const int dp = gpus / (tp * pp);
        if (base_.globalBatch % dp != 0) {
          ++result_.explored;
          ++result_.notDividing;
          continue;
        }
        const std::vector<int> chunks = pp > 1 ? divisors(model_.layers / pp, model_.layers) : std::vector<int>{1};
        for (int vpp : chunks) {
          for (int zero = 0; zero <= 3; ++zero) {
            // Offloading needs sharded states; tiles, a ZeRO-3 that gathers them.
            if (placement.optimizer != OffloadTarget::None && zero == 0) continue;
            if (placement.tiles > 1 && (zero != 3 || !shaped_)) continue;
            for (int micro : divisors(base_.globalBatch / dp, search_.maxMicroBatch)) {
              for (Recompute recompute : {Recompute::None, Recompute::Selective, Recompute::Full}) {
                if (!shaped_ && recompute != Recompute::None) continue;
                // Selective recompute recomputes the attention scores a fused kernel never stores:
                // with flash attention it is the same layout as no recompute.
                if (base_.flashAttention && recompute == Recompute::Selective) continue;
                // Only full recompute keeps checkpoints to move to host memory.
                if (placement.checkpointsOnHost && recompute != Recompute::Full) continue;
                TrainConfig c = base_;
                c.dp = dp;
                c.tp = tp;
                c.pp = pp;
                c.vpp = vpp;
                c.schedule = vpp > 1 ? Schedule::Interleaved : Schedule::OneFOneB;
                setZeroStage(c, zero);
                c.microBatch = micro;
                c.recompute = recompute;
                c.offloadOptimizer = placement.optimizer;
                c.offloadParams = placement.parameters;
                c.checkpointsOnHost = placement.checkpointsOnHost;
                c.tiles = placement.tiles;
                c.offloadPinned = placement.pinned;
                if (placement.pipelined) c.swapReadsAhead = c.swapWritesBehind = true;  // else as given (a ds_config may set one)
                consider(std::move(c), candidates);
              }
            }
          }
        }
      }
    }
  }

  // Simulates the candidates fastest first by their closed forms, which no overlap or overhead
  // can beat; once the next one's closed form is slower than the slowest plan kept, no later one
  // can enter the list.
  void simulate(std::vector<Candidate>& candidates) {
    std::sort(candidates.begin(), candidates.end(), [](const Candidate& a, const Candidate& b) { return a.lowerBound < b.lowerBound; });
    std::vector<TrainingEstimate>& best = result_.best;
    for (const Candidate& candidate : candidates) {
      if (static_cast<int>(best.size()) == search_.top && candidate.lowerBound >= best.back().step.total) {
        ++result_.pruned;
        continue;
      }
      if (estimatedStepTasks(model_, candidate.config) > kMaxStepTasks) {  // too many micro-batches to simulate
        ++result_.tooLarge;
        continue;
      }
      // A step whose graph alone shows it cannot fit is not simulated.
      const StepGraph graph = buildStepGraph(model_, candidate.config, pricer_);
      const std::vector<double> floor = peakFloorBytes(graph);
      if (!floor.empty() && *std::max_element(floor.begin(), floor.end()) > cluster_.gpu.memoryBytes) {
        ++result_.notFitting;
        continue;
      }
      TrainingEstimate e = estimateTraining(model_, candidate.config, pricer_, graph);
      ++result_.simulated;
      if (!e.memory.fits) {
        ++result_.notFitting;
        continue;
      }
      ++result_.fitting;
      // Keep the best `top`, sorted: insert in place, drop the slowest.
      if (static_cast<int>(best.size()) == search_.top && !faster(e, best.back())) continue;
      best.insert(std::upper_bound(best.begin(), best.end(), e, faster), std::move(e));
      if (static_cast<int>(best.size()) > search_.top) best.pop_back();
    }
  }

 private:
  // One layout: kept as a candidate if resolve() accepts it and its model states alone fit, on the
  // GPU and, what is offloaded there, in the host's memory (lower bounds of the step's own).
  void consider(TrainConfig c, std::vector<Candidate>& candidates) {
    ++result_.explored;
    try {
      resolve(c, model_, cluster_);
    } catch (const InputError&) {
      ++result_.notDividing;
      return;
    }
    const double parameters = static_cast<double>(model_.parameters());
    if (!modelStates(parametersPerModelShard(model_, c, parameters), c, cluster_).fits) {
      ++result_.notFitting;
      return;
    }
    candidates.push_back({closedFormStep(model_, c, pricer_).total, std::move(c)});
  }

  const ModelCard& model_;
  const TrainConfig& base_;
  TrainingPricer& pricer_;
  const Cluster& cluster_;
  const PlanSearch& search_;
  PlanResult& result_;
  const bool shaped_;
};

}  // namespace

PlanResult plan(const ModelCard& model, const TrainConfig& base, TrainingPricer& pricer, const PlanSearch& search) {
  PlanResult result;
  LayoutSearch layouts(model, base, pricer, search, result);
  // First where the settings place the states (a DeepSpeed config's offload; the GPUs by default).
  const StatePlacement given{base.offloadOptimizer, base.offloadParams, base.checkpointsOnHost, base.tiles, base.offloadPinned,
                             swapperPipelined(base)};
  std::vector<LayoutSearch::Candidate> asGiven;
  layouts.enumerate(given, asGiven);
  layouts.simulate(asGiven);
  // Nothing fits on the GPUs alone: search again with the states offloaded (slower, so only then).
  const bool onGpus = given.optimizer == OffloadTarget::None && !given.checkpointsOnHost && given.tiles == 1;
  if (result.best.empty() && onGpus && model.architecture != Architecture::Given && !base.statesOnly) {
    std::vector<LayoutSearch::Candidate> offloading;
    for (const StatePlacement& placement : offloadedPlacements(pricer.cluster())) layouts.enumerate(placement, offloading);
    result.offloaded = !offloading.empty();
    layouts.simulate(offloading);
  }
  return result;
}

}  // namespace cclab::sim
