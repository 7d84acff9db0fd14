#include "sim/algorithms/algorithms.h"

#include <array>

namespace cclab::sim {
namespace {

constexpr std::array kAlgorithms = {
    SimAlgorithm{"ring", planRing, false, "ring: all_reduce, all_gather, reduce_scatter, sendrecv"},
    SimAlgorithm{"chain", planChain, false, "pipelined chain: broadcast, reduce"},
    SimAlgorithm{"pairwise", planPairwise, false, "pairwise exchange: alltoall"},
    SimAlgorithm{"linear", planLinear, false, "linear: gather, scatter, alltoall, all_gather, all_reduce and reduce_scatter (one-shot)"},
    SimAlgorithm{"tree", planTree, false, "double binary tree all_reduce; binomial broadcast, reduce, gather, scatter"},
    SimAlgorithm{"rhd", planRhd, false, "recursive halving-doubling: all_reduce (Rabenseifner), reduce_scatter, all_gather"},
    SimAlgorithm{"rd", planRd, false, "recursive doubling: all_reduce"},
    SimAlgorithm{"bruck", planBruck, false, "Bruck: alltoall, all_gather"},
    SimAlgorithm{"hier", planHier, false, "hierarchical intra/inter-node: all_reduce, all_gather, reduce_scatter"},
    SimAlgorithm{"nvls", planNvls, true, "NVLink SHARP in-switch reduction: all_reduce, reduce_scatter, all_gather"},
};

}  // namespace

std::span<const SimAlgorithm> simAlgorithms() { return kAlgorithms; }

const SimAlgorithm* findSimAlgorithm(std::string_view name) {
  for (const auto& a : kAlgorithms) {
    if (a.name == name) return &a;
  }
  return nullptr;
}

bool Plan::empty() const {
  for (int i = 0; i < phaseCount; ++i) {
    if (phases[static_cast<std::size_t>(i)].transferCount > 0) return false;
  }
  return true;
}

void Plan::spreadFlowsEvenly() {
  for (int i = 0; i < phaseCount; ++i) {
    Phase& phase = phases[static_cast<std::size_t>(i)];
    for (int j = 0; j < phase.transferCount; ++j) phase.transfers[static_cast<std::size_t>(j)].critical.busiestCoreShare = nullptr;
  }
}

void Plan::markRootCopiesBeside() {
  for (int i = 0; i < phaseCount; ++i) {
    Phase& phase = phases[static_cast<std::size_t>(i)];
    for (int j = 0; j < phase.transferCount; ++j) phase.transfers[static_cast<std::size_t>(j)].rootCopiesBeside = true;
  }
}

unsigned Plan::links() const {
  unsigned used = 0;
  for (int i = 0; i < phaseCount; ++i) {
    const Phase& phase = phases[static_cast<std::size_t>(i)];
    for (int t = 0; t < phase.transferCount; ++t) used |= 1u << static_cast<unsigned>(phase.transfers[static_cast<std::size_t>(t)].link);
  }
  return used;
}

Plan::Borrowing Plan::splitBorrowed(Plan& own, Plan& borrowed) const {
  own = Plan{};
  borrowed = Plan{};
  own.workingSetBytes = borrowed.workingSetBytes = workingSetBytes;
  Borrowing b;
  for (int i = 0; i < phaseCount; ++i) {
    const Phase& phase = phases[static_cast<std::size_t>(i)];
    if (phase.bandwidthFitOf.empty() && phase.latencyFitOf.empty()) {
      own.addPhase() = phase;
      continue;
    }
    if (!phase.bandwidthFitOf.empty() && !phase.latencyFitOf.empty()) throw std::logic_error("a phase borrows bandwidths or latencies, not both");
    const Borrowing here{phase.latencyFitOf.empty() ? phase.bandwidthFitOf : phase.latencyFitOf, !phase.latencyFitOf.empty()};
    if (!b.lender.empty() && (b.lender != here.lender || b.latencies != here.latencies)) {
      throw std::logic_error("a plan borrows of one algorithm's fit at most");
    }
    b = here;
    borrowed.addPhase() = phase;
  }
  return b;
}

}  // namespace cclab::sim
