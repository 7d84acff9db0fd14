#include "report/statistics.h"

#include <gtest/gtest.h>

namespace cclab::report {
namespace {

// scipy.stats.mannwhitneyu's documented example (exact: 5 and 4 values, no ties): U = 17, p = 1/9.
TEST(MannWhitneyU, ExactSmallSamplesAsScipy) {
  const UTest t = mannWhitneyU({19, 22, 16, 29, 24}, {20, 11, 17, 12});
  EXPECT_TRUE(t.exact);
  EXPECT_DOUBLE_EQ(t.u, 17);
  EXPECT_NEAR(t.pValue, 1.0 / 9, 1e-12);
}

// Complete separation: only 2 of C(10,5) = 252 orderings are as extreme.
TEST(MannWhitneyU, ExactCompleteSeparation) {
  EXPECT_NEAR(mannWhitneyU({1, 2, 3, 4, 5}, {6, 7, 8, 9, 10}).pValue, 2.0 / 252, 1e-12);
  EXPECT_NEAR(mannWhitneyU({6, 7, 8, 9, 10}, {1, 2, 3, 4, 5}).pValue, 2.0 / 252, 1e-12);
  // 3 against 3 can never reach p < 0.05: 2/20.
  EXPECT_NEAR(mannWhitneyU({1, 2, 3}, {4, 5, 6}).pValue, 0.1, 1e-12);
}

// 1..8 against 5..12: ties 5-8 share ranks. U = 6 pairs a > b + 4 ties / 2 = 8; the tie term is
// 4 * (2^3 - 2) = 24; sigma = sqrt(8*8/12 * (17 - 24/(16*15))) = 9.4939; z = (56 - 32 - 0.5) / sigma
// = 2.4753; p = erfc(z / sqrt 2) = 0.013313.
TEST(MannWhitneyU, NormalApproximationWithTies) {
  const UTest t = mannWhitneyU({1, 2, 3, 4, 5, 6, 7, 8}, {5, 6, 7, 8, 9, 10, 11, 12});
  EXPECT_FALSE(t.exact);
  EXPECT_DOUBLE_EQ(t.u, 8);
  EXPECT_NEAR(t.pValue, 0.013313, 1e-6);
}

TEST(MannWhitneyU, IdenticalSamplesShowNoDifference) {
  EXPECT_DOUBLE_EQ(mannWhitneyU({3, 3, 3, 3, 3, 3, 3, 3}, {3, 3, 3, 3, 3, 3, 3, 3}).pValue, 1);
  EXPECT_DOUBLE_EQ(mannWhitneyU({1, 2, 3, 4}, {1.5, 2.5, 3.5}).pValue, 1);
}

// Exact for one small sample against a large one (the table stays small).
TEST(MannWhitneyU, ExactWithOneLargeSample) {
  std::vector<double> large;
  for (int i = 0; i < 500; ++i) large.push_back(i);
  const UTest t = mannWhitneyU({1000, 1001}, large);
  EXPECT_TRUE(t.exact);
  EXPECT_NEAR(t.pValue, 2.0 / (501.0 * 502.0 / 2), 1e-12);  // 2 / C(502, 2)
}

TEST(Statistics, MedianAndMean) {
  EXPECT_DOUBLE_EQ(median({5, 1, 3}), 3);
  EXPECT_DOUBLE_EQ(median({4, 1, 3, 2}), 2.5);
  EXPECT_DOUBLE_EQ(mean({1, 2, 6}), 3);
}

}  // namespace
}  // namespace cclab::report
