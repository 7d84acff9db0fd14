#pragma once

#include "bench/options.h"

namespace cclab::bench {

// Runs the sweep `options` describes on MPI_COMM_WORLD: every backend, collective, datatype, op,
// root and size, out of place and in place. Rank 0 prints nccl-tests-format tables and writes
// the results files. Returns the exit code: 0, or 1 when a result was wrong. Throws InputError
// (the same on every rank) for input that only the running job can judge (root, memory).
int runBenchmark(const Options& options);

}  // namespace cclab::bench
