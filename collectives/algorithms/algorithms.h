#pragma once

// cclab's own collective algorithms, one per file, each a plain function over a Context. The
// registry below is what `ccbench --backend cclab --algo <name>` chooses from; its names are the
// simulator's (sim/algorithms), so `--algo` means the same in ccbench and ccsim.

#include <span>
#include <string>
#include <string_view>

#include "collectives/context.h"
#include "collectives/vocabulary.h"

namespace cclab {

using AlgorithmFn = void (*)(Context& ctx, const CollectiveArgs& args);

struct Algorithm {
  Collective collective;
  std::string_view name;    // what ran, as the simulator names it: "ring", "chain", "rhd", "tree", ...
  std::string_view family;  // what --algo selects besides the name: "ring" is every collective's default
  AlgorithmFn run;
};

std::span<const Algorithm> allAlgorithms();
// The families --algo accepts, each once, in registry order ("ring, ...").
std::string algorithmFamilies();
// The algorithm of `family` (or of that exact name) for a collective; `choice` may be a comma list
// ("tree,rhd,ring"), of which the first that does the collective is taken. Throws InputError if none.
const Algorithm& findAlgorithm(Collective collective, std::string_view choice);

// The ring family (see docs/algorithms.md for the steps and bytes on the wire of each).
void ringAllReduce(Context& ctx, const CollectiveArgs& args);
void ringReduceScatter(Context& ctx, const CollectiveArgs& args);
void ringAllGather(Context& ctx, const CollectiveArgs& args);
void chainBroadcast(Context& ctx, const CollectiveArgs& args);
void ringReduce(Context& ctx, const CollectiveArgs& args);
void pairwiseAllToAll(Context& ctx, const CollectiveArgs& args);
void linearAllToAll(Context& ctx, const CollectiveArgs& args);
void linearAllGather(Context& ctx, const CollectiveArgs& args);
void linearAllReduce(Context& ctx, const CollectiveArgs& args);
void linearGather(Context& ctx, const CollectiveArgs& args);
void linearScatter(Context& ctx, const CollectiveArgs& args);
void ringSendRecv(Context& ctx, const CollectiveArgs& args);

// Latency-optimal and hierarchical algorithms (docs/algorithms.md).
void rdAllReduce(Context& ctx, const CollectiveArgs& args);
void rhdAllReduce(Context& ctx, const CollectiveArgs& args);
void rhdReduceScatter(Context& ctx, const CollectiveArgs& args);
void rhdAllGather(Context& ctx, const CollectiveArgs& args);
void bruckAllGather(Context& ctx, const CollectiveArgs& args);
void bruckAllToAll(Context& ctx, const CollectiveArgs& args);
void treeAllReduce(Context& ctx, const CollectiveArgs& args);
void treeBroadcast(Context& ctx, const CollectiveArgs& args);
void treeReduce(Context& ctx, const CollectiveArgs& args);
void treeGather(Context& ctx, const CollectiveArgs& args);
void treeScatter(Context& ctx, const CollectiveArgs& args);
void hierAllReduce(Context& ctx, const CollectiveArgs& args);

}  // namespace cclab
