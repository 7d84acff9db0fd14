#include "sim/predictor.h"

#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "collectives/algorithms/algorithms.h"
#include "collectives/errors.h"
#include "sim/algorithms/algorithms.h"

namespace cclab::sim {
namespace {

// Per rank, the bytes of the buffers a collective touches: both out of place, the larger in place.
double workingSet(Collective collective, double bytes, int ranks, bool inPlace) {
  const BufferLayout layout = bufferLayout(collective, 1, ranks, 0);
  const double larger = static_cast<double>(std::max(layout.sendCount, layout.recvCount));
  const double send = bytes * layout.sendCount / larger, recv = bytes * layout.recvCount / larger;
  return inPlace ? std::max(send, recv) : send + recv;
}

}  // namespace

const Predictor& PredictorsByShape::forShape(const Shape& shape) {
  const auto key = std::make_pair(shape.nodes, shape.perNode());
  auto it = byShape_.find(key);
  if (it == byShape_.end()) {
    Cluster reshaped = cluster_;
    reshape(reshaped, shape.nodes, shape.perNode());
    // reshape gives fewer ranks than a NIC serves that whole NIC (ranks a node / GPUs a NIC,
    // rounded up); with every GPU busy they get their share.
    const int perNic = cluster_.nics.gpusPerNic;
    if (sharing_ == NicSharing::EveryGpuAtOnce && shape.nodes > 1 && reshaped.nics.perNode > 0 && shape.perNode() < perNic) {
      reshaped.nics.bandwidthGBps *= static_cast<double>(shape.perNode()) / perNic;
    }
    it = byShape_.emplace(key, Predictor(reshaped)).first;
  }
  return it->second;
}

bool isLibraryChoice(std::string_view algo) { return algo == kLibraryCollective || algo == kLibraryTunerChose; }

Predictor::Predictor(const Cluster& cluster) : cluster_(cluster), base_(basePricing(cluster)) {}

std::string Predictor::resolve(Collective collective, std::string_view algo) const {
  // A family of cclab's own algorithms (as ccbench --algo) names one algorithm per collective.
  for (const auto& a : allAlgorithms()) {
    if (a.collective == collective && a.family == algo && a.name != algo) return resolve(collective, a.name);
  }
  const SimAlgorithm* sim = findSimAlgorithm(algo);
  Plan probe;
  if (sim == nullptr || !sim->plan(collective, Shape{2, 1}, 1, probe)) {
    std::string valid;
    for (auto name : candidates(collective)) valid += fmt::format("{}{}", valid.empty() ? "" : ", ", name);
    if (sim == nullptr) throw InputError(fmt::format("unknown algorithm '{}' (for {}: {}, auto)", algo, name(collective), valid));
    throw InputError(fmt::format("algorithm '{}' does not do {} (for {}: {}, auto)", algo, name(collective), name(collective), valid));
  }
  if (sim->needsNvls && !cluster_.intra.nvls) {
    throw InputError(fmt::format("algorithm 'nvls' needs NVLink SHARP, which cluster '{}' does not have (intra_node.nvls)", cluster_.name));
  }
  return std::string(algo);
}

std::vector<std::string_view> Predictor::candidates(Collective collective) const {
  std::vector<std::string_view> names;
  Plan probe;
  for (const auto& a : simAlgorithms()) {
    if (a.needsNvls && !cluster_.intra.nvls) continue;
    probe = Plan{};
    if (a.plan(collective, Shape{2, 1}, 1, probe)) names.push_back(a.name);
  }
  return names;
}

std::vector<std::string_view> Predictor::libraryCandidates(Collective collective) const {
  std::vector<std::string_view> names = candidates(collective);
  if (cluster_.intra.kind == FabricKind::SharedMemory) return names;
  auto nccl = [&](std::string_view name) {
    if (name == "ring" || name == "chain" || name == "nvls") return true;
    if (name == "tree") return collective == Collective::AllReduce;  // NCCL's trees reduce; no binomial ones
    if (name == "pairwise" || name == "linear") {
      return collective == Collective::AllToAll || collective == Collective::Gather || collective == Collective::Scatter;
    }
    return false;  // rd, rhd, bruck, hier, the one-shot linear all_reduce, all_gather, reduce_scatter: not NCCL's
  };
  std::erase_if(names, [&](std::string_view name) { return !nccl(name); });
  return names;
}

std::vector<std::string_view> Predictor::ownCandidates(Collective collective) const {
  std::vector<std::string_view> names;
  for (const auto& a : allAlgorithms()) {
    if (a.collective == collective) names.push_back(a.name);
  }
  return names;
}

Transfer inputCopies(Collective collective, std::string_view algo, const Shape& shape, double bytes, bool inPlace) {
  const Algorithm* own = findAlgorithmNamed(collective, algo);
  if (own == nullptr) return {LinkClass::Local};
  const InputCopies copies = inPlace ? own->inPlaceCopies : own->outOfPlaceCopies;
  const double copied = copies.whole * bytes + copies.blocks * bytes / shape.ranks;
  return {LinkClass::Local, static_cast<double>(copies.count()), copied, shape.ranks};
}

Plan Predictor::plan(Collective collective, std::string_view algo, const Shape& shape, double bytes, bool inPlace, bool ownCopies) const {
  if (isLibraryChoice(algo)) {
    // The ring family's plan, without cclab's copies; the library orders its chains its own way,
    // so its flows are spread evenly over the cores (CriticalBytes::busiestCoreShare).
    Plan library = plan(collective, resolve(collective, "ring"), shape, bytes, inPlace, false);
    library.spreadFlowsEvenly();
    return library;
  }
  Plan plan;
  if (shape.ranks == 1) {
    // One rank: out of place is a copy of the buffer, in place nothing moves.
    if (!inPlace) plan.addPhase().add({LinkClass::Local, 0, bytes, 1});
  } else {
    findSimAlgorithm(algo)->plan(collective, shape, bytes, plan);
    // The copies are a phase of their own: they run before or after the transfers, not beside them.
    const Transfer copies = ownCopies ? inputCopies(collective, algo, shape, bytes, inPlace) : Transfer{};
    if (copies.steps > 0) plan.addPhase().add(copies);
    // cclab's rooted calls out of place: the root's own copy beside its sends or receives
    // (Transfer::rootCopiesBeside; the plans that count it say how).
    const bool rootCopies = collective == Collective::Broadcast || collective == Collective::Gather || collective == Collective::Scatter;
    if (ownCopies && !inPlace && rootCopies) plan.markRootCopiesBeside();
  }
  plan.workingSetBytes = workingSet(collective, bytes, shape.ranks, inPlace);
  return plan;
}

const Calibration* Predictor::calibration(std::string_view implementation, Collective collective, std::string_view algo,
                                          bool inPlace) const {
  if (implementation.empty()) return nullptr;
  return findCalibration(cluster_.calibrations, implementation, collective, algo, inPlace);
}

Pricing Predictor::pricingFor(const Calibration* entry, Collective collective, std::string_view implementation) const {
  Pricing p = base_.forCollective(collective);
  if (entry != nullptr) implementation = entry->implementation;
  if (!implementation.empty() && implementation != kOwnBackend) p.packedMaxBytes = 0;
  if (entry == nullptr) return p;
  LinkPrice& link = p.link(entry->link);
  link.latencyUs = entry->latencyUs;
  link.oversubscribedLatencyUs = entry->oversubscribedLatencyUs;
  link.packedOversubscribedLatencyUs = entry->packedOversubscribedLatencyUs;
  link.rendezvousLatencyUs = entry->rendezvousLatencyUs;
  link.bandwidthGBps = entry->bandwidthGBps;
  for (std::size_t l = 0; l < entry->cacheBandwidthGBps.size() && l < link.cacheGBps.size(); ++l) {
    link.cacheGBps[l] = entry->cacheBandwidthGBps[l];
  }
  link.freshGBps = entry->freshBandwidthGBps;
  if (entry->link == LinkClass::Intra && p.sharedMemory) {
    p.local = link;  // a rank's own copies run on the cores the fit measured (calibrate.cc: fitLink)
    p.local.latencyUs = 0;
  }
  if (entry->link == LinkClass::Local) {
    p.launchLatencyUs = entry->latencyUs;  // a local fit measures the whole call
    link.latencyUs = 0;
  }
  p.launchLatencyUs += entry->callOverheadUs;
  p.reduceGBps = 0;  // the fit already includes the reductions in its bandwidth
  return p;
}

double Predictor::timeOf(Collective collective, std::string_view algo, const Shape& shape, const Query& query,
                         bool& calibrated) const {
  const Plan p = plan(collective, algo, shape, query.bytes, query.inPlace, query.implementation == kOwnBackend);
  const Calibration* entry = calibration(query.implementation, collective, algo, query.inPlace);
  calibrated = entry != nullptr;
  const Pricing pricing = pricingFor(entry, collective, query.implementation);
  // Phases that borrow another algorithm's bandwidths or latencies (Phase::bandwidthFitOf,
  // latencyFitOf) are priced with them where the calibration holds that fit; the launch is paid once.
  Plan own, borrowed;
  const Plan::Borrowing b = entry != nullptr ? p.splitBorrowed(own, borrowed) : Plan::Borrowing{};
  const Calibration* lent =
      b.lender.empty() ? nullptr : calibration(query.implementation, b.lenderCollective(collective), b.lender, query.inPlace);
  if (lent == nullptr) return priceUs(p, shape, pricing);
  const Pricing lender = pricingFor(lent, lent->collective);
  const Pricing borrowing = withFitOf(pricing, lender, b.latencies);
  return priceUs(own, shape, pricing) + priceUs(borrowed, shape, borrowing) - borrowing.launchLatencyUs;
}

Prediction Predictor::predict(const Query& query) const {
  if (query.ranks < 1 || query.nodes < 1 || query.nodes > query.ranks) {
    throw InputError(fmt::format("{} ranks on {} nodes is not a shape (1 <= nodes <= ranks)", query.ranks, query.nodes));
  }
  if (query.nodes > 1 && cluster_.nics.perNode == 0) {
    throw InputError(fmt::format("cluster '{}' has no NICs, so it cannot span {} nodes", cluster_.name, query.nodes));
  }
  const Shape shape{query.ranks, query.nodes, std::clamp(query.perDevice, 1, query.ranks), std::max(0, query.emulatedPerNode)};
  Prediction best;
  if (isLibraryChoice(query.algo)) {
    // A library's own choice: calibrated, it is priced on the ring family's plan with the fit of
    // that library's measurements; otherwise the simulator's tuner stands in for the library.
    if (const Calibration* entry = calibration(query.implementation, query.collective, query.algo, query.inPlace)) {
      const Plan p = plan(query.collective, query.algo, shape, query.bytes, query.inPlace, false);
      best.timeUs = priceUs(p, shape, pricingFor(entry, query.collective, query.implementation));
      best.algo = std::string(query.algo);
      best.calibrated = true;
      return best;
    }
  }
  if (query.algo == kSimulatorPicks || isLibraryChoice(query.algo)) {
    // A library (the MPI library's native, or NCCL's tuner in a measured row) picks among its own.
    const bool library = query.algo == kLibraryCollective ||
                         (query.algo == kLibraryTunerChose && !query.implementation.empty() && query.implementation != kOwnBackend);
    best.timeUs = std::numeric_limits<double>::infinity();
    const bool own = !library && query.implementation == kOwnBackend;
    for (auto name : library ? libraryCandidates(query.collective) : own ? ownCandidates(query.collective) : candidates(query.collective)) {
      bool calibrated = false;
      const double t = timeOf(query.collective, name, shape, query, calibrated);
      if (t < best.timeUs) {
        best.timeUs = t;
        best.algo = std::string(name);
        best.calibrated = calibrated;
      }
    }
    return best;
  }
  best.algo = resolve(query.collective, query.algo);
  best.timeUs = timeOf(query.collective, best.algo, shape, query, best.calibrated);
  return best;
}

}  // namespace cclab::sim
