// The planner: every plan it returns divides, fits and is sorted; nothing it skipped is faster
// than what it kept; models that fit nowhere get no plan.

#include <gtest/gtest.h>

#include <algorithm>

#include "sim/training/planner.h"
#include "sim/training/report.h"

namespace cclab::sim {
namespace {

struct Job {
  ModelCard model;
  Cluster cluster;
  TrainConfig base;
};

Job job(const std::string& card, int nodes, int globalBatch, int seq) {
  Job j{loadModel(card), loadCluster("dgx-a100"), {}};
  reshape(j.cluster, nodes, std::nullopt);
  j.base.gpus = j.cluster.gpus();
  j.base.globalBatch = globalBatch;
  j.base.seq = seq;
  return j;
}

TEST(Planner, PlansDivideFitAndComeFastestFirst) {
  Job j = job("gpt3-175b", 128, 1536, 2048);
  TrainingPricer pricer(j.cluster);
  const PlanResult r = plan(j.model, j.base, pricer, {.top = 20});
  ASSERT_EQ(r.best.size(), 20u);
  EXPECT_FALSE(r.offloaded);  // it fits on the GPUs: nothing is offloaded
  EXPECT_EQ(r.explored, r.notDividing + r.notFitting + r.fitting + r.pruned + r.tooLarge);
  EXPECT_EQ(r.simulated, r.fitting + r.notFitting - (r.explored - r.notDividing - r.simulated - r.pruned));
  EXPECT_GT(r.pruned, 0);
  EXPECT_GT(r.notFitting, 0);
  for (std::size_t k = 0; k < r.best.size(); ++k) {
    const TrainingEstimate& e = r.best[k];
    const TrainConfig& c = e.config;
    EXPECT_EQ(c.dp * c.tp * c.pp, 1024);
    EXPECT_EQ(c.globalBatch, c.microBatch * c.accumulation * c.dp);
    EXPECT_EQ(96 % (c.pp * c.vpp), 0);
    EXPECT_EQ(96 % c.tp, 0);
    EXPECT_TRUE(e.memory.fits);
    EXPECT_EQ(offloadedStates(c), OffloadStates::None);
    EXPECT_FALSE(c.checkpointsOnHost);
    EXPECT_EQ(c.tiles, 1);
    if (k > 0) { EXPECT_GE(e.step.total, r.best[k - 1].step.total); }
  }
  // The planner's best is at least as fast as Megatron-LM's published GPT-3 layout priced alone.
  TrainConfig megatron = j.base;
  megatron.tp = 8;
  megatron.pp = 16;
  megatron.microBatch = 1;
  setZeroStage(megatron, 1);
  megatron.recompute = Recompute::Full;
  resolve(megatron, j.model, j.cluster);
  EXPECT_LE(r.best.front().step.total, estimateTraining(j.model, megatron, pricer).step.total);
}

TEST(Planner, NothingSkippedIsFaster) {
  // On one node the whole space is small: price every dividing layout directly and compare.
  Job j = job("llama2-7b", 1, 64, 4096);
  TrainingPricer pricer(j.cluster);
  const PlanResult r = plan(j.model, j.base, pricer, {.top = 1});
  ASSERT_EQ(r.best.size(), 1u);
  double fastest = 1e300;
  int fitting = 0;
  for (int tp : {1, 2, 4, 8}) {
    for (int pp : {1, 2, 4, 8}) {
      if (tp * pp > 8) continue;
      for (int zero = 0; zero <= 3; ++zero) {
        for (int micro : {1, 2, 4, 8}) {
          for (Recompute rc : {Recompute::None, Recompute::Full}) {
            TrainConfig c = j.base;
            c.tp = tp;
            c.pp = pp;
            c.microBatch = micro;
            c.recompute = rc;
            setZeroStage(c, zero);
            try {
              resolve(c, j.model, j.cluster);
            } catch (const std::exception&) {
              continue;
            }
            const TrainingEstimate e = estimateTraining(j.model, c, pricer);
            if (!e.memory.fits) continue;
            ++fitting;
            fastest = std::min(fastest, e.step.total);
          }
        }
      }
    }
  }
  EXPECT_GT(fitting, 10);
  EXPECT_LE(r.best.front().step.total, fastest);
  // Plain DDP of 7B parameters cannot fit 80 GiB (16 bytes each): the best shards or splits.
  const TrainConfig& best = r.best.front().config;
  EXPECT_TRUE(best.sharding != StateSharding::None || best.tp * best.pp > 1);
}

TEST(Planner, WhereNothingFitsOnTheGpusItOffloads) {
  // LLaMA-3 405B on one DGX A100: 6.5 TB of model states against 640 GB of GPU memory and 2 TB of
  // host memory. Nothing fits on the GPUs alone, so the planner searches again offloading, and only
  // ZeRO-Infinity with the states on the node's NVMe fits.
  Job j = job("llama3-405b", 1, 8, 8192);
  TrainingPricer pricer(j.cluster);
  const PlanResult r = plan(j.model, j.base, pricer, {.top = 5});
  EXPECT_TRUE(r.offloaded);
  ASSERT_EQ(r.best.size(), 5u);
  EXPECT_EQ(r.explored, r.notDividing + r.notFitting + r.fitting + r.pruned + r.tooLarge);
  for (std::size_t k = 0; k < r.best.size(); ++k) {
    const TrainingEstimate& e = r.best[k];
    const TrainConfig& c = e.config;
    EXPECT_TRUE(e.memory.fits);
    EXPECT_TRUE(e.memory.hostFits());
    EXPECT_EQ(c.sharding, StateSharding::Everything);
    EXPECT_EQ(offloadedStates(c), OffloadStates::OptimizerAndParameters);
    EXPECT_EQ(c.offloadOptimizer, OffloadTarget::Nvme);
    if (k > 0) { EXPECT_GE(e.step.total, r.best[k - 1].step.total); }
    // A plan is what `ccsim train` prices for its layout.
    TrainConfig again = c;
    resolve(again, j.model, j.cluster);
    EXPECT_DOUBLE_EQ(estimateTraining(j.model, again, pricer).step.total, e.step.total);
  }
  // The best swaps with DeepSpeed's pipelined swapper (pipeline_read and pipeline_write: CPU-Adam
  // beside the NVMe reads and writes); the same layout with the default swapper is slower.
  const TrainConfig& best = r.best.front().config;
  EXPECT_TRUE(best.swapReadsAhead && best.swapWritesBehind);
  EXPECT_NE(placementLabel(best).find("pipelined"), std::string::npos) << placementLabel(best);
  TrainConfig inTurn = best;
  inTurn.swapReadsAhead = inTurn.swapWritesBehind = false;
  resolve(inTurn, j.model, j.cluster);
  EXPECT_GT(estimateTraining(j.model, inTurn, pricer).step.total, r.best.front().step.total);
  // The same states kept in host memory do not fit there (256 GB a GPU): none of those is listed.
  TrainConfig host = r.best.front().config;
  host.offloadOptimizer = host.offloadParams = OffloadTarget::Cpu;
  resolve(host, j.model, j.cluster);
  EXPECT_FALSE(estimateTraining(j.model, host, pricer).memory.hostFits());
}

TEST(Planner, OffloadingToHostMemoryIsSearchedWithPinnedBuffersToo) {
  // LLaMA-2 70B on one DGX A100: 1.1 TB of model states fit neither 640 GB of GPU memory nor, with
  // the optimizer's 0.84 TB, need NVMe: the optimizer goes to the host's 2 TB. DeepSpeed's pageable
  // buffers make each gradient copy hold the host; pinned (pin_memory) they do not, so the best plan
  // is pinned, and its pageable twin, listed too, is slower by those waits.
  Job j = job("llama2-70b", 1, 64, 4096);
  TrainingPricer pricer(j.cluster);
  const PlanResult r = plan(j.model, j.base, pricer, {.top = 6});
  EXPECT_TRUE(r.offloaded);
  ASSERT_EQ(r.best.size(), 6u);
  const TrainConfig& best = r.best.front().config;
  EXPECT_EQ(best.offloadOptimizer, OffloadTarget::Cpu);
  EXPECT_TRUE(best.offloadPinned);
  auto twin = std::find_if(r.best.begin() + 1, r.best.end(), [&](const TrainingEstimate& e) {
    const TrainConfig& c = e.config;
    return !c.offloadPinned && c.dp == best.dp && c.tp == best.tp && c.pp == best.pp && c.vpp == best.vpp && c.sharding == best.sharding &&
           c.microBatch == best.microBatch && c.recompute == best.recompute && offloadedStates(c) == offloadedStates(best);
  });
  ASSERT_NE(twin, r.best.end());
  EXPECT_GT(twin->step.total, r.best.front().step.total);
  EXPECT_DOUBLE_EQ(twin->memory.total, r.best.front().memory.total);  // pinning moves no byte
  // Only an optimizer in host memory is pinned, only one on NVMe pipelined; the table and the
  // layout line say so.
  for (const TrainingEstimate& e : r.best) {
    if (e.config.offloadPinned) { EXPECT_EQ(e.config.offloadOptimizer, OffloadTarget::Cpu); }
    if (e.config.swapReadsAhead) { EXPECT_EQ(e.config.offloadOptimizer, OffloadTarget::Nvme); }
  }
  EXPECT_NE(placementLabel(best).find("pinned"), std::string::npos) << placementLabel(best);
  EXPECT_NE(describeLayout(best).find("pinned"), std::string::npos) << describeLayout(best);
  // The plan is the step `ccsim train --pin-memory on` prices.
  TrainConfig again = best;
  resolve(again, j.model, j.cluster);
  EXPECT_DOUBLE_EQ(estimateTraining(j.model, again, pricer).step.total, r.best.front().step.total);
}

TEST(Planner, AModelThatFitsNowhereGetsNoPlan) {
  // The same job on nodes whose host links are not described: nothing can be offloaded either.
  Job j = job("llama3-405b", 1, 8, 8192);
  j.cluster.host = {};
  TrainingPricer pricer(j.cluster);
  const PlanResult r = plan(j.model, j.base, pricer);
  EXPECT_TRUE(r.best.empty());
  EXPECT_FALSE(r.offloaded);
  EXPECT_EQ(r.fitting, 0);
  EXPECT_GT(r.notFitting, 0);
}

}  // namespace
}  // namespace cclab::sim
