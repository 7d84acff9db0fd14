// ccbench: nccl-tests-style collective benchmarks. See `ccbench --help` and the README.
//
// Exit codes: 0 success, 1 wrong results, 2 bad input, 3 timeout (no progress for -T seconds),
// 70 an internal error (a bug).

#include <mpi.h>

#include <cstdio>
#include <iostream>

#include "bench/driver.h"
#include "results/interrupts.h"
#include "results/results.h"
#include "collectives/errors.h"

namespace {


int rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  cclab::results::installInterruptHandlers();  // an interrupted run leaves no half-written results file behind
  int code = 0;
  try {
    // Every rank parses the same command line and so reaches the same verdict.
    auto options = cclab::bench::parseOptions(argc, argv, std::cout);
    if (options) {
      // Rank 0 writes the results: find out now, not after the sweep, whether it can.
      std::string problem;
      if (rank() == 0) {
        try {
          if (!options->jsonPath.empty()) cclab::results::checkWritable(options->jsonPath);
          if (!options->csvPath.empty()) cclab::results::checkWritable(options->csvPath);
        } catch (const cclab::InputError& e) {
          problem = e.what();
        }
      }
      int writable = problem.empty() ? 1 : 0;
      MPI_Bcast(&writable, 1, MPI_INT, 0, MPI_COMM_WORLD);
      if (!writable) throw cclab::InputError(problem);
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
