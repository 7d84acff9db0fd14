#include "sim/pricing.h"

#include <algorithm>
#include <cmath>

namespace cclab::sim {
namespace {

constexpr double kUsPerByteAt1GBps = 1e-3;  // bytes / (GB/s * 1e3) = microseconds

// Shared memory: the share of a transfer's bytes served from each cache level (and DRAM, the
// last entry), from how much of the working set each level holds. Per-core levels see the
// working set of the ranks on one core; shared levels that of the whole node.
std::array<double, 4> cacheShares(const Pricing& pricing, double wsPerRank, int ranksPerCore, int ranksPerNode) {
  std::array<double, 4> shares{};
  double covered = 0;
  for (int l = 0; l < pricing.cacheLevels; ++l) {
    const double ws = wsPerRank * (pricing.cachePerCore[static_cast<std::size_t>(l)] ? ranksPerCore : ranksPerNode);
    const double coverage = ws > 0 ? std::min(1.0, pricing.cacheBytes[static_cast<std::size_t>(l)] / ws) : 1.0;
    const double added = std::max(0.0, coverage - covered);
    shares[static_cast<std::size_t>(l)] = added;
    covered = std::max(covered, coverage);
  }
  shares[static_cast<std::size_t>(pricing.cacheLevels)] = 1.0 - covered;
  return shares;
}

struct SharedMemoryView {
  int ranksPerCore;
  bool oversubscribed;
  std::array<double, 4> shares;  // per cache level, then DRAM
};

SharedMemoryView sharedView(const Plan& plan, const Shape& shape, const Pricing& pricing) {
  const int g = shape.perNode();
  const int ranksPerCore = (g + pricing.cores - 1) / pricing.cores;
  return {ranksPerCore, g > pricing.cores, cacheShares(pricing, plan.workingSetBytes, ranksPerCore, g)};
}

// The busiest core serves ceil(copiers / cores) ranks' copies one after another; oversubscribed,
// it also schedules that many ranks in each step (the oversubscribed latency is paid per rank).
// `waiting`: ranks beside them that copy nothing but take their turns on the cores.
double coreLoad(const Transfer& t, const Shape& shape, const Pricing& pricing, int waiting = 0) {
  const int busy = pricing.waitingRanksYield && t.busyCopiers > 0 ? t.busyCopiers : t.copiers;
  const int ranks = std::min(std::max(busy, 1) + waiting, shape.perNode());
  return std::ceil(static_cast<double>(ranks) / pricing.cores);
}

// The ranks the busiest core schedules in each step of a transfer on more ranks than cores:
// those copying and, on a host whose waiting ranks take their turns (IntraNode::
// waitingRanksTakeTurns), those waiting through it beside them (Transfer::waitingRanks).
double schedulingLoad(const Transfer& t, const Shape& shape, const Pricing& pricing) {
  return coreLoad(t, shape, pricing, pricing.waitingRanksTakeTurns ? t.waitingRanks : 0);
}

// Shared memory: the bytes the busiest core copies for a transfer, one after another.
double coreBytes(const Transfer& t, const Shape& shape, const Pricing& pricing) {
  // A flow on more ranks than cores, its waiting ranks yielding: the cores share the node's
  // messages (Transfer::CriticalBytes::nodeMessages); of one copy a message, which the receiver
  // makes, at least what one rank copies in sequence.
  if (t.critical.nodeMessages > 0 && pricing.waitingRanksYield && shape.perNode() > pricing.cores) {
    const double share = t.critical.busiestCoreShare ? t.critical.busiestCoreShare(shape.perNode(), pricing.cores)
                                                     : 1.0 / pricing.cores;
    const double inSequence = pricing.copies(t) == 1 ? t.critical.rootInSequence : 0.0;
    return std::max(t.critical.nodeMessages * share, inSequence);
  }
  const int copies = pricing.copies(t);
  if (copies == 2 && t.critical.twoCopyWriter > 0) return t.critical.twoCopyWriter;
  // One copy a message on cores its waiting ranks yield: where the plan schedules its copies on
  // the cores itself (CriticalBytes::scheduledCopies), that is the path.
  if (copies == 1 && t.critical.scheduledCopies && pricing.waitingRanksYield) {
    return t.critical.receiverCopy * t.critical.scheduledCopies(shape.perNode(), pricing.cores, t.rootCopiesBeside);
  }
  const double path = copies == 1 && t.critical.oneCopyReceiver > 0 ? t.critical.oneCopyReceiver : t.bytes;
  const double rule = path * coreLoad(t, shape, pricing) * pricing.coreCopyShare(t);
  if (copies == 1 && t.critical.busiestCoreCopies && pricing.waitingRanksYield && shape.perNode() > pricing.cores) {
    return std::max(rule, t.critical.receiverCopy * t.critical.busiestCoreCopies(shape.perNode(), pricing.cores, t.rootCopiesBeside));
  }
  return rule;
}

// The messages in sequence a transfer's latency pays for (Transfer::sharedMemorySteps), or, for
// a rooted call on more ranks than cores whose waiting ranks yield, the busiest core's message
// ends (Transfer::busiestCoreEnds).
double stepsInSequence(const Transfer& t, const Shape& shape, const Pricing& pricing) {
  if (t.link == LinkClass::Inter) return t.steps;
  if (!pricing.sharedMemory) return t.link == LinkClass::Intra && t.devicePullSteps > 0 ? t.devicePullSteps : t.steps;
  if (t.busiestCoreEnds && pricing.waitingRanksYield && shape.perNode() > pricing.cores) {
    return t.busiestCoreEnds(shape.perNode(), pricing.cores);
  }
  return t.sharedMemorySteps > 0 ? t.sharedMemorySteps : t.steps;
}

// Steps times the processes beyond the first: what the oversubscribed latency multiplies.
double sharedDeviceSteps(const Transfer& t, const Shape& shape, const Pricing& pricing) {
  const int load = sharedDeviceLoad(t, shape, pricing);
  return load > 1 ? t.steps * (load - 1) : 0.0;  // never 0 x steps: endless steps stay endless, not NaN
}

// The bytes a transfer puts through its link (not shared memory): on a GPU shared by processes,
// what all of them copy on it (its load x its bytes, or the plan's own count); else its bytes.
double deviceBytes(const Transfer& t, const Shape& shape, const Pricing& pricing) {
  const int load = sharedDeviceLoad(t, shape, pricing);
  if (load > 1 && t.critical.sharedDevice > 0) {
    // Processes spread over several GPUs share their copies out: each device carries its part.
    const double share = std::min(1.0, static_cast<double>(shape.perDevice) / shape.ranks);
    return std::max(t.bytes, t.critical.sharedDevice * share);
  }
  return load * t.bytes;
}

// Shared memory, one copy a message: of a transfer's bytes on the busiest core, those read out of
// data written in this call (Transfer::freshShare). Through the slots the sender has just written
// every message, whichever its source: the fitted copy rates carry that.
double freshBytes(const Transfer& t, double bytes, const Pricing& pricing) {
  return pricing.copies(t) == 1 ? bytes * t.freshShare : 0.0;
}

double bandwidthUs(const Transfer& t, const Shape& shape, const Pricing& pricing, const SharedMemoryView& shm) {
  const LinkPrice& link = pricing.link(t.link);
  if (pricing.sharedMemory && t.link != LinkClass::Inter) {
    const double bytes = coreBytes(t, shape, pricing);
    double us = bytes * shm.shares[static_cast<std::size_t>(pricing.cacheLevels)] * kUsPerByteAt1GBps / link.bandwidthGBps;
    for (int l = 0; l < pricing.cacheLevels; ++l) {
      us += bytes * shm.shares[static_cast<std::size_t>(l)] * kUsPerByteAt1GBps / link.cacheGBps[static_cast<std::size_t>(l)];
    }
    if (link.freshGBps > 0) us += freshBytes(t, bytes, pricing) * kUsPerByteAt1GBps / link.freshGBps;
    return us;
  }
  double bandwidth = link.bandwidthGBps;
  if (t.link == LinkClass::Intra && t.nvls) bandwidth *= pricing.nvlsFactor;
  if (t.link == LinkClass::Intra && t.allPairs) bandwidth *= pricing.pcieAllPairsFactor;
  if (t.link == LinkClass::Inter && t.allPairs) bandwidth *= pricing.interAllPairsFactor;
  return deviceBytes(t, shape, pricing) * kUsPerByteAt1GBps / bandwidth;
}

}  // namespace

int sharedDeviceLoad(const Transfer& t, const Shape& shape, const Pricing& pricing) {
  if (pricing.sharedMemory || t.link == LinkClass::Inter || shape.perDevice <= 1) return 1;
  return std::min(std::max(t.busyCopiers > 0 ? t.busyCopiers : t.copiers, 1), shape.perDevice);  // idle ones queue nothing
}

Pricing basePricing(const Cluster& c) {
  Pricing p;
  p.launchLatencyUs = c.gpu.launchLatencyUs;
  p.intra.latencyUs = c.intra.latencyUs;
  p.intra.oversubscribedLatencyUs = c.intra.oversubscribedLatencyUs;
  p.intra.packedOversubscribedLatencyUs =
      c.intra.packedOversubscribedLatencyUs >= 0 ? c.intra.packedOversubscribedLatencyUs : c.intra.oversubscribedLatencyUs;
  p.intra.bandwidthGBps = c.intra.bandwidthGBps * c.intra.efficiency;
  if (c.intra.nvls) p.nvlsFactor = c.intra.nvlsEfficiency / c.intra.efficiency;
  if (c.intra.kind == FabricKind::PCIe) {
    // A ring crosses each switch's uplink once per direction; all-pairs traffic from the GPUs of
    // one switch shares it.
    const double port = c.intra.bandwidthGBps;
    const double ringPath = std::min(port, c.intra.switchUplinkGBps);
    p.intra.bandwidthGBps = ringPath * c.intra.efficiency;
    const double shared = std::min(port, c.intra.switchUplinkGBps / c.intra.gpusPerSwitch);
    p.pcieAllPairsFactor = c.gpusPerNode > c.intra.gpusPerSwitch ? shared / ringPath : 1.0;
  }
  if (c.nics.perNode > 0) {
    p.inter.latencyUs = c.nics.latencyUs;
    p.inter.bandwidthGBps = c.nics.perNode * c.nics.bandwidthGBps * c.nics.efficiency;
    // A rail-optimized network keeps ring traffic on one rail switch; everything else (and every
    // flow on a fat-tree) crosses the oversubscribed spine.
    if (c.network.topology == NetworkTopology::FatTree) p.inter.bandwidthGBps /= c.network.oversubscription;
    else p.interAllPairsFactor = 1.0 / c.network.oversubscription;
  }
  if (c.intra.kind == FabricKind::SharedMemory) {
    p.sharedMemory = true;
    p.cores = c.intra.cores;
    p.intra.rendezvousLatencyUs = c.intra.rendezvousLatencyUs;
    p.eagerLimitBytes = c.intra.eagerLimitBytes;
    p.copiesPerMessage = c.intra.copiesPerMessage;
    p.singleCopyBytes = c.intra.singleCopyBytes;
    p.singleCopyRootedBytes = c.intra.singleCopyRootedBytes;
    p.waitingRanksYield = c.intra.waitingRanksYield;
    p.waitingRanksTakeTurns = c.intra.waitingRanksTakeTurns;
    p.packedMaxBytes = c.intra.packedMaxBytes;
    p.cacheLevels = static_cast<int>(std::min<std::size_t>(c.intra.caches.size(), 3));
    for (int l = 0; l < p.cacheLevels; ++l) {
      const CacheLevel& level = c.intra.caches[static_cast<std::size_t>(l)];
      p.cacheBytes[static_cast<std::size_t>(l)] = level.bytes;
      p.cachePerCore[static_cast<std::size_t>(l)] = level.perCore;
      p.intra.cacheGBps[static_cast<std::size_t>(l)] = level.bandwidthGBps * c.intra.efficiency;
    }
    p.local = p.intra;  // one rank's own copies run on its core too
    p.local.latencyUs = 0;
    p.reduceGBps = c.intra.bandwidthGBps / 1.5;  // a reduction moves 3 bytes per output byte, a copy 2
  } else {
    p.local.bandwidthGBps = c.gpu.copyGBps > 0 ? c.gpu.copyGBps : c.gpu.memoryBandwidthGBps / 2;  // a copy reads and writes each byte
    p.local.latencyUs = c.gpu.copyLatencyUs;
    p.reduceGBps = c.gpu.memoryBandwidthGBps / 3;
  }
  return p;
}

Pricing withFitOf(const Pricing& own, const Pricing& lender, bool latencies) {
  Pricing p = own;
  for (LinkClass l : {LinkClass::Local, LinkClass::Intra, LinkClass::Inter}) {
    LinkPrice& link = p.link(l);
    const LinkPrice& lent = lender.link(l);
    if (latencies) {
      link.latencyUs = lent.latencyUs;
      link.oversubscribedLatencyUs = lent.oversubscribedLatencyUs;
      link.packedOversubscribedLatencyUs = lent.packedOversubscribedLatencyUs;
      link.rendezvousLatencyUs = lent.rendezvousLatencyUs;
    } else {
      link.bandwidthGBps = lent.bandwidthGBps;
      link.cacheGBps = lent.cacheGBps;
      link.freshGBps = lent.freshGBps;
    }
  }
  if (!latencies) p.reduceGBps = lender.reduceGBps;
  return p;
}

Pricing bandwidthsOnly(const Pricing& lender) {
  Pricing p = lender;
  p.launchLatencyUs = 0;
  for (LinkClass l : {LinkClass::Local, LinkClass::Intra, LinkClass::Inter}) {
    LinkPrice& link = p.link(l);
    link.latencyUs = link.oversubscribedLatencyUs = link.packedOversubscribedLatencyUs = link.rendezvousLatencyUs = 0;
  }
  return p;
}

Pricing latenciesOnly(const Pricing& lender) {
  constexpr double kFree = 1e300;  // GB/s: bytes cost nothing
  Pricing p = lender;
  p.launchLatencyUs = 0;
  p.reduceGBps = 0;  // no reduction priced
  for (LinkClass l : {LinkClass::Local, LinkClass::Intra, LinkClass::Inter}) {
    LinkPrice& link = p.link(l);
    link.bandwidthGBps = kFree;
    for (double& cache : link.cacheGBps) cache = kFree;
    link.freshGBps = 0;  // 0: no fresh-data term
  }
  return p;
}

double priceUs(const Plan& plan, const Shape& shape, const Pricing& pricing) {
  const SharedMemoryView shm = pricing.sharedMemory ? sharedView(plan, shape, pricing) : SharedMemoryView{};
  double total = pricing.launchLatencyUs;
  for (int i = 0; i < plan.phaseCount; ++i) {
    const Phase& phase = plan.phases[static_cast<std::size_t>(i)];
    double latency = 0;
    double slowest = pricing.reduceGBps > 0 ? phase.reduceBytes * kUsPerByteAt1GBps / pricing.reduceGBps : 0.0;
    for (int k = 0; k < phase.transferCount; ++k) {
      const Transfer& t = phase.transfers[static_cast<std::size_t>(k)];
      const LinkPrice& link = pricing.link(t.link);
      if (t.link == LinkClass::Local) {
        latency += t.steps * link.latencyUs;  // a device copy's fixed cost (0 on shared memory: a memcpy)
      } else {
        const double oversubscribed = pricing.packed(t) ? link.packedOversubscribedLatencyUs : link.oversubscribedLatencyUs;
        const double perStep = link.latencyUs + (shm.oversubscribed ? oversubscribed * schedulingLoad(t, shape, pricing) : 0.0) +
                               (pricing.rendezvous(t) ? link.rendezvousLatencyUs : 0.0);
        latency += stepsInSequence(t, shape, pricing) * perStep;
        if (link.oversubscribedLatencyUs > 0) latency += sharedDeviceSteps(t, shape, pricing) * link.oversubscribedLatencyUs;
      }
      slowest = std::max(slowest, bandwidthUs(t, shape, pricing, shm));
    }
    total += latency + slowest;
  }
  return total;
}

Features planFeatures(const Plan& plan, const Shape& shape, const Pricing& pricing, LinkClass link) {
  Features f;
  const bool shared = pricing.sharedMemory && link != LinkClass::Inter;
  const SharedMemoryView shm = shared ? sharedView(plan, shape, pricing) : SharedMemoryView{};
  for (int i = 0; i < plan.phaseCount; ++i) {
    const Phase& phase = plan.phases[static_cast<std::size_t>(i)];
    for (int k = 0; k < phase.transferCount; ++k) {
      const Transfer& t = phase.transfers[static_cast<std::size_t>(k)];
      if (t.link != LinkClass::Local) {  // a rank's own copies have no messages (priceUs)
        const double steps = stepsInSequence(t, shape, pricing);
        f.x[0] += steps;
        if (shm.oversubscribed) f.x[pricing.packed(t) ? Features::kPackedOversubscribedTerm : 1] += steps * schedulingLoad(t, shape, pricing);
        f.x[1] += sharedDeviceSteps(t, shape, pricing);
        if (pricing.rendezvous(t)) f.x[Features::kRendezvousTerm] += steps;
      }
      if (!shared) {  // one bandwidth: bytes in units of the link's base bandwidth
        double factor = 1;
        if (t.link == LinkClass::Intra && t.nvls) factor = pricing.nvlsFactor;
        if (t.link == LinkClass::Intra && t.allPairs) factor = pricing.pcieAllPairsFactor;
        if (t.link == LinkClass::Inter && t.allPairs) factor = pricing.interAllPairsFactor;
        f.x[2] += deviceBytes(t, shape, pricing) / factor;
        continue;
      }
      const double bytes = coreBytes(t, shape, pricing);
      f.x[2] += bytes * shm.shares[static_cast<std::size_t>(pricing.cacheLevels)];
      for (int l = 0; l < pricing.cacheLevels; ++l) {
        f.x[static_cast<std::size_t>(Features::kCacheTerm + l)] += bytes * shm.shares[static_cast<std::size_t>(l)];
      }
      f.x[Features::kFreshTerm] += freshBytes(t, bytes, pricing);
    }
  }
  if (link == LinkClass::Local) f.x[0] = 1;  // a local copy has no steps: the first term is the launch latency
  else if (!plan.empty()) f.x[Features::kCallTerm] = 1;
  return f;
}

}  // namespace cclab::sim
