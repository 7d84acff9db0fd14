#include "report/compare.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "collectives/errors.h"
#include "report/statistics.h"

namespace cclab::report {
namespace {

// The samples of one side: every iteration's time where each row recorded them, else each row's
// mean (one per repeat and per file).
std::vector<double> samplesOf(const Group& group) {
  const bool perIteration = std::all_of(group.begin(), group.end(), [](const LoadedRow* r) { return !r->row.iterTimesUs.empty(); });
  std::vector<double> samples;
  for (const LoadedRow* r : group) {
    if (perIteration) {
      samples.insert(samples.end(), r->row.iterTimesUs.begin(), r->row.iterTimesUs.end());
    } else {
      samples.push_back(r->row.timeUs);
    }
  }
  return samples;
}

void judge(Comparison& c, const CompareSettings& s) {
  const results::Row& row = c.baseline.front()->row;
  c.baselineTimeUs = meanTimeUs(c.baseline);
  c.currentTimeUs = meanTimeUs(c.current);
  c.judgedOnTime = row.sizeBytes < s.latencyBytes;
  if (c.baselineTimeUs <= 0 || c.currentTimeUs <= 0) {
    c.note = "no time to compare";
    return;
  }
  c.baselineBusbwGBps = results::busBandwidthGBps(row.collective, row.nranks, row.sizeBytes, c.baselineTimeUs);
  c.currentBusbwGBps = results::busBandwidthGBps(row.collective, row.nranks, row.sizeBytes, c.currentTimeUs);
  c.timeChangePct = (c.currentTimeUs / c.baselineTimeUs - 1) * 100;
  // Same size and rank count: bandwidth is inversely proportional to time (also at 1 rank, where busbw is 0).
  c.busbwChangePct = (c.baselineTimeUs / c.currentTimeUs - 1) * 100;
  c.worseningPct = c.judgedOnTime ? c.timeChangePct : -c.busbwChangePct;

  const std::vector<double> before = samplesOf(c.baseline), after = samplesOf(c.current);
  c.baselineSamples = before.size();
  c.currentSamples = after.size();
  c.uTest = static_cast<int>(std::min(before.size(), after.size())) >= s.minSamples;
  bool significant = true;  // the threshold alone decides without enough samples
  if (c.uTest) {
    c.pValue = mannWhitneyU(before, after).pValue;
    significant = *c.pValue < s.alpha;
  }
  // A change must be large enough to matter, in percent and in microseconds (clock jitter and
  // launch overhead are absolute), and (where testable) unlikely to be noise.
  const bool pastSlack = std::abs(c.currentTimeUs - c.baselineTimeUs) > s.timeSlackUs;
  if (significant && pastSlack && c.worseningPct > s.thresholdPct) c.status = Status::Regressed;
  if (significant && pastSlack && c.worseningPct < -s.thresholdPct) c.status = Status::Improved;

  std::int64_t wrong = 0;
  for (const LoadedRow* r : c.current) wrong += r->row.wrong.value_or(0);
  if (wrong > 0) {
    c.status = Status::Regressed;
    c.note = fmt::format("current results are wrong ({} elements)", wrong);
  }
}

int order(Status s) { return static_cast<int>(s); }  // the enum lists the worst first

}  // namespace

std::string_view name(Status status) {
  constexpr std::string_view kNames[] = {"regressed", "missing", "unchanged", "improved", "new"};
  return kNames[static_cast<int>(status)];
}

int CompareResult::count(Status status) const {
  return static_cast<int>(std::count_if(rows.begin(), rows.end(), [&](const Comparison& c) { return c.status == status; }));
}

bool CompareResult::failed(const CompareSettings& settings) const {
  return count(Status::Regressed) > 0 || (!settings.allowMissing && count(Status::Missing) > 0) ||
         (settings.eitherWay && count(Status::Improved) > 0);
}

CompareResult compare(Side baselineSide, Side currentSide, const CompareSettings& settings) {
  CompareResult result;
  result.sides = Sides(std::move(baselineSide), std::move(currentSide));
  const Side &baseline = *result.sides.first, &current = *result.sides.second;
  result.notes = result.sides.notes();
  std::vector<Field> ignore = settings.ignore;
  auto unknownMachine = [](const Side& side) {
    return std::any_of(side.rows.begin(), side.rows.end(), [](const LoadedRow& r) { return r.machine.empty(); });
  };
  if (unknownMachine(baseline) || unknownMachine(current)) {
    ignore.push_back(Field::Machine);
    result.notes.push_back("machines not compared: some files do not say which machine ran them (CSV)");
  }
  const Groups before = groupRows(baseline.rows, ignore), after = groupRows(current.rows, ignore);

  for (const auto& [key, group] : before) {
    Comparison c;
    c.key = key;
    c.baseline = group;
    const auto partner = after.find(key);
    if (partner == after.end()) {
      c.status = Status::Missing;
      c.baselineTimeUs = meanTimeUs(group);
      c.note = whyUnmatched(key, after, "current");
    } else {
      c.current = partner->second;
      judge(c, settings);
    }
    result.rows.push_back(std::move(c));
  }
  for (const auto& [key, group] : after) {
    if (before.count(key)) continue;
    Comparison c;
    c.key = key;
    c.status = Status::New;
    c.current = group;
    c.currentTimeUs = meanTimeUs(group);
    c.note = whyUnmatched(key, before, "baseline");
    result.rows.push_back(std::move(c));
  }
  if (result.count(Status::Missing) == static_cast<int>(before.size())) {
    throw InputError(fmt::format("no rows in common between --baseline and --current ({})", result.rows.front().note));
  }
  std::stable_sort(result.rows.begin(), result.rows.end(), [](const Comparison& a, const Comparison& b) {
    if (a.status != b.status) return order(a.status) < order(b.status);
    return a.worseningPct > b.worseningPct;
  });
  return result;
}

}  // namespace cclab::report
