#include <cmath>

#include <fmt/format.h>

#include "collectives/errors.h"
#include "results/results.h"

namespace cclab::results {

double algorithmBandwidthGBps(std::uint64_t sizeBytes, double timeUs) {
  return timeUs > 0 ? static_cast<double>(sizeBytes) / (timeUs * 1e-6) / 1e9 : 0.0;
}

double busBandwidthGBps(Collective collective, int nranks, std::uint64_t sizeBytes, double timeUs) {
  return algorithmBandwidthGBps(sizeBytes, timeUs) * busBandwidthFactor(collective, nranks);
}

void setTime(Row& row, double timeUs) {
  row.timeUs = timeUs;
  row.algbwGBps = algorithmBandwidthGBps(row.sizeBytes, timeUs);
  row.busbwGBps = busBandwidthGBps(row.collective, row.nranks, row.sizeBytes, timeUs);
}

void checkRow(const Row& row, const std::string& source, const std::string& where) {
  auto fail = [&](std::string_view field, const std::string& problem) {
    throw InputError(fmt::format("{}: {}: {} {}", source, where, field, problem));
  };
  // Up to 1e13 us (four months): a longer "collective" is a broken file, whose ratios would be inf.
  auto time = [&](std::string_view field, double value) {
    if (!std::isfinite(value) || value < 0 || value > 1e13) {
      fail(field, fmt::format("must be a time from 0 to 1e13 microseconds (got {})", value));
    }
  };
  if (row.nranks < 1 || row.nranks > kMaxRanks) fail("nranks", fmt::format("must be from 1 to {} (got {})", kMaxRanks, row.nranks));
  if (row.root < -1 || row.root >= row.nranks) fail("root", fmt::format("must be -1 or a rank from 0 to {} (got {})", row.nranks - 1, row.root));
  constexpr std::uint64_t kLargest = std::uint64_t{1} << 62;
  if (row.sizeBytes >= kLargest) fail("size_bytes", fmt::format("{} is too large (below 2^62)", row.sizeBytes));
  if (row.count >= kLargest) fail("count", fmt::format("{} is too large (below 2^62)", row.count));
  if (row.repeat < 0) fail("repeat", fmt::format("must be 0 or more (got {})", row.repeat));
  if (row.iters < 0) fail("iters", fmt::format("must be 0 or more (got {})", row.iters));
  time("time_us", row.timeUs);
  // Bytes take time to move; one rank in place moves none (ccsim predicts 0 there).
  if (row.timeUs == 0 && row.sizeBytes > 0 && !(row.nranks == 1 && row.inPlace)) {
    fail("time_us", fmt::format("is 0 for {} bytes (a measured time is positive)", row.sizeBytes));
  }
  for (const auto& [field, value] : {std::pair{"time_us_min", row.timeUsMin}, std::pair{"time_us_max", row.timeUsMax},
                                     std::pair{"time_us_p50", row.timeUsP50}, std::pair{"time_us_p99", row.timeUsP99}}) {
    if (value) time(field, *value);
  }
  for (double t : row.iterTimesUs) time("iter_times_us", t);
  if (!std::isfinite(row.algbwGBps) || row.algbwGBps < 0) fail("algbw_gbps", fmt::format("must be finite and 0 or more (got {})", row.algbwGBps));
  if (!std::isfinite(row.busbwGBps) || row.busbwGBps < 0) fail("busbw_gbps", fmt::format("must be finite and 0 or more (got {})", row.busbwGBps));
  if (row.wrong && *row.wrong < 0) fail("wrong", fmt::format("must be 0 or more (got {})", *row.wrong));
}

}  // namespace cclab::results
