#include "sim/calibrate.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include <Eigen/Dense>
#include <fmt/format.h>

#include "collectives/algorithms/algorithms.h"
#include "collectives/errors.h"
#include "sim/algorithms/algorithms.h"
#include "results/error_summary.h"
#include "sim/predictor.h"

namespace cclab::sim {
namespace {

constexpr double kUsPerByteAt1GBps = 1e-3;
constexpr double kUnboundedGBps = 1e6;  // a bandwidth term the data cannot see (coefficient 0)

// One row ready for fitting: its features, its time less the launch latency (fitted for local
// plans), and the link class.
struct Sample {
  Features features;
  double timeUs = 0;   // what the features must explain
  double launchUs = 0; // added back when predicting
  const Measurement* measurement = nullptr;
  // A plan with phases whose bytes (or steps) another algorithm's fit prices
  // (Phase::bandwidthFitOf, latencyFitOf): until that fit is known, `features` describe the whole
  // plan; borrowFit then takes the borrowed bytes' (steps') time off and leaves the rest of those
  // phases to this group's own terms.
  Plan::Borrowing borrowing;
  Plan borrowed;
  Features ownFeatures;  // the other phases, and what the lender does not price of the borrowed ones
  Shape shape;
  const Predictor* predictor = nullptr;
};

// Prices a sample's borrowed bytes (or steps) at the lender's fit, as the predictor does
// (Predictor::timeOf), and leaves the rest of its time to its own features. Where that leaves
// nothing, the sample keeps the whole plan's features (false).
bool borrowFit(Sample& s, const Calibration& lent) {
  const Pricing lender = s.predictor->pricingFor(&lent, lent.collective);
  const double borrowedUs = priceUs(s.borrowed, s.shape, s.borrowing.latencies ? latenciesOnly(lender) : bandwidthsOnly(lender));
  if (s.timeUs - borrowedUs <= 0) return false;
  s.features = s.ownFeatures;
  s.timeUs -= borrowedUs;
  s.launchUs += borrowedUs;
  return true;
}

// Least squares with non-negative coefficients: minimise sum ((a_i.c - b_i) / s_i)^2 by QR,
// dropping the most negative coefficient's column until all are >= 0 (an active-set NNLS, which
// for these few columns converges in a step or two). Columns that are all zero stay at 0.
template <std::size_t Columns>
std::vector<double> nonNegativeLeastSquares(const std::vector<std::array<double, Columns>>& a, const std::vector<double>& b,
                                            const std::vector<double>& scale) {
  std::vector<int> active;
  for (int j = 0; j < static_cast<int>(Columns); ++j) {
    if (std::any_of(a.begin(), a.end(), [&](const auto& row) { return row[static_cast<std::size_t>(j)] != 0; })) active.push_back(j);
  }
  std::vector<double> coefficients(Columns, 0.0);
  while (!active.empty()) {
    Eigen::MatrixXd m(static_cast<Eigen::Index>(a.size()), static_cast<Eigen::Index>(active.size()));
    Eigen::VectorXd v(static_cast<Eigen::Index>(a.size()));
    for (std::size_t i = 0; i < a.size(); ++i) {
      for (std::size_t j = 0; j < active.size(); ++j) {
        m(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)) = a[i][static_cast<std::size_t>(active[j])] / scale[i];
      }
      v(static_cast<Eigen::Index>(i)) = b[i] / scale[i];
    }
    const Eigen::VectorXd c = m.colPivHouseholderQr().solve(v);
    Eigen::Index worst = 0;
    if (c.minCoeff(&worst) >= 0) {
      for (std::size_t j = 0; j < active.size(); ++j) coefficients[static_cast<std::size_t>(active[j])] = c(static_cast<Eigen::Index>(j));
      break;
    }
    active.erase(active.begin() + worst);
  }
  return coefficients;
}

// A group's fit: relative error (each row scaled by its own time), so small and large messages
// count alike.
std::vector<double> fitNonNegative(const std::vector<Sample>& samples) {
  std::vector<std::array<double, Features::kColumns>> a;
  std::vector<double> times;
  for (const auto& s : samples) {
    a.push_back(s.features.x);
    times.push_back(s.timeUs);
  }
  return nonNegativeLeastSquares(a, times, times);
}

// Where no row has a packed step, the fit cannot see the packed oversubscribed latency: packed
// steps then pay what the rows' other oversubscribed steps do.
void packedFollowsOversubscribed(const std::vector<Sample>& samples, std::vector<double>& c) {
  const auto packed = static_cast<std::size_t>(Features::kPackedOversubscribedTerm);
  if (std::none_of(samples.begin(), samples.end(), [&](const Sample& s) { return s.features.x[packed] != 0; })) c[packed] = c[1];
}

double predictFromFit(const Sample& s, const std::vector<double>& c) {
  double t = s.launchUs;
  for (std::size_t j = 0; j < c.size(); ++j) t += s.features.x[j] * c[j];
  return t;
}

FitQuality quality(const std::vector<Sample>& samples, const std::vector<const std::vector<double>*>& coefficients) {
  FitQuality q;
  std::vector<double> errors;
  double mean = 0;
  for (const auto& s : samples) mean += s.measurement->row.timeUs;
  mean /= static_cast<double>(samples.size());
  double ssRes = 0, ssTot = 0;
  std::set<int> ranks;
  for (std::size_t i = 0; i < samples.size(); ++i) {
    const double measured = samples[i].measurement->row.timeUs;
    const double predicted = predictFromFit(samples[i], *coefficients[i]);
    errors.push_back(std::abs(predicted - measured) / measured * 100);
    ssRes += (predicted - measured) * (predicted - measured);
    ssTot += (measured - mean) * (measured - mean);
    ranks.insert(samples[i].measurement->row.nranks);
  }
  const results::ErrorSummary summary = results::summarizeErrors(errors);
  q.rows = static_cast<int>(samples.size());
  q.r2 = ssTot > 0 ? 1 - ssRes / ssTot : 1;
  q.medianAbsErrorPct = summary.medianAbsErrorPct;
  q.maxAbsErrorPct = summary.maxAbsErrorPct;
  q.ranks.assign(ranks.begin(), ranks.end());
  return q;
}

double toGBps(double usPerByte) { return usPerByte > 0 ? kUsPerByteAt1GBps / usPerByte : kUnboundedGBps; }

// The calibration entry a group's coefficients describe.
Calibration entryFrom(const std::vector<double>& c, LinkClass link, int cacheLevels) {
  Calibration e;
  e.link = link;
  e.latencyUs = c[0];
  e.oversubscribedLatencyUs = c[1];
  e.packedOversubscribedLatencyUs = c[Features::kPackedOversubscribedTerm];
  e.bandwidthGBps = toGBps(c[2]);
  for (int l = 0; l < cacheLevels; ++l) e.cacheBandwidthGBps.push_back(toGBps(c[static_cast<std::size_t>(Features::kCacheTerm + l)]));
  e.rendezvousLatencyUs = c[Features::kRendezvousTerm];
  e.callOverheadUs = c[Features::kCallTerm];
  e.freshBandwidthGBps = c[Features::kFreshTerm] > 0 ? toGBps(c[Features::kFreshTerm]) : 0.0;
  return e;
}

using GroupKey = std::tuple<std::string, int, std::string, bool>;

// The link class a plan's row is fitted on: the one it uses; on shared memory a rank's own copies
// (local, as Bruck's rotations) run on the same cores as its transfers, so they fit with intra.
// False for plans that mix intra- and inter-node links, and elsewhere than shared memory for plans
// that mix local copies with transfers (a GPU's rotation runs in its HBM, its transfers on the
// links: splitLocalCopies prices the copies apart).
bool fitLink(const Plan& plan, bool sharedMemory, LinkClass& link) {
  const unsigned used = plan.links();
  if (std::has_single_bit(used)) {
    link = static_cast<LinkClass>(std::countr_zero(used));
    return true;
  }
  const unsigned onTheCores = (1u << static_cast<unsigned>(LinkClass::Local)) | (1u << static_cast<unsigned>(LinkClass::Intra));
  link = LinkClass::Intra;
  return sharedMemory && used != 0 && (used & ~onTheCores) == 0;
}

// Off shared memory, a plan whose local copies have phases of their own (Bruck's rotations: a
// GPU copies in its own HBM, then transfers over its links) splits into its transfers, fitted
// like any plan, and its copies, priced as the cluster describes its memory and taken off the
// measured time first. The predictor prices them the same way (an intra fit leaves a GPU's local
// link alone: Predictor::pricingFor), so the two agree. False where a phase mixes copies with
// transfers (their times would not add up).
bool splitLocalCopies(const Plan& plan, Plan& transfers, Plan& copies) {
  transfers = Plan{};
  copies = Plan{};
  transfers.workingSetBytes = copies.workingSetBytes = plan.workingSetBytes;
  for (int i = 0; i < plan.phaseCount; ++i) {
    const Phase& phase = plan.phases[static_cast<std::size_t>(i)];
    int local = 0;
    for (int k = 0; k < phase.transferCount; ++k) local += phase.transfers[static_cast<std::size_t>(k)].link == LinkClass::Local;
    if (local > 0 && local < phase.transferCount) return false;
    (local > 0 ? copies : transfers).addPhase() = phase;
  }
  return copies.phaseCount > 0 && transfers.phaseCount > 0;
}

// Writes a pooled fit into the cluster's description of that link (efficiency 1: the fitted
// bandwidth is what was achieved).
void applyToLink(Cluster& c, LinkClass link, const Calibration& fit) {
  switch (link) {
    case LinkClass::Intra:
      c.intra.latencyUs = fit.latencyUs;
      c.intra.oversubscribedLatencyUs = fit.oversubscribedLatencyUs;
      c.intra.packedOversubscribedLatencyUs = fit.packedOversubscribedLatencyUs;
      c.intra.rendezvousLatencyUs = fit.rendezvousLatencyUs;
      c.intra.bandwidthGBps = fit.bandwidthGBps;
      c.intra.efficiency = 1;
      if (c.intra.kind == FabricKind::PCIe) c.intra.switchUplinkGBps = std::max(c.intra.switchUplinkGBps, fit.bandwidthGBps);
      for (std::size_t l = 0; l < fit.cacheBandwidthGBps.size() && l < c.intra.caches.size(); ++l) {
        c.intra.caches[l].bandwidthGBps = fit.cacheBandwidthGBps[l];
      }
      return;
    case LinkClass::Inter:
      c.nics.latencyUs = fit.latencyUs;
      c.nics.efficiency = 1;
      c.nics.bandwidthGBps = fit.bandwidthGBps / c.nics.perNode *
                             (c.network.topology == NetworkTopology::FatTree ? c.network.oversubscription : 1.0);
      return;
    case LinkClass::Local:
      c.gpu.launchLatencyUs = fit.latencyUs;
      if (c.intra.kind != FabricKind::SharedMemory) c.gpu.memoryBandwidthGBps = 2 * fit.bandwidthGBps;  // copy rate -> read + write
      return;
  }
}

// Whether a row measured one of cclab's own algorithms, whose device copies its plan lists.
bool plansOwnCopies(const results::Row& r) { return r.backend == kOwnBackend && !isLibraryChoice(r.algo); }

// A GPU's device copies. cclab's algorithms copy their data in one placement and not the other
// (InputCopies: the ring all_gather copies its own block into the output out of place), so a row
// in place and the same row out of place differ by those copies alone: their difference, over every such
// pair, fits the copy's fixed cost and the device's copy rate (the bytes counted as many times over
// as processes share the GPU, sharedDeviceLoad). Fitted before the groups, which then take the
// copies off their rows as they take off Bruck's rotations, so a copy's cost is not spread over an
// algorithm's steps. Least squares weighted by the larger time of each pair, terms >= 0.
CalibrationReport::CopyFit fitCopies(const Cluster& base, const std::vector<Measurement>& rows) {
  CalibrationReport::CopyFit fit;
  if (basePricing(base).sharedMemory) return fit;  // a memcpy on the cores: fitted with the transfers
  using PairKey = std::tuple<std::string, int, std::string, int, int, int, int, std::uint64_t>;
  std::map<PairKey, std::array<const Measurement*, 2>> pairs;  // [out of place, in place]
  for (const Measurement& m : rows) {
    const results::Row& r = m.row;
    if (r.timeUs <= 0 || !plansOwnCopies(r) || r.nranks < 2) continue;
    const PairKey key{r.backend, static_cast<int>(r.collective), r.algo, r.nranks, m.nodes, m.perDevice, m.emulatedPerNode, r.sizeBytes};
    pairs[key][r.inPlace ? 1 : 0] = &m;
  }
  PredictorsByShape predictors(base);
  std::vector<std::array<double, 2>> samples;  // copies, bytes x load
  std::vector<double> differences, scales;      // out of place less in place; the larger time
  for (const auto& [key, pair] : pairs) {
    if (pair[0] == nullptr || pair[1] == nullptr) continue;
    const results::Row& out = pair[0]->row;
    const Shape shape{out.nranks, pair[0]->nodes, pair[0]->perDevice, pair[0]->emulatedPerNode};
    const Predictor& predictor = predictors.forShape(shape);
    std::string algo;
    try {
      algo = predictor.resolve(out.collective, out.algo);
    } catch (const InputError&) {
      continue;
    }
    const double bytes = static_cast<double>(out.sizeBytes);
    const Transfer outCopies = inputCopies(out.collective, algo, shape, bytes, false);
    const Transfer inCopies = inputCopies(out.collective, algo, shape, bytes, true);
    const double copies = outCopies.steps - inCopies.steps;
    const double loadBytes = sharedDeviceLoad(outCopies, shape, predictor.pricing()) * outCopies.bytes -
                             sharedDeviceLoad(inCopies, shape, predictor.pricing()) * inCopies.bytes;
    if (copies == 0 && loadBytes == 0) continue;
    samples.push_back({copies, loadBytes});
    differences.push_back(out.timeUs - pair[1]->row.timeUs);
    scales.push_back(std::max(out.timeUs, pair[1]->row.timeUs));
  }
  if (samples.size() < 4) return fit;
  const std::vector<double> c = nonNegativeLeastSquares(samples, differences, scales);
  if (c[1] <= 0) return fit;  // no copy rate seen: leave the description's
  fit.pairs = static_cast<int>(samples.size());
  fit.latencyUs = c[0];
  fit.copyGBps = toGBps(c[1]);
  return fit;
}

// Steps 1-3 of the calibration on a base cluster whose device copies and transport are settled.
CalibrationReport fitGroups(const Cluster& base, const std::vector<Measurement>& rows, CalibrationReport report) {
  report.fitted = base;
  report.fitted.calibrations.clear();

  // 1. Turn every row into a sample: plan the algorithm it measured on its shape.
  PredictorsByShape predictors(base);
  std::map<GroupKey, std::vector<Sample>> groups;
  std::map<GroupKey, LinkClass> groupLinks;
  std::map<std::string, int> skipped;
  for (const Measurement& m : rows) {
    const results::Row& r = m.row;
    if (r.timeUs <= 0) {
      ++skipped["a time of zero"];
      continue;
    }
    const Shape shape{r.nranks, m.nodes, m.perDevice, m.emulatedPerNode};
    const Predictor& predictor = predictors.forShape(shape);
    Plan plan;
    try {
      const std::string algo = isLibraryChoice(r.algo) ? r.algo : predictor.resolve(r.collective, r.algo);
      plan = predictor.plan(r.collective, algo, shape, static_cast<double>(r.sizeBytes), r.inPlace, plansOwnCopies(r));
    } catch (const InputError&) {
      ++skipped[fmt::format("an algorithm the simulator does not model ('{}')", r.algo)];
      continue;
    }
    const Pricing pricing = predictor.pricingFor(nullptr, r.collective, r.backend);
    LinkClass link = LinkClass::Local;
    Plan fitted = plan;     // the part the features describe
    double copiesUs = 0;    // the local copies priced apart (splitLocalCopies)
    if (!plan.empty() && !fitLink(plan, pricing.sharedMemory, link)) {
      Plan copies;
      if (!splitLocalCopies(plan, fitted, copies) || !fitLink(fitted, pricing.sharedMemory, link)) {
        ++skipped["plans that use intra- and inter-node links together, or local copies in a phase with transfers: "
                  "used for validation only"];
        continue;
      }
      copiesUs = priceUs(copies, shape, pricing) - pricing.launchLatencyUs;
    }
    Sample s;
    s.features = planFeatures(fitted, shape, pricing, link);
    if (plan.empty()) s.features.x = {1, 0, 0, 0, 0};  // nothing moves: only the launch
    Plan own;
    s.borrowing = fitted.splitBorrowed(own, s.borrowed);
    if (!s.borrowing.lender.empty()) {
      s.ownFeatures = planFeatures(own, shape, pricing, link);
      const Features borrowed = planFeatures(s.borrowed, shape, pricing, link);
      // What the lender does not price stays this group's: the borrowed phases' steps, or their bytes.
      for (int j = 0; j < Features::kColumns; ++j) {
        const bool stepTerm = j == 0 || j == 1 || j == Features::kRendezvousTerm || j == Features::kPackedOversubscribedTerm;
        if (j != Features::kCallTerm && stepTerm != s.borrowing.latencies) {
          s.ownFeatures.x[static_cast<std::size_t>(j)] += borrowed.x[static_cast<std::size_t>(j)];
        }
      }
      s.shape = shape;
      s.predictor = &predictor;
    }
    // A per-call term only for rooted collectives: timed back to back, a call's root or leaves
    // finish early and overlap the next call, so their time is not the rounds' latency alone.
    if (!hasRoot(r.collective)) s.features.x[Features::kCallTerm] = s.ownFeatures.x[Features::kCallTerm] = 0;
    s.launchUs = (link == LinkClass::Local ? 0.0 : pricing.launchLatencyUs) + copiesUs;
    s.timeUs = r.timeUs - s.launchUs;
    if (s.timeUs <= 0) {
      ++skipped["times below the cluster's launch latency (and local copies priced apart)"];
      continue;
    }
    s.measurement = &m;
    const GroupKey gk{r.backend, static_cast<int>(r.collective), r.algo, r.inPlace};
    groups[gk].push_back(s);
    groupLinks[gk] = link;
  }
  for (const auto& [why, count] : skipped) report.notes.push_back(fmt::format("skipped {} rows: {}", count, why));

  // 2. All rows of a link class together refit the cluster's own numbers for that link: what a
  // prediction without a matching group (another collective, no --impl) is priced with, and what
  // a group takes for a term its rows cannot see (in place, no working set outgrows the caches).
  const Pricing pricing = basePricing(base);
  std::map<LinkClass, std::vector<double>> pooledCoefficients;
  for (LinkClass link : {LinkClass::Local, LinkClass::Intra, LinkClass::Inter}) {
    std::vector<Sample> pooled;
    for (const auto& [key, samples] : groups) {
      if (groupLinks[key] == link) pooled.insert(pooled.end(), samples.begin(), samples.end());
    }
    if (pooled.size() < 4) continue;
    // A link's own numbers have no per-call term: what a call costs beyond the launch is its
    // algorithm's (the groups below fit it).
    // Nor a fresh-data term: the cluster's description has none (its groups fit their own).
    for (auto& s : pooled) s.features.x[Features::kCallTerm] = s.features.x[Features::kFreshTerm] = 0;
    std::vector<double> c = fitNonNegative(pooled);
    packedFollowsOversubscribed(pooled, c);
    pooledCoefficients[link] = c;
    applyToLink(report.fitted, link, entryFrom(c, link, pricing.sharedMemory && link != LinkClass::Inter ? pricing.cacheLevels : 0));
    report.linkFits.push_back({link, quality(pooled, std::vector<const std::vector<double>*>(pooled.size(), &c))});
  }

  // 3. Fit each group: those whose rows borrow another group's bandwidths (Phase::bandwidthFitOf)
  // after the rest, with the borrowed bytes priced at the lender's where it has a fit.
  std::vector<GroupKey> order;
  for (const auto& entry : groups) order.push_back(entry.first);
  std::stable_partition(order.begin(), order.end(), [&](const GroupKey& key) {
    return std::none_of(groups[key].begin(), groups[key].end(), [](const Sample& s) { return !s.borrowing.lender.empty(); });
  });
  std::vector<Sample> fittedSamples;
  std::vector<const std::vector<double>*> fittedCoefficients;
  std::vector<std::vector<double>> allCoefficients;
  allCoefficients.reserve(groups.size());
  for (const GroupKey& key : order) {
    std::vector<Sample>& samples = groups[key];
    const auto& [impl, collective, algo, inPlace] = key;
    const LinkClass link = groupLinks[key];
    const std::string what = fmt::format("{} {} {}{}", impl, name(static_cast<Collective>(collective)), algo, inPlace ? " in place" : "");
    int borrowed = 0, notBorrowed = 0;
    Plan::Borrowing borrowing;
    for (Sample& s : samples) {
      if (s.borrowing.lender.empty()) continue;
      borrowing = s.borrowing;
      const Calibration* lent = findCalibration(report.fitted.calibrations, impl, borrowing.lenderCollective(static_cast<Collective>(collective)),
                                                borrowing.lender, inPlace);
      ++(lent != nullptr && borrowFit(s, *lent) ? borrowed : notBorrowed);
    }
    if (borrowed + notBorrowed > 0) {
      const std::string_view lender = borrowing.lender;
      report.notes.push_back(fmt::format("{}: {} rows with phases that borrow {}'s fitted {}: {} priced at them before the fit{}", what,
                                         borrowed + notBorrowed, borrowing.latencies ? fmt::format("{} all_reduce", lender) : std::string(lender),
                                         borrowing.latencies ? "latencies" : "bandwidths", borrowed,
                                         notBorrowed > 0 ? fmt::format(", {} at {}'s own (no fit of {})", notBorrowed, algo, lender) : ""));
    }
    int terms = 0;  // the columns these rows can see: what the rows must outnumber
    for (int j = 0; j < Features::kColumns; ++j) {
      terms += std::any_of(samples.begin(), samples.end(), [&](const Sample& s) { return s.features.x[static_cast<std::size_t>(j)] != 0; });
    }
    std::set<std::uint64_t> sizes;
    for (const auto& s : samples) sizes.insert(s.measurement->row.sizeBytes);
    if (sizes.size() < 2 || static_cast<int>(samples.size()) <= terms) {
      report.notes.push_back(fmt::format("{}: {} rows over {} sizes are too few to fit {} terms", what, samples.size(), sizes.size(), terms));
      continue;
    }
    allCoefficients.push_back(fitNonNegative(samples));
    std::vector<double>& c = allCoefficients.back();
    if (auto pooled = pooledCoefficients.find(link); pooled != pooledCoefficients.end()) {
      for (std::size_t j = 0; j < c.size() && j < pooled->second.size(); ++j) {
        const bool seen = std::any_of(samples.begin(), samples.end(), [&](const Sample& s) { return s.features.x[j] != 0; });
        if (!seen) c[j] = pooled->second[j];
      }
    }
    packedFollowsOversubscribed(samples, c);
    Calibration entry = entryFrom(c, link, pricing.sharedMemory && link != LinkClass::Inter ? pricing.cacheLevels : 0);
    entry.implementation = impl;
    entry.collective = static_cast<Collective>(collective);
    entry.algo = algo;
    entry.inPlace = inPlace;
    entry.fit = quality(samples, std::vector<const std::vector<double>*>(samples.size(), &c));
    report.groups.push_back(entry);
    report.fitted.calibrations.push_back(entry);
    for (const auto& s : samples) {
      fittedSamples.push_back(s);
      fittedCoefficients.push_back(&c);
    }
  }
  report.rowsUsed = static_cast<int>(fittedSamples.size());
  if (!fittedSamples.empty()) report.overall = quality(fittedSamples, fittedCoefficients);
  for (std::size_t i = 0; i < fittedSamples.size(); ++i) {
    const double measured = fittedSamples[i].measurement->row.timeUs;
    const double error = (predictFromFit(fittedSamples[i], *fittedCoefficients[i]) - measured) / measured;
    report.relativeSquaredError += error * error;
  }
  return report;
}

// The capacities a shared-memory node's caches are tried at, as fractions of the described ones.
constexpr std::array<double, 9> kCapacityFractions = {0.0625, 0.125, 0.25, 0.375, 0.5, 0.625, 0.75, 0.875, 1.0};

// A cache's nominal size is not what a rank's buffers get of it: other data (the transport's slots,
// the library's own buffers, another tenant's cores on a shared L3) takes some, and a working set
// near the capacity already misses. So, on shared memory, each level's capacity is fitted too: the
// outermost level first, each tried at kCapacityFractions of the described size with the others
// held, the groups refitted every time, keeping the capacity whose fits leave the least relative
// squared error over the same rows, level after level until a pass changes none. Only the rows
// being calibrated decide it.
CalibrationReport fitCacheCapacities(const Cluster& base, const std::vector<Measurement>& rows, const CalibrationReport& settled) {
  CalibrationReport best = fitGroups(base, rows, settled);
  const std::size_t levels = base.intra.caches.size();
  if (base.intra.kind != FabricKind::SharedMemory || levels == 0 || best.groups.empty()) return best;
  const double describedError = best.relativeSquaredError;
  Cluster bestBase = base;
  // Passes over the levels until one changes nothing: a level's best capacity depends on the
  // others', so one pass can stop short of the least error the grid holds.
  for (bool changed = true; changed;) {
    changed = false;
    for (std::size_t l = levels; l-- > 0;) {
      for (double fraction : kCapacityFractions) {
        Cluster trial = bestBase;
        trial.intra.caches[l].bytes = std::round(base.intra.caches[l].bytes * fraction);
        if (trial.intra.caches[l].bytes == bestBase.intra.caches[l].bytes) continue;
        CalibrationReport candidate = fitGroups(trial, rows, settled);
        if (candidate.relativeSquaredError < best.relativeSquaredError) {
          best = std::move(candidate);
          bestBase = trial;
          changed = true;
        }
      }
    }
  }
  best.describedCachesError = describedError;
  for (std::size_t l = 0; l < levels; ++l) best.cacheFits.push_back({base.intra.caches[l].bytes, bestBase.intra.caches[l].bytes});
  return best;
}

}  // namespace

CalibrationReport calibrate(const Cluster& described, const std::vector<Measurement>& rows, bool fitCaches) {
  CalibrationReport report;
  // 0. A GPU's device copies first: the groups take them off their rows.
  Cluster base = described;
  // cclab's transport on shared memory, as its runs recorded it: its copies per message price
  // one-way transfers (a fold), which no row at 2 and 4 ranks has for the fit to see.
  if (base.intra.kind == FabricKind::SharedMemory) {
    std::set<int> copies;
    std::set<bool> yields;
    std::set<double> singleCopies, rootedSingleCopies, copyPieces, packed;
    for (const Measurement& m : rows) {
      if (m.hostCopyPieceBytes >= 0) copyPieces.insert(m.hostCopyPieceBytes);
      if (m.copiesPerMessage > 0 && m.packedBytes >= 0) packed.insert(m.packedBytes);
      if (m.copiesPerMessage > 0) {
        copies.insert(m.copiesPerMessage);
        yields.insert(m.waitingRanksYield);
        (hasRoot(m.row.collective) ? rootedSingleCopies : singleCopies).insert(m.singleCopyBytes);
      }
    }
    if (copies.size() == 1) base.intra.copiesPerMessage = *copies.begin();
    if (yields.size() == 1) base.intra.waitingRanksYield = *yields.begin();
    // The single-copy thresholds the runs measured with price them (not the description's): the
    // rooted calls' apart (IntraNode::singleCopyRootedBytes).
    if (copies.size() == 1 && singleCopies.size() == 1) base.intra.singleCopyBytes = *singleCopies.begin();
    if (copies.size() == 1 && rootedSingleCopies.size() == 1) base.intra.singleCopyRootedBytes = *rootedSingleCopies.begin();
    // So do the pieces their host copies went in, where every run that recorded them agrees:
    // the fitted bandwidths carry them (IntraNode::copyPieceBytes).
    if (copyPieces.size() == 1) base.intra.copyPieceBytes = *copyPieces.begin();
    // And the size up to which their messages travelled packed, where they recorded it (runs
    // before ccbench did: the description's, IntraNode::packedMaxBytes).
    if (packed.size() == 1) base.intra.packedMaxBytes = *packed.begin();
  }
  report.copyFit = fitCopies(described, rows);
  if (report.copyFit.pairs > 0) {
    base.gpu.copyLatencyUs = report.copyFit.latencyUs;
    base.gpu.copyGBps = report.copyFit.copyGBps;
  }
  return fitCaches ? fitCacheCapacities(base, rows, report) : fitGroups(base, rows, report);
}

}  // namespace cclab::sim
