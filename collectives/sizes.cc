#include "collectives/sizes.h"

#include <charconv>
#include <cmath>

#include <fmt/format.h>

#include "collectives/errors.h"

namespace cclab {

std::size_t parseSize(std::string_view text, std::string_view flag) {
  std::size_t value = 0;
  const char* begin = text.data();
  const char* end = text.data() + text.size();
  auto [next, error] = std::from_chars(begin, end, value);
  if (error == std::errc::result_out_of_range) throw InputError(fmt::format("{} '{}' is too large", flag, text));
  if (error != std::errc() || next == begin) throw InputError(fmt::format("{} '{}' is not a size (e.g. 8, 64K, 256M, 4G)", flag, text));
  std::size_t multiplier = 1;
  const std::string_view suffix(next, static_cast<std::size_t>(end - next));
  if (suffix == "K" || suffix == "k") multiplier = std::size_t{1} << 10;
  else if (suffix == "M" || suffix == "m") multiplier = std::size_t{1} << 20;
  else if (suffix == "G" || suffix == "g") multiplier = std::size_t{1} << 30;
  else if (!suffix.empty()) throw InputError(fmt::format("{} '{}' has an unknown unit (use K, M or G)", flag, text));
  // Sizes become element counts and offsets on every rank: keep well clear of overflow (1 PiB).
  constexpr std::size_t kLargest = std::size_t{1} << 50;
  if (value > kLargest / multiplier) throw InputError(fmt::format("{} '{}' is too large", flag, text));
  return value * multiplier;
}

double parseNumber(std::string_view text, std::string_view flag, double min, double max) {
  double value = 0;
  const char* end = text.data() + text.size();
  auto [next, error] = std::from_chars(text.data(), end, value);
  if (error != std::errc() || next != end || text.empty() || !std::isfinite(value)) {
    throw InputError(fmt::format("{} '{}' is not a finite number", flag, text));
  }
  if (value < min || value > max) throw InputError(fmt::format("{} {} is out of range ({:g} to {:g})", flag, text, min, max));
  return value;
}

std::string describeBytes(std::size_t bytes) {
  constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  int unit = 0;
  double value = static_cast<double>(bytes);
  while (value >= 1024 && unit < 5) {
    value /= 1024;
    ++unit;
  }
  return value == static_cast<double>(static_cast<std::uint64_t>(value)) ? fmt::format("{} {}", static_cast<std::uint64_t>(value), kUnits[unit])
                                                                        : fmt::format("{:.1f} {}", value, kUnits[unit]);
}

void checkSweep(const Sweep& sweep) {
  if (sweep.minBytes > sweep.maxBytes) {
    throw InputError(fmt::format("-b {} is larger than -e {}: the sweep would be empty", describeBytes(sweep.minBytes),
                                 describeBytes(sweep.maxBytes)));
  }
  if (sweep.stepFactor < 1) throw InputError(fmt::format("-f must be at least 1 (got {})", sweep.stepFactor));
  if (sweep.stepFactor > 1 && sweep.minBytes == 0 && sweep.maxBytes > 0) {
    throw InputError(fmt::format("-b 0 never grows by -f {}: start the sweep at -b 1 or more", sweep.stepFactor));
  }
  if (sweep.stepFactor == 1 && sweep.stepBytes == 0 && sweep.minBytes < sweep.maxBytes) {
    throw InputError("-i must be at least 1 byte when -f is 1");
  }
  // A sweep is a table a person reads: refuse one of more than a million sizes (-b 1 -e 1G -i 1).
  constexpr std::size_t kMostSizes = 1'000'000;
  if (sweep.stepFactor == 1 && sweep.stepBytes > 0 && (sweep.maxBytes - sweep.minBytes) / sweep.stepBytes >= kMostSizes) {
    throw InputError(fmt::format("-b {} to -e {} by -i {} is more than {} sizes: use a larger -i or -f", sweep.minBytes, sweep.maxBytes,
                                 sweep.stepBytes, kMostSizes));
  }
}

std::vector<std::size_t> sweepSizes(const Sweep& sweep) {
  std::vector<std::size_t> sizes;
  for (std::size_t size = sweep.minBytes; size <= sweep.maxBytes;) {
    sizes.push_back(size);
    const std::size_t step = static_cast<std::size_t>(sweep.stepFactor);
    if (sweep.stepFactor > 1 && size > sweep.maxBytes / step) break;  // the next size is past -e (and would overflow)
    const std::size_t next = sweep.stepFactor > 1 ? size * step : size + sweep.stepBytes;
    if (next <= size) break;  // a single size of 0, or -i 0 with -b == -e
    size = next;
  }
  return sizes;
}

Sweep SweepFlags::parse() const {
  Sweep sweep;
  sweep.minBytes = parseSize(minBytes, "-b");
  sweep.maxBytes = parseSize(maxBytes, "-e");
  sweep.stepBytes = parseSize(stepBytes, "-i");
  sweep.stepFactor = stepFactor;
  checkSweep(sweep);
  return sweep;
}

}  // namespace cclab
