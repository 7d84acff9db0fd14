// ccbench train's pure parts: the Megatron-LM numbering of ranks into groups, and its command
// line (ccsim train's settings plus the run's own flags).

#include <gtest/gtest.h>

#include <sstream>

#include "bench/train/rank_groups.h"
#include "bench/train/train_options.h"
#include "collectives/errors.h"

namespace cclab::bench {
namespace {

using sim::Group;

TEST(RankLayout, NumbersTensorRanksFirstThenDataParallelThenStages) {
  // tp 2 x dp 2 x pp 2 on 8 ranks, as Megatron-LM's initialize_model_parallel lays them out.
  const RankLayout l{2, 2, 2, 2};
  EXPECT_EQ(l.rank({1, 0, 0}), 1);
  EXPECT_EQ(l.rank({0, 1, 0}), 2);
  EXPECT_EQ(l.rank({0, 0, 1}), 4);
  EXPECT_EQ(l.coordinates(7).tensor, 1);
  EXPECT_EQ(l.coordinates(7).data, 1);
  EXPECT_EQ(l.coordinates(7).stage, 1);
  EXPECT_EQ(l.members(Group::Tensor, 5), (std::vector<int>{4, 5}));
  EXPECT_EQ(l.members(Group::Data, 5), (std::vector<int>{5, 7}));
  EXPECT_EQ(l.members(Group::Pipeline, 5), (std::vector<int>{1, 5}));
  EXPECT_EQ(l.members(Group::Shard, 5), l.members(Group::Data, 5));
  // Every rank is in exactly one group of each kind, and the colours tell the groups apart.
  for (Group g : {Group::Tensor, Group::Data, Group::Shard, Group::Replica, Group::Pipeline}) {
    for (int r = 0; r < l.ranks(); ++r) {
      for (int member : l.members(g, r)) EXPECT_EQ(l.color(g, member), l.color(g, r));
    }
  }
  EXPECT_NE(l.color(Group::Tensor, 0), l.color(Group::Tensor, 2));
}

TEST(RankLayout, HybridShardSplitsDataParallelIntoShardAndReplicaGroups) {
  // dp 8 with shard groups of 4 (one node's ranks): ranks 0-3 and 4-7 shard; i and i+4 replicate.
  const RankLayout l{1, 8, 1, 4};
  EXPECT_EQ(l.members(Group::Shard, 6), (std::vector<int>{4, 5, 6, 7}));
  EXPECT_EQ(l.members(Group::Replica, 6), (std::vector<int>{2, 6}));
  EXPECT_EQ(l.members(Group::Data, 6).size(), 8u);
}

std::optional<TrainOptions> parse(std::vector<const char*> args) {
  args.insert(args.begin(), {"ccbench", "train"});
  std::ostringstream help;
  return parseTrainOptions(static_cast<int>(args.size()), args.data(), help);
}

TEST(TrainOptions, TakesCcsimTrainsSettingsAndTheRunsFlags) {
  const auto o = parse({"--model", "gpt2", "--cluster", "dgx-a100", "--tp", "2", "--zero", "3", "--scale", "4", "--compute", "sleep", "-w", "2",
                        "-n", "7", "-c", "1", "-T", "9", "--backend", "cclab", "-J", "r.json", "--trace", "t.json"});
  ASSERT_TRUE(o);
  EXPECT_EQ(o->settings.model, "gpt2");
  EXPECT_EQ(*o->settings.tp, 2);
  EXPECT_EQ(*o->settings.zero, 3);
  EXPECT_EQ(*o->settings.scale, 4);
  EXPECT_EQ(o->compute, ComputeMode::Sleep);
  EXPECT_EQ(o->warmup, 2);
  EXPECT_EQ(o->iters, 7);
  EXPECT_EQ(o->check, 1);
  EXPECT_EQ(o->timeoutS, 9);
  EXPECT_EQ(o->backend, "cclab");
  EXPECT_EQ(o->jsonPath, "r.json");
  EXPECT_EQ(o->tracePath, "t.json");
  EXPECT_FALSE(parse({"--help"}));
}

TEST(TrainOptions, BadFlagsAreInputErrors) {
  EXPECT_THROW(parse({"--model", "gpt2", "--compute", "fast"}), InputError);
  EXPECT_THROW(parse({"--model", "gpt2", "-n", "0"}), InputError);
  EXPECT_THROW(parse({"--model", "gpt2", "-c", "2"}), InputError);
  EXPECT_THROW(parse({"--model", "gpt2", "--scale", "0"}), InputError);
  EXPECT_THROW(parse({"--model", "gpt2", "--device", "cuda"}), InputError);
  EXPECT_THROW(parse({"--model", "gpt2", "--backend", "gloo"}), InputError);
  EXPECT_THROW(parse({"--params", "1e9"}), InputError);
  EXPECT_THROW(parse({"--model", "gpt2", "--frobnicate"}), InputError);
}

}  // namespace
}  // namespace cclab::bench
