#pragma once

// What a collective algorithm costs before any link is priced: its phases, and in each phase the
// messages in sequence (latency) and the bytes through the busiest port of each link class
// (bandwidth). docs/simulator.md tabulates the plan of every algorithm.

#include <array>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>

#include "sim/cluster.h"

namespace cclab::sim {

// n ranks on p nodes, g per node (ranks fill nodes in order: 0..g-1 on the first).
struct Shape {
  int ranks = 1;
  int nodes = 1;
  // Processes sharing one GPU (MPS; a measurement that runs several ranks on one device): 1 on a
  // cluster with a GPU per rank. Each further process a step keeps busy on the device adds the
  // link's oversubscribed latency to that step (pricing.h).
  int perDevice = 1;
  // Ranks per node as the hierarchical algorithm grouped them where a measurement emulated nodes
  // on one host (ccbench --ranks-per-node); 0: the real nodes. Only the grouping changes: the
  // links between emulated nodes are the host's own.
  int emulatedPerNode = 0;
  int perNode() const { return (ranks + nodes - 1) / nodes; }
  // The ranks of one hierarchical group: the emulated node where it divides the ranks, else the node.
  int groupRanks() const {
    return emulatedPerNode > 0 && emulatedPerNode <= ranks && ranks % emulatedPerNode == 0 ? emulatedPerNode : perNode();
  }
};

// One link class's share of a phase.
struct Transfer {
  LinkClass link = LinkClass::Intra;
  double steps = 0;       // messages in sequence: each pays the link's latency
  double bytes = 0;       // intra: through one GPU's port; inter: through one node's NICs; local: copied in memory
  int copiers = 0;        // ranks of a node copying at once (shared memory: they share the cores; a shared GPU: its queues)
  // Of those, the ones busy at any one time where fewer are (a pipeline of k chunks keeps k + 1
  // ranks in a row busy); the others wait for their turn. A shared GPU's queues and a transport
  // whose waiting ranks yield their cores (IntraNode::waitingRanksYield) carry only these. 0: all.
  int busyCopiers = 0;
  // Ranks of the node that take no part in the transfer but wait through it on the same cores:
  // those a fold set aside (rd, rhd). On a host whose waiting ranks take their turns
  // (IntraNode::waitingRanksTakeTurns) the busiest core cycles through them in every step as well:
  // the oversubscribed latency is paid for them too (not their bytes: they copy nothing).
  int waitingRanks = 0;
  bool allPairs = false;  // traffic to many peers at once (PCIe: shares a switch's uplink)
  bool nvls = false;      // NVLink SHARP: priced at the fabric's NVLS efficiency
  // Each rank of the transfer sends or receives, not both (a fold into the power of two): on a
  // shared-memory transport of two copies per message the sender's and receiver's cores split
  // the work, half of what each does in a swap (IntraNode::copiesPerMessage).
  bool oneWay = false;
  // Shared memory, one copy a message: the share of the bytes read out of data a rank wrote in this
  // call (forwarded or reduced), whose lines are modified in the writer's cache and cross between
  // the cores at every size. The rest is read out of a buffer unchanged since the last call (the
  // collective's input), which a loop of calls leaves in the reader's caches: on the Zen 5 host
  // 128 KiB copies at 110 GB/s unchanged and 34 GB/s rewritten (docs/simulator.md). Those bytes
  // pay the link's fresh rate on top of their copy (LinkPrice::freshGBps, fitted where a sweep
  // shows it). 0: every byte read out of an unchanged buffer.
  double freshShare = 0;
  // Shared memory: the messages in sequence where they are fewer than `steps` (0: `steps`). A
  // message waits in the receiver's slots until it is copied out, so where ranks send as soon as
  // they have their data, receives posted one after another overlap in flight: toward a binomial
  // tree's root (gather, reduce) only the tree's depth is in sequence, not its rounds. On a GPU
  // each receive is an operation queued in round order on the root's stream: there the rounds are.
  double sharedMemorySteps = 0;
  // On a GPU through CUDA IPC, the messages in sequence where they are fewer than `steps` (0:
  // `steps`). A send only records an event and a receiver's own kernel reads the sender's buffer,
  // so a rank's sends to several children are read at once: away from a binomial tree's root
  // (broadcast) the tree's depth is in sequence, not its rounds (2 processes on one H200: 13 us,
  // 3: 17, 4: 21, 5: 21, the depth 1, 1, 2, 2 and the rounds 1, 2, 2, 3).
  double devicePullSteps = 0;
  // Shared memory, a binomial tree's call on more ranks than cores whose waiting ranks yield
  // them: back-to-back calls overlap, so a call costs the message ends the busiest core serves
  // (every send and every receive of the ranks placed on it: rank r on core r mod c, mpirun
  // --map-by core; root 0), not its messages in sequence. Measured with loops long enough for a
  // steady state, 0.15-0.21 us per such end at 2-5 ranks on 2 cores (docs/simulator.md).
  // nullptr: the steps.
  double (*busiestCoreEnds)(int ranks, int cores) = nullptr;
  // Out of place, a broadcast's root copies its input to its output while its children read the
  // input (collectives/algorithms/tree_broadcast.cc), a gather's or scatter's root its own block
  // (tree_gather.cc, tree_scatter.cc): on shared memory a copy on the root's core beside theirs.
  // The plans describe the call without it; the predictor sets it for cclab's own rows out of
  // place (Predictor::plan).
  bool rootCopiesBeside = false;
  // Where the way a transport copies puts other bytes on the critical path than `bytes` x the
  // busiest core's (or GPU's) load, the plan says which bytes, per way of copying; 0: the rule.
  struct CriticalBytes {
    // Shared memory, one copy a message (the receiver copies out of the sender's memory, CMA): a
    // fan-out costs the receivers, in parallel, not the sender's port: what one receiver copies.
    double oneCopyReceiver = 0;
    // Shared memory, two copies a message (IntraNode::copiesPerMessage 2): the sender writes every
    // message itself, so where one rank writes (or reads) many messages one after another, its
    // copies are the path: a scatter's or a binomial broadcast's root writes each child's message
    // in turn, a gather's root reads each. The bytes of that sequence.
    double twoCopyWriter = 0;
    // Shared memory, ranks that do unequal work in a flow rather than in lockstep (a pipelined
    // chain, a binomial reduce, the double binary tree's halves up and down): the bytes of every message the node's ranks send in the
    // transfer, each once. On more ranks than cores whose waiting ranks yield them, no core idles
    // while the flow has work and a back-to-back loop overlaps one call's pipeline fill with the
    // last one's drain: the cores share these bytes, and that is the path. In the units of
    // `bytes`: a message of B bytes costs its two ranks what one rank's send and receive of B
    // cost in a swap, whatever the copies per message. 0: not a flow.
    double nodeMessages = 0;
    // Of those, the busiest core's share where a flow's ranks do not split them evenly over the
    // cores: a chain's pipeline moves at its busiest core, which carries the message ends of the
    // ranks placed on it (ranks placed round-robin, rank r on core r mod c: mpirun --map-by core;
    // root 0, ccbench's default). nullptr: the cores share them evenly (1 / cores).
    double (*busiestCoreShare)(int ranks, int cores) = nullptr;
    // Shared memory, one copy a message, on more ranks than cores whose waiting ranks yield them:
    // the receivers of a fan-out each copy `receiverCopy` bytes on their own core, so the busiest
    // core copies as many buffers as it has such ranks, and the root's own copy where it copies
    // beside them (Transfer::rootCopiesBeside); the path where that is more than the rule's.
    // nullptr: the rule alone.
    double (*busiestCoreCopies)(int ranks, int cores, bool rootCopies) = nullptr;
    double receiverCopy = 0;
    // Shared memory, one copy a message, on cores whose waiting ranks yield them: the path as the
    // plan schedules its ranks' copies on the cores (rank r on core r mod cores, each rank's in
    // its order, a copy once its data is there; the root's own where it copies beside them), in
    // units of `receiverCopy`: a binomial gather's or scatter's runs. In place of the rule.
    // nullptr: the rule (and busiestCoreCopies).
    double (*scheduledCopies)(int ranks, int cores, bool rootCopies) = nullptr;
    // Shared memory, one copy a message (the receiver's): what one rank copies or reduces on its
    // own core one message after another (toward a binomial reduce's root, each child's buffer in
    // turn), a floor under the node's messages however the cores share them. 0: none.
    double rootInSequence = 0;
    // A GPU shared by the processes (Shape::perDevice > 1): what all of them copy in this
    // transfer, where that is not copiers x bytes (a binomial tree's rounds copy 1, 2, 4, ...
    // buffers: g - 1 in all, over fewer rounds).
    double sharedDevice = 0;
  };
  CriticalBytes critical{};
};

struct Phase {
  std::array<Transfer, 2> transfers{};
  int transferCount = 0;
  double reduceBytes = 0;  // bytes of output each rank reduces (overlapped with the transfers)
  // Calibrated, the algorithm (of the same collective) whose fitted bandwidths price this phase's
  // bytes; its steps keep the plan's own fitted latencies. Empty: the plan's fit throughout. Where
  // one piece of code does the same work per byte in two algorithms (rhd's all_reduce folds as
  // rd's does, recursive_fold.cc: a whole buffer sent and reduced), rows of a power of two ranks
  // never run it, so the borrower's fit has not seen that work; the lender's saw it at every step.
  std::string_view bandwidthFitOf;
  // Calibrated, the all_reduce algorithm whose fitted latencies price this phase's steps (its
  // bytes keep this plan's bandwidths). rhd's all_gather and reduce_scatter fold as rd's all_reduce
  // does, one message in and one out (recursive_fold.cc); their own fits, from steps where every
  // rank sends and receives, put a fold's message at 4.8-5.7 us on an H200 where it measures 8-12
  // (docs/algorithm-validation.md, "The fold's messages at rd's latency"). A phase borrows one of the two at most.
  std::string_view latencyFitOf;

  // A planner that adds more than the array holds is a bug in the planner: it throws rather than
  // writing past the end.
  Phase& add(const Transfer& t) {
    if (t.steps > 0 || t.bytes > 0) {
      if (static_cast<std::size_t>(transferCount) >= transfers.size()) {
        throw std::logic_error("a plan phase holds at most " + std::to_string(transfers.size()) + " transfers");
      }
      transfers[static_cast<std::size_t>(transferCount++)] = t;
    }
    return *this;
  }
};

struct Plan {
  std::array<Phase, 3> phases{};
  int phaseCount = 0;
  double workingSetBytes = 0;  // per rank: the buffers it touches (for shared-memory caches)

  Phase& addPhase() {  // throws past the last phase, as Phase::add does
    if (static_cast<std::size_t>(phaseCount) >= phases.size()) {
      throw std::logic_error("a plan holds at most " + std::to_string(phases.size()) + " phases");
    }
    return phases[static_cast<std::size_t>(phaseCount++)];
  }
  // Whether the plan moves nothing (one rank in place, or an empty buffer): only the launch is paid.
  bool empty() const;
  // The link classes the plan's transfers use, one bit each: 1 << LinkClass (0 for an empty plan).
  unsigned links() const;
  // A library's own algorithm priced on this plan: its chains order the ranks the library's way,
  // not cclab's, so its flows are spread evenly over the cores (CriticalBytes::busiestCoreShare).
  void spreadFlowsEvenly();
  // Out of place, cclab's broadcast root copies its input to its output beside its sends
  // (Transfer::rootCopiesBeside): every transfer is marked.
  void markRootCopiesBeside();
  // What its phases borrow of another algorithm's fit (Phase::bandwidthFitOf or latencyFitOf; one
  // lender per plan): `own` gets the other phases, `borrowed` those, both with the plan's working
  // set. An empty lender: nothing borrowed.
  struct Borrowing {
    std::string_view lender;
    bool latencies = false;  // the lender's latencies (all_reduce's fit), else its bandwidths
    // The collective whose fit of `lender` prices the borrowed phases of a plan of `own`.
    Collective lenderCollective(Collective own) const { return latencies ? Collective::AllReduce : own; }
  };
  Borrowing splitBorrowed(Plan& own, Plan& borrowed) const;
};

}  // namespace cclab::sim
