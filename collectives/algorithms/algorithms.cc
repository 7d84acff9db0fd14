#include "collectives/algorithms/algorithms.h"

#include <algorithm>
#include <array>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "collectives/errors.h"

namespace cclab {
namespace {

constexpr std::array kAlgorithms = {
    Algorithm{Collective::AllReduce, "ring", "ring", ringAllReduce},
    Algorithm{Collective::ReduceScatter, "ring", "ring", ringReduceScatter},
    Algorithm{Collective::AllGather, "ring", "ring", ringAllGather},
    Algorithm{Collective::Broadcast, "chain", "ring", chainBroadcast},
    Algorithm{Collective::Reduce, "ring", "ring", ringReduce},
    Algorithm{Collective::AllToAll, "pairwise", "ring", pairwiseAllToAll},
    Algorithm{Collective::Gather, "linear", "ring", linearGather},
    Algorithm{Collective::Scatter, "linear", "ring", linearScatter},
    Algorithm{Collective::SendRecv, "ring", "ring", ringSendRecv},
    Algorithm{Collective::AllReduce, "rd", "rd", rdAllReduce},
    Algorithm{Collective::AllReduce, "rhd", "rhd", rhdAllReduce},
    Algorithm{Collective::ReduceScatter, "rhd", "rhd", rhdReduceScatter},
    Algorithm{Collective::AllGather, "rhd", "rhd", rhdAllGather},
    Algorithm{Collective::AllGather, "bruck", "bruck", bruckAllGather},
    Algorithm{Collective::AllToAll, "bruck", "bruck", bruckAllToAll},
    Algorithm{Collective::AllReduce, "tree", "tree", treeAllReduce},
    Algorithm{Collective::Broadcast, "tree", "tree", treeBroadcast},
    Algorithm{Collective::Reduce, "tree", "tree", treeReduce},
    Algorithm{Collective::Gather, "tree", "tree", treeGather},
    Algorithm{Collective::Scatter, "tree", "tree", treeScatter},
    Algorithm{Collective::AllReduce, "hier", "hier", hierAllReduce},
    Algorithm{Collective::AllToAll, "linear", "linear", linearAllToAll},
    Algorithm{Collective::AllGather, "linear", "linear", linearAllGather},
    Algorithm{Collective::AllReduce, "linear", "linear", linearAllReduce},
};

}  // namespace

std::span<const Algorithm> allAlgorithms() { return kAlgorithms; }

std::string algorithmFamilies() {
  std::vector<std::string_view> families;
  for (const auto& algo : kAlgorithms) {
    if (std::find(families.begin(), families.end(), algo.family) == families.end()) families.push_back(algo.family);
  }
  return fmt::format("{}", fmt::join(families, ", "));
}

namespace {

const Algorithm* findOne(Collective collective, std::string_view familyOrName) {
  for (const auto& algo : kAlgorithms) {
    if (algo.collective == collective && algo.family == familyOrName) return &algo;
  }
  for (const auto& algo : kAlgorithms) {
    if (algo.collective == collective && algo.name == familyOrName) return &algo;
  }
  return nullptr;
}

}  // namespace

const Algorithm& findAlgorithm(Collective collective, std::string_view choice) {
  // A list ("tree,rhd,ring"): the first that does this collective.
  for (std::string_view rest = choice; !rest.empty();) {
    const std::size_t comma = rest.find(',');
    if (const Algorithm* algo = findOne(collective, rest.substr(0, comma))) return *algo;
    rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
  }
  std::string known;
  for (const auto& algo : kAlgorithms) {
    if (algo.collective == collective) known += fmt::format("{}{}", known.empty() ? "" : ", ", algo.name);
  }
  throw InputError(fmt::format("no cclab algorithm '{}' for {} (available: {})", choice, name(collective), known));
}

}  // namespace cclab
