#include "report/accuracy.h"

#include <gtest/gtest.h>

#include "collectives/errors.h"
#include "tests/report/fixtures.h"

namespace cclab::report {
namespace {

using namespace testing;
constexpr std::uint64_t kKiB = 1024, kMiB = 1024 * kKiB;

results::Row predicted(std::uint64_t size, double timeUs, std::string algo = "native") {
  return row(Collective::AllReduce, size, timeUs, {}, "sim", std::move(algo));
}

// ccsim collective --impl mpi --algo native, as its results file says it.
results::Json ccsimConfig(const std::string& impl, const std::string& algo) { return {{"algo", algo}, {"implementation", impl}}; }

struct Files {
  std::string predicted, measured;
};

// Measured 100 us at 4 KiB, 256 KiB and 4 MiB; predicted +30%, -20% and +10%.
Files knownErrors(const fs::path& dir) {
  return {write(dir, "predicted.json", {predicted(4 * kKiB, 130), predicted(256 * kKiB, 80), predicted(4 * kMiB, 110)}, "ccsim",
                ccsimConfig("mpi", "native")),
          write(dir, "measured.json",
                {row(Collective::AllReduce, 4 * kKiB, 100), row(Collective::AllReduce, 256 * kKiB, 100), row(Collective::AllReduce, 4 * kMiB, 100)})};
}

AccuracyResult run(const Files& f, const AccuracySettings& s = {}) {
  return accuracy(loadSide({f.predicted}, "--predicted"), loadSide({f.measured}, "--measured"), s);
}

TEST(Accuracy, ErrorsPerRowAndBySizeRange) {
  const AccuracyResult r = run(knownErrors(scratch()));
  ASSERT_EQ(r.rows.size(), 3u);
  EXPECT_NEAR(r.rows[0].errorPct, 30, 1e-9);  // largest first
  EXPECT_NEAR(r.rows[1].errorPct, -20, 1e-9);
  EXPECT_NEAR(r.rows[2].errorPct, 10, 1e-9);
  ASSERT_EQ(r.ranges.size(), 6u);
  EXPECT_EQ(r.ranges[0].label, "< 64 KiB");
  EXPECT_EQ(r.ranges[0].rows, 1);
  EXPECT_NEAR(r.ranges[0].maxAbsErrorPct, 30, 1e-9);
  EXPECT_EQ(r.ranges[1].label, "64 KiB - 1 MiB");
  EXPECT_NEAR(r.ranges[1].medianAbsErrorPct, 20, 1e-9);
  EXPECT_EQ(r.ranges[4].label, ">= 64 KiB");
  EXPECT_NEAR(r.ranges[4].medianAbsErrorPct, 15, 1e-9);
  EXPECT_EQ(r.all().rows, 3);
  EXPECT_NEAR(r.all().medianAbsErrorPct, 20, 1e-9);
  EXPECT_NEAR(r.all().maxAbsErrorPct, 30, 1e-9);
  EXPECT_TRUE(r.unpredicted.empty());
}

TEST(Accuracy, GateOnMedianAndMax) {
  const AccuracyResult r = run(knownErrors(scratch()));
  AccuracySettings s;
  EXPECT_FALSE(r.failed(s));  // no limits: a report, not a gate
  s.maxMedianErrorPct = 25;
  s.maxErrorPct = 35;
  EXPECT_FALSE(r.failed(s));
  s.maxMedianErrorPct = 15;
  EXPECT_TRUE(r.medianFails(s));
  EXPECT_TRUE(r.failed(s));
  s.maxMedianErrorPct = 25;
  s.maxErrorPct = 25;
  EXPECT_TRUE(r.maxFails(s));
  const Document doc = accuracyDocument(r, s);
  EXPECT_EQ(doc.summary,
            "FAIL: median |error| 20.0% (limit 25%), max |error| 30.0% (limit 25%) over 3 rows; 0 unpredicted; "
            "worst: all_reduce float sum, mpi/native, 4 ranks, 4 KiB, out of place: +30.0%");
  // The rows over the max limit are the failing test cases; the gate table says which check failed.
  const Table& rows = doc.tables.at(2);
  EXPECT_EQ(rows.lines.at(0).outcome, Outcome::Failed);
  EXPECT_EQ(rows.lines.at(1).outcome, Outcome::Passed);
  const Table& gate = doc.tables.at(0);
  ASSERT_EQ(gate.lines.size(), 2u);
  EXPECT_EQ(gate.lines[0].outcome, Outcome::Passed);
  EXPECT_EQ(gate.lines[1].outcome, Outcome::Failed);
}

TEST(Accuracy, MinBytesLeavesOutSmallRows) {
  AccuracySettings s;
  s.minBytes = 64 * kKiB;
  const AccuracyResult r = run(knownErrors(scratch()), s);
  EXPECT_EQ(r.all().rows, 2);
  EXPECT_NEAR(r.all().maxAbsErrorPct, 20, 1e-9);
}

// A prediction priced with another implementation's calibration is no prediction for this one;
// without --impl it stands for any backend, and with --algo auto for any algorithm.
TEST(Accuracy, PredictionsMatchTheImplementationTheyPriced) {
  const auto dir = scratch();
  const auto measured = write(dir, "measured.json", {row(Collective::AllReduce, kMiB, 100), row(Collective::AllReduce, kMiB, 50, {}, "cclab", "ring")});
  const auto forCclab = write(dir, "cclab.json", {predicted(kMiB, 60, "ring")}, "ccsim", ccsimConfig("cclab", "ring"));
  const AccuracyResult r = accuracy(loadSide({forCclab}, "--predicted"), loadSide({measured}, "--measured"), {});
  ASSERT_EQ(r.rows.size(), 1u);
  EXPECT_NEAR(r.rows[0].errorPct, 20, 1e-9);
  ASSERT_EQ(r.unpredicted.size(), 1u);  // the mpi row
  EXPECT_TRUE(r.failed({}));
  AccuracySettings allow;
  allow.allowMissing = true;
  EXPECT_FALSE(r.failed(allow));

  const auto anyBackend = write(dir, "auto.json", {predicted(kMiB, 75, "rhd")}, "ccsim", ccsimConfig("", "auto"));
  const AccuracyResult both = accuracy(loadSide({anyBackend}, "--predicted"), loadSide({measured}, "--measured"), {});
  EXPECT_EQ(both.rows.size(), 2u);
  EXPECT_TRUE(both.unpredicted.empty());
  EXPECT_NEAR(both.all().maxAbsErrorPct, 50, 1e-9);  // 75 against 50
}

TEST(Accuracy, NothingInCommonIsBadInput) {
  const auto dir = scratch();
  const auto p = write(dir, "p.json", {predicted(kMiB, 60)}, "ccsim", ccsimConfig("mpi", "native"));
  const auto m = write(dir, "m.json", {row(Collective::AllGather, kMiB, 100)});
  EXPECT_THROW(accuracy(loadSide({p}, "--predicted"), loadSide({m}, "--measured"), {}), InputError);
}

}  // namespace
}  // namespace cclab::report
