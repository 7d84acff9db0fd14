#pragma once

// `ccbench train`'s command line: every `ccsim train` setting (the one settings table,
// sim/training/settings.h, and --plan), plus how the step runs for real: --backend, --algo,
// --device, --compute, and nccl-tests's -w -n -c -T -J letters. Parsing is pure (no MPI), so it is
// unit-tested directly; every rank parses the same line and reaches the same verdict.

#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "sim/training/settings.h"

namespace cclab::bench {

// What runs a compute task: the graph's GEMMs and element-wise passes for real (Eigen on the CPU),
// a sleep for the task's predicted seconds (communication alone is measured), or nothing.
enum class ComputeMode { Gemm, Sleep, None };
std::string_view name(ComputeMode mode);

struct TrainOptions {
  sim::TrainingSettings settings;
  std::string backend = "mpi";  // what runs the step's collectives: mpi or cclab (nccl: on GPUs)
  std::string algo = "ring";    // cclab's algorithm family
  std::string device = "cpu";
  ComputeMode compute = ComputeMode::Gemm;
  int warmup = 1;   // -w: steps run before the measured ones
  int iters = 5;    // -n: measured steps
  int check = 0;    // -c: 1 checks every collective of every step exactly (slows the step)
  double timeoutS = 300;
  std::string jsonPath;   // -J: the training-measurement record
  std::string tracePath;  // --trace: Chrome trace of the last measured step, a process per rank
  std::vector<std::string> command;
  // Test hooks (hidden from --help): stall one rank before the first step, or corrupt one element
  // of the first collective rank R checks.
  int debugStallRank = -1;
  int debugCorruptRank = -1;
};

// Parses `ccbench train ...` (argv[1] is "train"). InputError (one line) on bad input; nullopt
// after --help, written to `help`.
std::optional<TrainOptions> parseTrainOptions(int argc, const char* const* argv, std::ostream& help);

}  // namespace cclab::bench
