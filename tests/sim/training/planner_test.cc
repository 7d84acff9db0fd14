// The planner: every plan it returns divides, fits and is sorted; nothing it skipped is faster
// than what it kept; models that fit nowhere get no plan.

#include <gtest/gtest.h>

#include "sim/training/planner.h"

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

TEST(Planner, AModelThatFitsNowhereGetsNoPlan) {
  Job j = job("llama3-405b", 1, 8, 8192);
  TrainingPricer pricer(j.cluster);
  const PlanResult r = plan(j.model, j.base, pricer);
  EXPECT_TRUE(r.best.empty());
  EXPECT_EQ(r.fitting, 0);
  EXPECT_GT(r.notFitting, 0);
}

}  // namespace
}  // namespace cclab::sim
