#pragma once

// Which ranks a rank's collectives span, numbered as Megatron-LM numbers them: tensor-parallel
// ranks adjacent, then data-parallel, then pipeline stages,
//   rank = t + tp * (d + dp * s)   (t: tensor index, d: data-parallel index, s: stage).
// ZeRO-3/FSDP's shard group is the data-parallel group, except under HYBRID_SHARD, where it is
// `shardRanks` consecutive data-parallel indices (one node's) and the replica group joins the
// same position of every shard group. Pure arithmetic: unit-tested without MPI.

#include <vector>

#include "sim/training/step_graph.h"
#include "sim/training/train_config.h"

namespace cclab::bench {

struct RankCoordinates {
  int tensor = 0, data = 0, stage = 0;
};

struct RankLayout {
  int tp = 1, dp = 1, pp = 1;
  int shardRanks = 1;  // the shard group's size (HYBRID_SHARD: one node's data-parallel ranks)

  static RankLayout of(const sim::TrainConfig& config, const sim::Placement& placement);
  int ranks() const { return tp * dp * pp; }
  RankCoordinates coordinates(int rank) const;
  int rank(RankCoordinates c) const { return c.tensor + tp * (c.data + dp * c.stage); }
  // The world ranks of `rank`'s group of kind `group`, in group order (a collective's rank i is
  // members[i]); for Group::Pipeline, the same tensor and data index on every stage.
  std::vector<int> members(sim::Group group, int rank) const;
  // A colour that two ranks share exactly when they are in the same group (MPI_Comm_split).
  int color(sim::Group group, int rank) const;
};

}  // namespace cclab::bench
