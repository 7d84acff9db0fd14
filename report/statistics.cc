#include "report/statistics.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <utility>

namespace cclab::report {
namespace {

// P(U >= u) under the null hypothesis, from the count of orderings with each U: c(m, n, u) =
// c(m-1, n, u-n) + c(m, n-1, u), the recurrence of Mann and Whitney (1947).
double exactUpperTail(int m, int n, double u) {
  if (m > n) std::swap(m, n);  // U's distribution is symmetric in the sizes; keep the table small
  // prev[j] / cur[j][k]: orderings of j values of the smaller sample and i (then i+1) of the
  // other with U = k.
  const int maxU = m * n;
  std::vector<std::vector<double>> prev(static_cast<std::size_t>(m) + 1), cur;
  for (int j = 0; j <= m; ++j) prev[j] = std::vector<double>(1, 1.0);  // i = 0: U is always 0
  for (int i = 1; i <= n; ++i) {
    cur.assign(static_cast<std::size_t>(m) + 1, {});
    cur[0] = std::vector<double>(1, 1.0);
    for (int j = 1; j <= m; ++j) {
      std::vector<double> counts(static_cast<std::size_t>(j * i) + 1, 0.0);
      // The largest value is the first sample's (it beats all i of the second) or the second's.
      for (std::size_t k = 0; k < cur[j - 1].size(); ++k) counts[k + static_cast<std::size_t>(i)] += cur[j - 1][k];
      for (std::size_t k = 0; k < prev[j].size(); ++k) counts[k] += prev[j][k];
      cur[j] = std::move(counts);
    }
    prev = std::move(cur);
  }
  const std::vector<double>& counts = prev[m];
  const double total = std::accumulate(counts.begin(), counts.end(), 0.0);
  double tail = 0;
  for (int k = static_cast<int>(std::ceil(u)); k <= maxU; ++k) tail += counts[static_cast<std::size_t>(k)];
  return tail / total;
}

}  // namespace

UTest mannWhitneyU(const std::vector<double>& a, const std::vector<double>& b) {
  const std::size_t n1 = a.size(), n2 = b.size(), n = n1 + n2;
  if (n1 == 0 || n2 == 0) throw std::invalid_argument("mannWhitneyU: a sample is empty");
  auto finite = [](double v) { return std::isfinite(v); };
  if (!std::all_of(a.begin(), a.end(), finite) || !std::all_of(b.begin(), b.end(), finite)) {
    throw std::invalid_argument("mannWhitneyU: a sample holds a value that is not finite");  // results rows never do (checkRow)
  }
  // Ranks of the pooled samples, ties sharing their average rank.
  std::vector<std::pair<double, bool>> pooled;  // value, from a
  for (double v : a) pooled.emplace_back(v, true);
  for (double v : b) pooled.emplace_back(v, false);
  std::sort(pooled.begin(), pooled.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  double rankSumA = 0, tieTerm = 0;
  for (std::size_t i = 0; i < n;) {
    std::size_t j = i + 1;  // a run of ties, at least one value long
    while (j < n && pooled[j].first == pooled[i].first) ++j;
    const double t = static_cast<double>(j - i);
    const double rank = (static_cast<double>(i + 1) + static_cast<double>(j)) / 2;
    for (std::size_t k = i; k < j; ++k) {
      if (pooled[k].second) rankSumA += rank;
    }
    tieTerm += t * t * t - t;
    i = j;
  }
  const double m1 = static_cast<double>(n1), m2 = static_cast<double>(n2);
  UTest result;
  result.u = rankSumA - m1 * (m1 + 1) / 2;
  const double uMax = std::max(result.u, m1 * m2 - result.u);
  if ((n1 < 8 || n2 < 8) && tieTerm == 0) {
    result.exact = true;
    result.pValue = std::min(1.0, 2 * exactUpperTail(static_cast<int>(n1), static_cast<int>(n2), uMax));
    return result;
  }
  const double nn = static_cast<double>(n);
  const double sigma = std::sqrt(m1 * m2 / 12 * ((nn + 1) - tieTerm / (nn * (nn - 1))));
  if (sigma == 0) return result;  // every value equal: no evidence of a difference
  const double z = (uMax - m1 * m2 / 2 - 0.5) / sigma;
  result.pValue = std::min(1.0, std::erfc(z / std::sqrt(2.0)));  // 2 * (1 - Phi(z))
  return result;
}

double mean(const std::vector<double>& values) {
  return values.empty() ? 0 : std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
}

}  // namespace cclab::report
