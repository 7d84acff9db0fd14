#include "collectives/algorithms/algorithms.h"

#include <algorithm>
#include <array>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "collectives/errors.h"

namespace cclab {
namespace {

// The copies each algorithm makes (InputCopies), read off its file: out of place the all_gathers
// copy their own block (the all_reduces do not copy their input: their first reduction reads it
// where it is and writes the output); in place the alltoalls read their input from a copy and the
// sendrecv sends from one.
constexpr InputCopies kNone{}, kWhole{1, 0}, kBlock{0, 1}, kWholeAndBlock{1, 1};
constexpr std::array kAlgorithms = {
    Algorithm{Collective::AllReduce, "ring", "ring", ringAllReduce},
    Algorithm{Collective::ReduceScatter, "ring", "ring", ringReduceScatter},
    Algorithm{Collective::AllGather, "ring", "ring", ringAllGather, kBlock, kNone},
    Algorithm{Collective::Broadcast, "chain", "ring", chainBroadcast},
    Algorithm{Collective::Reduce, "ring", "ring", ringReduce},
    Algorithm{Collective::AllToAll, "pairwise", "ring", pairwiseAllToAll, kBlock, kWholeAndBlock},
    Algorithm{Collective::Gather, "linear", "ring", linearGather},
    Algorithm{Collective::Scatter, "linear", "ring", linearScatter},
    Algorithm{Collective::SendRecv, "ring", "ring", ringSendRecv, kNone, kWhole},
    Algorithm{Collective::AllReduce, "rd", "rd", rdAllReduce},
    Algorithm{Collective::AllReduce, "rhd", "rhd", rhdAllReduce},
    // This rank's block out of its work buffer at the end.
    Algorithm{Collective::ReduceScatter, "rhd", "rhd", rhdReduceScatter, kBlock, kBlock},
    Algorithm{Collective::AllGather, "rhd", "rhd", rhdAllGather, kBlock, kNone},
    Algorithm{Collective::AllGather, "bruck", "bruck", bruckAllGather},
    Algorithm{Collective::AllToAll, "bruck", "bruck", bruckAllToAll},
    Algorithm{Collective::AllReduce, "tree", "tree", treeAllReduce},
    Algorithm{Collective::Broadcast, "tree", "tree", treeBroadcast},
    Algorithm{Collective::Reduce, "tree", "tree", treeReduce},
    Algorithm{Collective::Gather, "tree", "tree", treeGather},
    Algorithm{Collective::Scatter, "tree", "tree", treeScatter},
    // Copies its input out of place only where a node holds one rank (--ranks-per-node 1): not listed.
    Algorithm{Collective::AllReduce, "hier", "hier", hierAllReduce},
    Algorithm{Collective::AllToAll, "linear", "linear", linearAllToAll, kBlock, kWholeAndBlock},
    Algorithm{Collective::AllGather, "linear", "linear", linearAllGather, kBlock, kNone},
    // Its own input into the slot its sends read, in either placement.
    Algorithm{Collective::AllReduce, "linear", "linear", linearAllReduce, kWhole, kWhole},
    // Its own block into the slot the reduction reads, in either placement.
    Algorithm{Collective::ReduceScatter, "linear", "linear", linearReduceScatter, kBlock, kBlock},
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

const Algorithm* findAlgorithmNamed(Collective collective, std::string_view name) {
  for (const auto& algo : kAlgorithms) {
    if (algo.collective == collective && algo.name == name) return &algo;
  }
  return nullptr;
}

namespace {

const Algorithm* findOne(Collective collective, std::string_view familyOrName) {
  for (const auto& algo : kAlgorithms) {
    if (algo.collective == collective && algo.family == familyOrName) return &algo;
  }
  return findAlgorithmNamed(collective, familyOrName);
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
