#pragma once

// Measured rows with the placement they ran on, read from any results file the results library
// reads (ccbench JSON/CSV, nccl-tests text and -J JSON): what calibration and validation consume.

#include <string>
#include <vector>

#include "results/results.h"

namespace cclab::sim {

struct Measurement {
  results::Row row;
  int nodes = 1;       // of the run the row came from
  int perDevice = 1;   // the most ranks of that run on one GPU (several: they shared it, as under MPS)
  int emulatedPerNode = 0;  // ccbench --ranks-per-node of that run (Shape::emulatedPerNode); 0: none
  int copiesPerMessage = 0; // cclab's rows: copies per message of the transport it ran over (results::cclabCopiesPerMessage); 0: unknown
  std::string source;  // the file (the first, for a median of several)
  int repeats = 1;     // rows this one is the median of (mergeRepeats)
};

// Reads every file; throws InputError naming a file that is not a results file. Rows of
// predictions (backend "sim") are skipped: a prediction does not calibrate or validate a model;
// so are rows of size 0 (ccbench's 8 B all_gather of floats on 4 ranks: no element per rank),
// which time a call that moves nothing. Rows that measured the same thing in several launches
// or passes come back as one (mergeRepeats).
std::vector<Measurement> loadMeasurements(const std::vector<std::string>& paths);

// Rows that measured the same thing (backend, algorithm, collective, datatype, op, root, place,
// ranks, size, and the run's placement and transport), in several files or ccbench -N passes, become one row
// whose time is their median (the mean of the middle two for an even count; bandwidths scaled to
// match), in the order each first appears. One launch that fell in a slow spell of the host
// then moves neither a fit nor a check, as nccl-tests users take the median of repeated runs.
std::vector<Measurement> mergeRepeats(const std::vector<Measurement>& rows);

// ", each the median of 5 launches" (or "of 3 to 5") when the rows are medians; "" otherwise:
// what calibrate's and validate's reports add to their row count.
std::string repeatsNote(const std::vector<Measurement>& rows);

// Keeps rows whose rank count is listed (all when `ranks` is empty) and whose size is at least
// `minBytes`.
std::vector<Measurement> selectMeasurements(const std::vector<Measurement>& all, const std::vector<int>& ranks, double minBytes);

}  // namespace cclab::sim
