#include "results/text_format.h"

#include <fmt/format.h>

namespace cclab::results {

std::string fitNumber(double value, int width) {
  int digits = 0;  // digits before the decimal point
  for (double magnitude = 1; value >= magnitude && digits < 40; magnitude *= 10) ++digits;
  if (digits < width - 2) return fmt::format("{:>{}.2f}", value, width);
  if (digits < width - 1) return fmt::format("{:>{}.1f}", value, width);
  if (digits < width + 1) return fmt::format("{:>{}.0f}", value, width);
  return fmt::format("{:>{}}", width >= 7 ? fmt::format("{:.1e}", value) : fmt::format("{:.0e}", value), width);
}

std::string rankLine(const RankPlacement& rank) {
  const std::string where = rank.core >= 0 && rank.device < 0 ? fmt::format("core {}", rank.core) : rank.busId;
  return fmt::format("#  Rank {:>2} Group {:>2} Pid {:>6} on {:>10} device {:>2} [{}] {}", rank.rank, 0, rank.pid,
                     rank.host, rank.device, where, rank.deviceName);
}

namespace {
std::string program(Collective collective) { return fmt::format("{}_perf", name(collective)); }
}  // namespace

std::string testHeader(Collective collective, std::string_view backend, std::string_view algorithm, std::string_view description) {
  return fmt::format("# Collective test starting: {}\n# Backend: {}  algorithm: {}{}\n", program(collective), backend, algorithm,
                     description.empty() ? "" : fmt::format("  ({})", description)) +
         columnHeader();
}

std::string outOfBoundsLine(std::int64_t wrong) { return fmt::format("# Out of bounds values : {} {}\n", wrong, wrong == 0 ? "OK" : "FAILED"); }

std::string averageBusBandwidthLine(std::span<const Row> rows) {
  double sum = 0;
  for (const Row& row : rows) sum += row.busbwGBps;
  return averageBusBandwidthLine(sum, rows.size());
}

std::string averageBusBandwidthLine(double busbwSum, std::size_t rows) {
  return fmt::format("# Avg bus bandwidth    : {:g} \n", rows == 0 ? 0.0 : busbwSum / static_cast<double>(rows));
}

std::string testConcluded(Collective collective) { return fmt::format("#\n# Collective test concluded: {}\n#\n", program(collective)); }

std::string columnHeader() {
  return "#                                                              out-of-place                       in-place          \n"
         "#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   busbw  #wrong \n"
         "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)             (us)  (GB/s)  (GB/s)         \n";
}

namespace {
std::string side(const Row& row) {
  // nccl-tests prints the count with %6g, and "N/A" one column narrower when nothing was checked.
  const std::string wrong = row.wrong ? fmt::format("{:>6g}", static_cast<double>(*row.wrong)) : std::string("  N/A");
  return fmt::format("  {}  {}  {}  {}", fitNumber(row.timeUs, 7), fitNumber(row.algbwGBps, 6),
                     fitNumber(row.busbwGBps, 6), wrong);
}
}  // namespace

std::string resultLine(const Row& outOfPlace, const Row& inPlace) {
  const std::string op = outOfPlace.op ? std::string(name(*outOfPlace.op)) : std::string("none");
  return fmt::format("{:>12}  {:>12}  {:>8}  {:>6}  {:>6}", outOfPlace.sizeBytes, outOfPlace.count,
                     name(outOfPlace.dtype), op, outOfPlace.root) +
         side(outOfPlace) + side(inPlace);
}

}  // namespace cclab::results
