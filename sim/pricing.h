#pragma once

// Prices a plan on a cluster: each transfer pays its link's latency per step and its bytes at the
// link's bandwidth; within a phase the links and the reduction run concurrently (the slowest
// bounds the phase); phases run one after another; each call pays the launch latency once.

#include <array>

#include "sim/cluster.h"
#include "sim/plan.h"

namespace cclab::sim {

// One link class's latency and bandwidth, as the cluster describes it or as calibrated.
struct LinkPrice {
  double latencyUs = 0;
  // Shared memory: extra per step when ranks outnumber cores. A GPU shared by several processes:
  // extra per step for each further process the step keeps busy on it (pricing.cc).
  double oversubscribedLatencyUs = 0;
  // Shared memory: the same for a step whose messages travel packed (Pricing::packed), in place of
  // oversubscribedLatencyUs.
  double packedOversubscribedLatencyUs = 0;
  double rendezvousLatencyUs = 0;          // shared memory: extra per step of a message above the eager limit
  double bandwidthGBps = 0;                // effective (efficiency included); shared memory: one core from DRAM
  std::array<double, 3> cacheGBps{};       // shared memory: per cache level of the cluster
  // Shared memory, one copy a message: what a byte read out of data written in this call costs
  // beyond its copy (Transfer::freshShare), as a rate; 0: nothing more (not fitted).
  double freshGBps = 0;
};

struct Pricing {
  LinkPrice local, intra, inter;
  double reduceGBps = 0;      // reduction output rate of one device; 0: reductions are folded into the links
  double launchLatencyUs = 0;
  double nvlsFactor = 1;      // NVLS efficiency relative to the fabric's efficiency
  double pcieAllPairsFactor = 1;  // PCIe: bandwidth left per GPU when all GPUs of a switch share its uplink
  double interAllPairsFactor = 1; // oversubscribed network: bandwidth left for all-pairs traffic
  // Shared memory.
  bool sharedMemory = false;
  int cores = 1;
  std::array<double, 3> cacheBytes{};
  std::array<bool, 3> cachePerCore{};
  int cacheLevels = 0;
  double eagerLimitBytes = 0;  // 0: no rendezvous protocol
  int copiesPerMessage = 1;    // IntraNode::copiesPerMessage
  double singleCopyBytes = 0;  // IntraNode::singleCopyBytes: messages this large take one copy; 0: never
  double singleCopyRootedBytes = 0;  // IntraNode::singleCopyRootedBytes: the same in a rooted call
  bool waitingRanksYield = false;  // IntraNode::waitingRanksYield
  bool waitingRanksTakeTurns = false;  // IntraNode::waitingRanksTakeTurns
  double packedMaxBytes = 0;  // IntraNode::packedMaxBytes

  // The size of each of a transfer's messages: its bytes over its steps (0 for a transfer of no steps).
  static double messageBytes(const Transfer& t) { return t.steps > 0 ? t.bytes / t.steps : 0; }

  // The copies a transfer's messages take: the transport's, but one from the single-copy
  // threshold up (cclab's shared memory reads those out of the sender's memory).
  int copies(const Transfer& t) const {
    return singleCopyBytes > 0 && messageBytes(t) >= singleCopyBytes ? 1 : copiesPerMessage;
  }
  // The share of a shared-memory transfer's bytes each core copies: half for a one-way transfer
  // on a transport of two copies per message (sender and receiver copy on their own cores).
  double coreCopyShare(const Transfer& t) const { return t.oneWay && copies(t) == 2 ? 0.5 : 1.0; }

  // Whether a transfer's messages take the rendezvous protocol.
  bool rendezvous(const Transfer& t) const {
    return sharedMemory && eagerLimitBytes > 0 && t.link != LinkClass::Inter &&
           messageBytes(t) >= eagerLimitBytes;
  }

  // Whether a transfer's messages travel packed, a few to a cache line (IntraNode::packedMaxBytes).
  bool packed(const Transfer& t) const {
    return sharedMemory && packedMaxBytes > 0 && t.link != LinkClass::Inter && t.steps > 0 && messageBytes(t) <= packedMaxBytes;
  }

  // This pricing for a call of `collective`: a rooted call's messages take the single copy from
  // its own threshold (IntraNode::singleCopyRootedBytes), as cclab's transport does (beginCall).
  Pricing forCollective(Collective collective) const {
    Pricing p = *this;
    if (hasRoot(collective)) p.singleCopyBytes = singleCopyRootedBytes;
    return p;
  }

  const LinkPrice& link(LinkClass c) const { return c == LinkClass::Local ? local : c == LinkClass::Intra ? intra : inter; }
  LinkPrice& link(LinkClass c) { return c == LinkClass::Local ? local : c == LinkClass::Intra ? intra : inter; }
};

// The cluster's own numbers (before any calibration entry).
Pricing basePricing(const Cluster& cluster);

// A GPU shared by processes (shape.perDevice > 1): the processes a transfer or a copy keeps busy
// on it at once, its copiers (at most the processes per device). Their copies share the GPU's
// memory bandwidth, so its bytes are priced that many times over, and each transfer step pays the
// link's oversubscribed latency once per process beyond the first (their launches queue). 1 on
// shared memory, whose cores have their own terms, across nodes, and with a GPU per process.
int sharedDeviceLoad(const Transfer& t, const Shape& shape, const Pricing& pricing);

// Microseconds for a plan on a shape.
double priceUs(const Plan& plan, const Shape& shape, const Pricing& pricing);

// Phases priced with another algorithm's fit: `own` with the lender's bandwidths on every link
// (Phase::bandwidthFitOf) or, `latencies`, its per-step latencies (Phase::latencyFitOf). And the
// lender's part alone, no launch: its bandwidths with no latencies, or its latencies with every
// byte free (what calibration takes off a row before fitting its own terms).
Pricing withFitOf(const Pricing& own, const Pricing& lender, bool latencies);
Pricing bandwidthsOnly(const Pricing& lender);
Pricing latenciesOnly(const Pricing& lender);

// The least-squares features of a plan that uses one link class: time = features . coefficients,
// with coefficients (latency per step, extra latency per oversubscribed step (a shared GPU: per
// further process of a step), microseconds per byte
// at the link's bandwidth (shared memory: from DRAM), then per byte from each of up to 3 cache
// levels, then extra latency per rendezvous step, then a call's own overhead beyond the launch
// latency: 1 for every plan that moves data, then microseconds per byte read out of data written
// in this call, beyond its copy: Transfer::freshShare, then extra latency per oversubscribed step
// whose messages travel packed, in place of the second term's). Local plans (one rank) put the launch
// latency in the first coefficient. Terms a plan cannot see stay zero, and the fit leaves them out.
struct Features {
  static constexpr int kCacheTerm = 3, kRendezvousTerm = 6, kCallTerm = 7, kFreshTerm = 8, kPackedOversubscribedTerm = 9, kColumns = 10;
  std::array<double, kColumns> x{};
};
Features planFeatures(const Plan& plan, const Shape& shape, const Pricing& pricing, LinkClass link);

}  // namespace cclab::sim
