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

// The backend name of results these algorithms measured (ccbench --backend cclab) and of the
// calibration entries fitted on them.
inline constexpr std::string_view kOwnBackend = "cclab";

// The device copies every rank makes of its own data besides its transfers: `whole` copies of the
// call's size S and `blocks` copies of one rank's block (S/n). The simulator plans them
// (Predictor::plan), so a calibration prices them apart from the transfers: on a GPU each is a
// copy in its memory with a fixed cost of its own. Bruck's rotations are in its plan already, and
// a rooted collective's copies (by the root or the leaves, overlapped with the next call) are not
// listed.
struct InputCopies {
  int whole = 0;
  int blocks = 0;
  int count() const { return whole + blocks; }
};

struct Algorithm {
  Collective collective;
  std::string_view name;    // what ran, as the simulator names it: "ring", "chain", "rhd", "tree", ...
  std::string_view family;  // what --algo selects besides the name: "ring" is every collective's default
  AlgorithmFn run;
  InputCopies outOfPlaceCopies{};  // out of place (send and receive buffers apart)
  InputCopies inPlaceCopies{};     // in place
};
// The algorithm of that simulator name for a collective, or null (e.g. nvls: not cclab's).
const Algorithm* findAlgorithmNamed(Collective collective, std::string_view name);

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
void linearReduceScatter(Context& ctx, const CollectiveArgs& args);
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
