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
  bool waitingRanksYield = false;  // cclab's rows: its transport's waiting ranks yielded their cores (results::cclabWaitingRanksYield)
  std::string source;  // the file (the first, for several launches)
  int repeats = 1;     // launches this row stands for (mergeRepeats)
  double singleCopyBytes = 0;  // cclab's rows over shared memory: messages this large took one copy (results::cclabSingleCopyBytes); 0: never
  double packedBytes = 0;  // cclab's rows: messages this small travelled packed (results::cclabPackedBytes); 0: none; -1: not recorded
  double hostCopyPieceBytes = -1;  // cclab's rows: the pieces its host copies went in (results::cclabHostCopyPieceBytes); -1: not recorded
  bool sharedHostBuffers = false;  // cclab's rows: its buffers were shared memory the peers mapped (results::cclabSharedHostBuffers)
};

// How rows that measured the same thing in several launches become one (mergeRepeats).
// Fastest: on a shared host slow spells only ever add time, so the fastest launch is the machine
// undisturbed, and the most repeatable (docs/algorithm-validation.md, "Which launch a row stands for").
enum class Launches { Fastest, Median };
// "fastest" or "median"; anything else is an InputError naming `flag`.
Launches parseLaunches(const std::string& text, const std::string& flag);

// Reads every file; throws InputError naming a file that is not a results file. Rows of
// predictions (backend "sim") are skipped: a prediction does not calibrate or validate a model;
// so are rows of size 0 (ccbench's 8 B all_gather of floats on 4 ranks: no element per rank),
// which time a call that moves nothing. Rows that measured the same thing in several launches
// or passes come back as one (mergeRepeats).
std::vector<Measurement> loadMeasurements(const std::vector<std::string>& paths, Launches launches = Launches::Fastest);

// Rows that measured the same thing (backend, algorithm, collective, datatype, op, root, place,
// ranks, size, and the run's placement and transport), in several files or ccbench -N passes, become one row
// whose time is the fastest launch's, or their median (the mean of the middle two for an even
// count), bandwidths scaled to match, in the order each first appears. A launch that fell in a
// slow spell of the host then moves neither a fit nor a check.
std::vector<Measurement> mergeRepeats(const std::vector<Measurement>& rows, Launches launches = Launches::Fastest);

// ", each the fastest of 5 launches" (or "the median of 3 to 5") when rows stand for several
// launches; "" otherwise: what calibrate's and validate's reports add to their row count.
std::string repeatsNote(const std::vector<Measurement>& rows, Launches launches);

// Keeps rows whose rank count is listed (all when `ranks` is empty) and whose size is at least
// `minBytes`.
std::vector<Measurement> selectMeasurements(const std::vector<Measurement>& all, const std::vector<int>& ranks, double minBytes);

}  // namespace cclab::sim
