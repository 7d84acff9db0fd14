#pragma once

// `ccbench train`: builds the step graph of the settings (sim::runTraining, the same graph and
// prediction as `ccsim train`), checks the layout against the ranks mpirun started, runs -w + -n
// steps with StepRunner, and reports per step: time (max over ranks from a common barrier), its
// parts read off the slowest rank's measured timeline as ccsim reads its simulated one
// (sim::attributeStage), the share of data-parallel communication hidden, skew between ranks and
// peak RSS; beside the prediction. Writes the training-measurement record (-J) and a Chrome
// trace (--trace). Returns the exit code: 0, or 1 when a check found a wrong element.

#include "bench/train/train_options.h"

namespace cclab::bench {

int runTrainBench(const TrainOptions& options);

}  // namespace cclab::bench
