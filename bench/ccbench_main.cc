// ccbench: nccl-tests-style collective benchmarks. See `ccbench --help` and the README.
//
// Exit codes: 0 success, 1 wrong results, 2 bad input, 3 timeout (no progress for -T seconds),
// 70 an internal error (a bug).

#include <mpi.h>

#include <cstdio>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#include "bench/driver.h"
#include "bench/train/train_bench.h"
#include "bench/train/train_options.h"
#include "results/interrupts.h"
#include "results/results.h"
#include "collectives/errors.h"

namespace {


int rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

// Whether rank 0 can write `paths`; the same verdict on every rank (InputError otherwise).
void checkWritableEverywhere(const std::vector<std::string>& paths) {
  std::string problem;
  if (rank() == 0) {
    try {
      for (const auto& path : paths) {
        if (!path.empty()) cclab::results::checkWritable(path);
      }
    } catch (const cclab::InputError& e) {
      problem = e.what();
    }
  }
  int writable = problem.empty() ? 1 : 0;
  MPI_Bcast(&writable, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (!writable) throw cclab::InputError(problem);
}

}  // namespace

int main(int argc, char** argv) {
  // `ccbench train` runs a thread per stream, each calling MPI on its own communicators.
  const bool train = argc > 1 && std::string_view(argv[1]) == "train";
  if (train) {
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    if (provided < MPI_THREAD_MULTIPLE) {
      if (rank() == 0) std::fprintf(stderr, "ccbench: error: ccbench train needs an MPI library with MPI_THREAD_MULTIPLE\n");
      MPI_Finalize();
      return cclab::kExitBadInput;
    }
  } else {
    MPI_Init(&argc, &argv);
  }
  cclab::results::installInterruptHandlers();  // an interrupted run leaves no half-written results file behind
  int code = 0;
  try {
    // Every rank parses the same command line and so reaches the same verdict. Rank 0 writes the
    // results: find out now, not after the run, whether it can.
    if (train) {
      auto options = cclab::bench::parseTrainOptions(argc, argv, std::cout);
      if (options) {
        checkWritableEverywhere({options->jsonPath, options->tracePath});
        code = cclab::bench::runTrainBench(*options);
      }
    } else if (auto options = cclab::bench::parseOptions(argc, argv, std::cout)) {
      checkWritableEverywhere({options->jsonPath, options->csvPath});
      code = cclab::bench::runBenchmark(*options);
    }
  } catch (const cclab::InputError& e) {
    // Every rank reaches the same verdict on bad input: one of them says it.
    if (rank() == 0) std::fprintf(stderr, "ccbench: error: %s\n", e.what());
    code = cclab::kExitBadInput;
  } catch (...) {
    // Not the input's fault, and maybe on one rank only: say which, and end the whole job.
    const std::string tool = "ccbench: rank " + std::to_string(rank());
    MPI_Abort(MPI_COMM_WORLD, cclab::reportError(tool, std::current_exception()));
  }
  MPI_Finalize();
  return code;
}
