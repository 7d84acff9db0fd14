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
  std::string source;  // the file
};

// Reads every file; throws InputError naming a file that is not a results file. Rows of
// predictions (backend "sim") are skipped: a prediction does not calibrate or validate a model;
// so are rows of size 0 (ccbench's 8 B all_gather of floats on 4 ranks: no element per rank),
// which time a call that moves nothing.
std::vector<Measurement> loadMeasurements(const std::vector<std::string>& paths);

// Keeps rows whose rank count is listed (all when `ranks` is empty) and whose size is at least
// `minBytes`.
std::vector<Measurement> selectMeasurements(const std::vector<Measurement>& all, const std::vector<int>& ranks, double minBytes);

}  // namespace cclab::sim
