#include "bench/train/rank_groups.h"

namespace cclab::bench {

RankLayout RankLayout::of(const sim::TrainConfig& config, const sim::Placement& placement) {
  RankLayout l;
  l.tp = config.tp;
  l.dp = config.dp;
  l.pp = config.pp;
  l.shardRanks = placement.replicas > 1 ? placement.shardRanks : config.dp;
  return l;
}

RankCoordinates RankLayout::coordinates(int rank) const {
  return {rank % tp, (rank / tp) % dp, rank / (tp * dp)};
}

std::vector<int> RankLayout::members(sim::Group group, int rank) const {
  const RankCoordinates me = coordinates(rank);
  std::vector<int> out;
  switch (group) {
    case sim::Group::Tensor:
      for (int t = 0; t < tp; ++t) out.push_back(this->rank({t, me.data, me.stage}));
      break;
    case sim::Group::Data:
      for (int d = 0; d < dp; ++d) out.push_back(this->rank({me.tensor, d, me.stage}));
      break;
    case sim::Group::Shard: {
      const int first = me.data / shardRanks * shardRanks;
      for (int d = first; d < first + shardRanks; ++d) out.push_back(this->rank({me.tensor, d, me.stage}));
      break;
    }
    case sim::Group::Replica:
      for (int d = me.data % shardRanks; d < dp; d += shardRanks) out.push_back(this->rank({me.tensor, d, me.stage}));
      break;
    case sim::Group::Pipeline:
      for (int s = 0; s < pp; ++s) out.push_back(this->rank({me.tensor, me.data, s}));
      break;
  }
  return out;
}

int RankLayout::color(sim::Group group, int rank) const {
  // The group's first member names it: members() lists them in rank order, and no two groups of
  // one kind share a member.
  return members(group, rank).front();
}

}  // namespace cclab::bench
