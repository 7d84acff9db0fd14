// Trees. all_reduce: NCCL's double binary tree — a chain inside each node and two binary trees
// across nodes, each carrying half the data up (reduce) and down (broadcast): 2S through each
// port, with 2(g-1) intra-node and 2 log2(p) inter-node latencies. broadcast / reduce: a binomial
// tree, log2(n) rounds in which the root sends (or receives) the whole buffer. gather / scatter:
// a binomial tree, log2(n) rounds, the root's port carrying (n-1)/n of the buffer.

#include <algorithm>
#include <bit>
#include <vector>

#include "sim/algorithms/algorithms.h"

namespace cclab::sim {
namespace {

// The binomial tree's longest sequence of writes where every rank writes its messages itself, one
// after another in the order it posts them (the farthest child first), and a child forwards once
// it has all of its data, counted in the units of `blocksTo(v, m)`: what the message from
// distance v to v + m carries. (collectives/algorithms/tree_broadcast.cc, tree_scatter.cc)
template <typename Blocks>
double binomialWritePath(int g, Blocks blocksTo) {
  std::vector<double> has(static_cast<std::size_t>(g), 0.0);  // when distance v has its data
  double longest = 0;
  for (int v = 0; v < g; ++v) {
    int mask = 1;
    while (mask < g && (v & mask) == 0) mask *= 2;
    double written = has[static_cast<std::size_t>(v)];
    for (mask /= 2; mask > 0; mask /= 2) {
      if (v + mask >= g) continue;
      written += blocksTo(v, mask);
      has[static_cast<std::size_t>(v + mask)] = written;
      longest = std::max(longest, written);
    }
  }
  return longest;
}

// The binomial tree's depth over g ranks: a rank v is popcount(v) hops from the root (each hop
// clears its lowest set bit), so the most set bits of any v < g.
int binomialDepth(int g) {
  int depth = 0;
  for (int v = 1; v < g; ++v) depth = std::max(depth, std::popcount(static_cast<unsigned>(v)));
  return depth;
}

// The message ends (sends and receives) of the busiest core in a binomial tree rooted at rank 0,
// ranks round-robin over the cores: rank v exchanges with its parent v - lowbit(v) and with each
// child v + m, m a power of two below lowbit(v) (every power of two below g for the root).
double binomialBusiestCoreEnds(int g, int cores) {
  return busiestCoreLoad(g, cores, [g](int v) {
    const int low = v == 0 ? g : v & -v;  // the root's children span the whole tree
    double ends = v > 0 ? 1 : 0;
    for (int m = 1; m < low && v + m < g; m *= 2) ++ends;
    return ends;
  });
}

// Shared memory, one copy a message: the buffers a binomial broadcast's busiest core copies, every
// rank but the root reading the whole buffer once on its own core, and the root copying its input
// to its output beside them where it does (Transfer::rootCopiesBeside).
double binomialBroadcastCoreCopies(int g, int cores, bool rootCopies) {
  return busiestCoreLoad(g, cores, [rootCopies](int v) { return v > 0 || rootCopies ? 1.0 : 0.0; });
}

// Shared memory, one copy a message: the share of a binomial gather's or scatter's message bytes
// read out of a scratch run this call wrote. A rank v's subtree is min(lowbit(v), g - v) blocks; a
// gather's leaf sends its input and every larger subtree its run; a scatter's root sends its
// input, every other parent the run it received (collectives/algorithms/tree_gather.cc, tree_scatter.cc).
double binomialRunShare(int g, Collective c) {
  double all = 0, fresh = 0;
  for (int v = 1; v < g; ++v) {
    const int low = v & -v;
    const int subtree = std::min(low, g - v);
    all += subtree;
    if (c == Collective::Gather ? subtree > 1 : v != low) fresh += subtree;
  }
  return all > 0 ? fresh / all : 0.0;
}

// Shared memory, one copy a message: the copies of a binomial gather or scatter in blocks, as the
// ranks make them on their cores (rank r on core r mod cores, root 0), each rank's in program
// order, each core one at a time, a copy starting as soon as its data is there and its core is
// free. A receiver copies each message out of its sender's memory:
//   scatter: rank v copies its subtree's run (min(lowbit(v), g - v) blocks) once its parent has
//            it, then, with a subtree, its own block out of the run;
//   gather:  a rank with a subtree copies its own block into its run, then each child's run in
//            turn once the child has collected it (a leaf sends its input: no copy);
// and out of place the root copies its own block (rootCopies), first.
// (collectives/algorithms/tree_gather.cc, tree_scatter.cc)
double binomialRunCopies(int g, int cores, bool rootCopies, Collective c) {
  struct Copy {
    int rank;
    double blocks;
    int after;  // the copy whose data this one reads (-1: none)
  };
  std::vector<Copy> copies;
  std::vector<int> last(static_cast<std::size_t>(g), -1);  // each rank's last copy so far
  auto add = [&](int rank, double blocks, int after) {
    copies.push_back({rank, blocks, after});
    last[static_cast<std::size_t>(rank)] = static_cast<int>(copies.size()) - 1;
  };
  auto subtree = [g](int v) { return std::min(v & -v, g - v); };
  if (c == Collective::Scatter) {
    if (rootCopies) add(0, 1, -1);
    // Parents before children: v's parent v - lowbit(v) is smaller.
    for (int v = 1; v < g; ++v) {
      const int parent = v - (v & -v);
      add(v, subtree(v), parent == 0 ? -1 : last[static_cast<std::size_t>(parent)]);
      const int received = last[static_cast<std::size_t>(v)];
      if (subtree(v) > 1) add(v, 1, -1);
      last[static_cast<std::size_t>(v)] = received;  // what v's children wait for: its run
    }
  } else {
    // Children before parents: v's children v + m are larger.
    for (int v = g - 1; v >= 0; --v) {
      if (v > 0 && subtree(v) == 1) continue;
      if (v > 0 || rootCopies) add(v, 1, -1);  // its own block: into its run, or the root's out of place
      const int low = v == 0 ? g : v & -v;
      for (int m = 1; m < low && v + m < g; m *= 2) add(v, subtree(v + m), last[static_cast<std::size_t>(v + m)]);
    }
  }
  // Greedy list scheduling: of the copies next in their rank's order whose data is there, the one
  // that can start first. Program order per rank is the order added, except that the gather adds
  // ranks from the last: copies of one rank are contiguous either way.
  const int c2 = std::max(1, std::min(cores, g));
  std::vector<double> finish(copies.size(), -1), coreFree(static_cast<std::size_t>(c2), 0), rankFree(static_cast<std::size_t>(g), 0);
  std::vector<bool> done(copies.size(), false);
  double end = 0;
  for (std::size_t scheduled = 0; scheduled < copies.size(); ++scheduled) {
    std::size_t best = copies.size();
    double bestStart = 0;
    for (std::size_t i = 0; i < copies.size(); ++i) {
      const Copy& copy = copies[i];
      if (done[i] || (copy.after >= 0 && !done[static_cast<std::size_t>(copy.after)])) continue;
      if (i > 0 && copies[i - 1].rank == copy.rank && !done[i - 1]) continue;  // its rank's earlier copy first
      const double ready = std::max(rankFree[static_cast<std::size_t>(copy.rank)], copy.after >= 0 ? finish[static_cast<std::size_t>(copy.after)] : 0.0);
      const double start = std::max(ready, coreFree[static_cast<std::size_t>(copy.rank % c2)]);
      if (best == copies.size() || start < bestStart) best = i, bestStart = start;
    }
    const Copy& copy = copies[best];
    finish[best] = bestStart + copy.blocks;
    done[best] = true;
    coreFree[static_cast<std::size_t>(copy.rank % c2)] = rankFree[static_cast<std::size_t>(copy.rank)] = finish[best];
    end = std::max(end, finish[best]);
  }
  return end;
}

double binomialGatherCopies(int g, int cores, bool rootCopies) { return binomialRunCopies(g, cores, rootCopies, Collective::Gather); }
double binomialScatterCopies(int g, int cores, bool rootCopies) { return binomialRunCopies(g, cores, rootCopies, Collective::Scatter); }

}  // namespace

bool planTree(Collective c, const Shape& s, double bytes, Plan& plan) {
  const int n = s.ranks, p = s.nodes, g = s.perNode();
  const double f = static_cast<double>(n - 1) / n;
  const double intraRounds = log2Ceil(g), interRounds = log2Ceil(p);
  Phase& phase = plan.addPhase();
  switch (c) {
    case Collective::AllReduce: {
      // Inside the node each port carries the buffer up and down twice (a rank inner in one tree
      // and a leaf in the other, or in the middle of the node's chain); of two ranks on one node
      // each is one tree's root and the other's leaf: once. On shared memory the trees are flows,
      // the node's messages the half buffer up and down every edge of both trees.
      const double passes = g == 2 && p == 1 ? 1 : 2;
      Transfer intra{LinkClass::Intra, 2.0 * (g - 1), passes * bytes * (p > 1 ? static_cast<double>(g - 1) / g : 1.0), n};
      intra.critical.nodeMessages = 2.0 * (g - 1) * bytes;
      // Up the trees the leaves send their input, every other message is this call's.
      intra.freshShare = g > 1 ? 1.0 - 1.0 / (2.0 * (g - 1)) : 0.0;
      phase.add(intra);
      if (p > 1) phase.add({LinkClass::Inter, 2 * interRounds, 2 * bytes, n});
      phase.reduceBytes = bytes;
      return true;
    }
    case Collective::Broadcast:
    case Collective::Reduce: {
      Transfer intra{LinkClass::Intra, intraRounds, intraRounds * bytes, n};
      intra.allPairs = true;  // binomial partners are far apart
      intra.busiestCoreEnds = binomialBusiestCoreEnds;
      // One GPU under all: every one of the g - 1 non-root ranks' buffers is copied (and, in a
      // reduce, reduced) once, over fewer rounds.
      intra.critical.sharedDevice = (g - 1) * bytes;
      // Of the depth's hops in sequence, the first reads an input (the root's, a leaf's), the
      // others what a rank received or reduced in this call.
      intra.freshShare = afterTheFirst(binomialDepth(g));
      if (c == Collective::Broadcast && g > 1) {
        // On shared memory the receivers copy: a rank v receives from v - lowbit(v) once its
        // parent has the data, so the copies on the critical path are the most set bits of any
        // v < g, and the g - 1 copies spread over that many levels.
        const int depth = binomialDepth(g);
        intra.critical.oneCopyReceiver = depth * bytes;
        intra.copiers = (g - 1 + depth - 1) / depth;
        intra.critical.twoCopyWriter = binomialWritePath(g, [](int, int) { return 1.0; }) * bytes;
        intra.devicePullSteps = depth;
        intra.critical.busiestCoreCopies = binomialBroadcastCoreCopies;
        intra.critical.receiverCopy = bytes;
      } else if (c == Collective::Reduce) {
        // Each round's receivers reduce at once, the most (g / 2) in the first; the root receives
        // in every round, one after another. In a round a rank sends or receives; on shared
        // memory the g - 1 buffers sent are the node's work, shared by its cores.
        intra.copiers = std::max(1, g / 2);
        intra.sharedMemorySteps = binomialDepth(g);  // toward the root: its depth in sequence
        intra.oneWay = true;
        intra.critical.nodeMessages = (g - 1) * bytes;
        intra.critical.rootInSequence = intraRounds * bytes;  // the root reduces each child's buffer in turn
      }
      phase.add(intra);
      if (p > 1) phase.add({LinkClass::Inter, interRounds, interRounds * bytes, n});
      if (c == Collective::Reduce) phase.reduceBytes = (intraRounds + interRounds) * bytes;
      return true;
    }
    case Collective::Gather:
    case Collective::Scatter: {
      // Two copies a message: the root writes (reads) its node's other blocks itself, one message
      // after another; the scatter's forwarding ranks write theirs while it does.
      Transfer intra{LinkClass::Intra, intraRounds, f * bytes, n};
      intra.busiestCoreEnds = binomialBusiestCoreEnds;
      if (c == Collective::Gather) intra.sharedMemorySteps = binomialDepth(g);  // toward the root: its depth in sequence
      intra.freshShare = binomialRunShare(g, c);
      const double block = bytes / n;
      // One copy a message: the receivers' copies as their cores make them, beside one another
      // (a scatter's leaves, a gather's subtrees), not the root's port's (g - 1) blocks in turn.
      intra.critical.oneCopyReceiver = binomialRunCopies(g, g, false, c) * block;
      intra.critical.scheduledCopies = c == Collective::Gather ? binomialGatherCopies : binomialScatterCopies;
      intra.critical.receiverCopy = block;
      intra.critical.twoCopyWriter = c == Collective::Scatter
                                   ? binomialWritePath(g, [g](int v, int m) { return static_cast<double>(std::min(m, g - v - m)); }) * block
                                   : (g - 1) * block;
      phase.add(intra);
      if (p > 1) phase.add({LinkClass::Inter, interRounds, static_cast<double>(n - g) / n * bytes, n});
      return true;
    }
    default:
      return false;
  }
}

}  // namespace cclab::sim
