#pragma once

// Writing nccl-tests's text output (importNcclTestsText in results.h reads it), reproduced so that
// any parser written for nccl-tests reads ccbench's and ccsim's tables unchanged: the same header
// lines, column widths and number formatting.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "results/results.h"

namespace cclab::results {

// A number in at most `width` characters, as nccl-tests prints it: two decimals while they fit,
// then one, then none, then exponent notation.
std::string fitNumber(double value, int width);

// "#  Rank  0 Group  0 Pid   1234 on   hostname device -1 [core 3] AMD EPYC"
std::string rankLine(const RankPlacement& rank);

// The start of one collective's table: "# Collective test starting: all_reduce_perf", the backend
// line ("# Backend: mpi  algorithm: native  (<description>)"; no description: none in brackets)
// and the three column-header lines.
std::string testHeader(Collective collective, std::string_view backend, std::string_view algorithm, std::string_view description);
// The three column-header lines above the rows.
std::string columnHeader();
// "# Out of bounds values : 0 OK" (or "<n> FAILED").
std::string outOfBoundsLine(std::int64_t wrong);
// "# Avg bus bandwidth    : <mean busbw of `rows`> ".
std::string averageBusBandwidthLine(std::span<const Row> rows);
// The same from the sum of the rows' busbw (added in their order) and their number, for a run that
// does not keep its rows.
std::string averageBusBandwidthLine(double busbwSum, std::size_t rows);
// The end of one collective's table.
std::string testConcluded(Collective collective);

// One row: the out-of-place and in-place measurements of one size.
std::string resultLine(const Row& outOfPlace, const Row& inPlace);

}  // namespace cclab::results
