#include "sim/training/planner.h"

#include <algorithm>

#include "collectives/errors.h"
#include "sim/training/step_graph.h"

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

}  // namespace

PlanResult plan(const ModelCard& model, const TrainConfig& base, TrainingPricer& pricer, const PlanSearch& search) {
  const Cluster& cluster = pricer.cluster();
  PlanResult result;
  const bool shaped = model.architecture != Architecture::Given;
  const int gpus = base.gpus;
  const double parameters = static_cast<double>(model.parameters());
  struct Candidate {
    double lowerBound;  // the closed forms' step time
    TrainConfig config;
  };
  std::vector<Candidate> candidates;
  // Tensor parallelism stays inside a node; pipeline stages are at most the layers (a split that
  // does not divide them gives the ends one layer fewer). resolve() judges the rest (heads,
  // key/value heads, batch, interleaving, ZeRO-3 with pipelines), so the rules live in one place.
  for (int tp : divisors(gpus, shaped ? cluster.gpusPerNode : 1)) {
    for (int pp : divisors(gpus / tp, shaped ? model.layers : 1)) {
      const int dp = gpus / (tp * pp);
      if (base.globalBatch % dp != 0) {
        ++result.explored;
        ++result.notDividing;
        continue;
      }
      const std::vector<int> chunks = pp > 1 ? divisors(model.layers / pp, model.layers) : std::vector<int>{1};
      for (int vpp : chunks) {
        for (int zero = 0; zero <= 3; ++zero) {
          for (int micro : divisors(base.globalBatch / dp, search.maxMicroBatch)) {
            for (Recompute recompute : {Recompute::None, Recompute::Selective, Recompute::Full}) {
              if (!shaped && recompute != Recompute::None) continue;
              // Selective recompute recomputes the attention scores a fused kernel never stores:
              // with flash attention it is the same layout as no recompute.
              if (base.flashAttention && recompute == Recompute::Selective) continue;
              ++result.explored;
              TrainConfig c = base;
              c.dp = dp;
              c.tp = tp;
              c.pp = pp;
              c.vpp = vpp;
              c.schedule = vpp > 1 ? Schedule::Interleaved : Schedule::OneFOneB;
              setZeroStage(c, zero);
              c.microBatch = micro;
              c.recompute = recompute;
              try {
                resolve(c, model, cluster);
              } catch (const InputError&) {
                ++result.notDividing;
                continue;
              }
              // Model states alone must fit (a lower bound on the timeline's peak memory).
              if (modelStates(parametersPerModelShard(model, c, parameters), c, cluster).total > cluster.gpu.memoryBytes) {
                ++result.notFitting;
                continue;
              }
              candidates.push_back({closedFormStep(model, c, pricer).total, c});
            }
          }
        }
      }
    }
  }

  // Simulate the candidates fastest first by their closed forms, which no overlap or overhead can
  // beat; once the next one's closed form is slower than the slowest plan kept, no later one can
  // enter the list.
  std::sort(candidates.begin(), candidates.end(), [](const Candidate& a, const Candidate& b) { return a.lowerBound < b.lowerBound; });
  for (const Candidate& candidate : candidates) {
    if (static_cast<int>(result.best.size()) == search.top && candidate.lowerBound >= result.best.back().step.total) {
      ++result.pruned;
      continue;
    }
    if (estimatedStepTasks(model, candidate.config) > kMaxStepTasks) {  // too many micro-batches to simulate
      ++result.tooLarge;
      continue;
    }
    TrainingEstimate e = estimateTraining(model, candidate.config, pricer);
    ++result.simulated;
    if (!e.memory.fits) {
      ++result.notFitting;
      continue;
    }
    ++result.fitting;
    // Keep the best `top`, sorted: insert in place, drop the slowest.
    if (static_cast<int>(result.best.size()) == search.top && !faster(e, result.best.back())) continue;
    result.best.insert(std::upper_bound(result.best.begin(), result.best.end(), e, faster), std::move(e));
    if (static_cast<int>(result.best.size()) > search.top) result.best.pop_back();
  }
  return result;
}

}  // namespace cclab::sim
