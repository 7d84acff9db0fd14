#pragma once

// Message sizes as every cclab command line takes them: bytes, with K/M/G as powers of 1024, and
// the sweep from -b to -e by -f (multiply) or -i (add), as nccl-tests defines it.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "collectives/errors.h"

namespace cclab {

// "8", "64K", "256M", "4G". Throws InputError naming `flag` on bad or too-large values.
std::size_t parseSize(std::string_view text, std::string_view flag);
// A number a flag takes: the whole of `text`, finite (no nan or inf), within [min, max].
// InputError naming `flag` otherwise.
double parseNumber(std::string_view text, std::string_view flag, double min, double max);
// For CLI11's Option::check: "" when the value is a finite number within [min, max], else why not.
// (CLI11's own number checks let nan through, and print DBL_MAX in 309 digits.)
inline auto finiteNumber(double min, double max) {
  return [min, max](const std::string& text) -> std::string {
    try {
      parseNumber(text, "the value", min, max);
      return "";
    } catch (const std::exception& e) {
      return e.what();
    }
  };
}
// CLI11: a flag given an empty value ('-J ""') is an error, never "unset" or zero.
template <class App>
void rejectEmptyValues(const App& app) {
  for (const auto* option : app.get_options()) {
    if (option->count() == 0 || option->get_expected_min() == 0) continue;  // not given, or a switch
    for (const std::string& value : option->results()) {
      if (value.empty()) throw InputError(std::string(option->get_name(false, true)).append(": empty value"));
    }
  }
  for (const auto* sub : app.get_subcommands()) rejectEmptyValues(*sub);
}

// 67108864 -> "64 MiB", for messages.
std::string describeBytes(std::size_t bytes);

struct Sweep {
  std::size_t minBytes = std::size_t{32} << 20;
  std::size_t maxBytes = std::size_t{32} << 20;
  std::size_t stepBytes = std::size_t{1} << 20;
  int stepFactor = 1;  // > 1: multiply the size each step; 1: add stepBytes
};

// Throws InputError for a sweep that is empty or never grows (-b > -e, -f < 1, -b 0 with -f, -i 0).
void checkSweep(const Sweep& sweep);
std::vector<std::size_t> sweepSizes(const Sweep& sweep);

// nccl-tests's sweep flags (-b -e -i -f) as ccbench and ccsim collective both take them: the
// texts as typed, with each tool's defaults, parsed into a checked Sweep.
struct SweepFlags {
  std::string minBytes, maxBytes, stepBytes = "1M";
  int stepFactor = 1;
  Sweep parse() const;  // InputError naming the flag
};
// Adds -b/--minbytes, -e/--maxbytes, -i/--stepbytes and -f/--stepfactor to a CLI11 App (a
// template, so this library does not need CLI11).
template <class App>
void addSweepFlags(App& app, SweepFlags& flags) {
  app.add_option("-b,--minbytes", flags.minBytes, "smallest message size (K/M/G = powers of 1024)")->capture_default_str();
  app.add_option("-e,--maxbytes", flags.maxBytes, "largest message size")->capture_default_str();
  app.add_option("-i,--stepbytes", flags.stepBytes, "size increment when -f is 1")->capture_default_str();
  app.add_option("-f,--stepfactor", flags.stepFactor, "size multiplier per step (1: add -i instead)")->capture_default_str();
}

}  // namespace cclab
