#pragma once

// ccreport compare: each baseline row against the current row with the same key, judged on bus
// bandwidth (time below the latency-bound size), with a Mann-Whitney U test where both sides
// carry enough samples and a plain threshold where they do not.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "report/document.h"
#include "report/matching.h"

namespace cclab::report {

struct CompareSettings {
  double thresholdPct = 5;                   // a smaller change is no change
  double alpha = 0.05;                       // significance level of the U test
  std::uint64_t latencyBytes = 64 * 1024;    // smaller rows are judged on time
  int minSamples = 5;                        // per side, for the U test (fewer: the threshold alone)
  double timeSlackUs = 0;                    // a time change this small is no change, whatever its percentage
  bool eitherWay = false;                    // an improvement past the limits fails too (two tools, one measure)
  bool allowMissing = false;                 // a baseline row missing from current is not a failure
  std::vector<Field> ignore;                 // fields left out of the match
};

enum class Status { Regressed, Missing, Unchanged, Improved, New };
std::string_view name(Status status);

struct Comparison {
  Key key;
  Status status = Status::Unchanged;
  Group baseline, current;  // rows with this key (empty on the side it is missing from)
  double baselineTimeUs = 0, currentTimeUs = 0;    // mean over the rows
  double baselineBusbwGBps = 0, currentBusbwGBps = 0;  // from the mean time
  double timeChangePct = 0, busbwChangePct = 0;
  bool judgedOnTime = false;     // latency-bound: lower time is better
  bool uTest = false;            // else the plain threshold
  std::optional<double> pValue;
  std::size_t baselineSamples = 0, currentSamples = 0;
  std::string note;              // why unmatched, wrong results, ...
  double worseningPct = 0;       // how much worse on the judged metric (negative: better)
};

struct CompareResult {
  Sides sides;  // baseline, current: the rows' groups point into them
  std::vector<Comparison> rows;  // worst first
  std::vector<std::string> notes;
  int count(Status status) const;
  bool failed(const CompareSettings& settings) const;
};

// Throws InputError when no row is in common.
CompareResult compare(Side baseline, Side current, const CompareSettings& settings);

Document compareDocument(const CompareResult& result, const CompareSettings& settings);

}  // namespace cclab::report
