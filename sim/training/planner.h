#pragma once

// The planner behind `ccsim plan`: enumerates the parallel layouts of one model on one cluster —
// data/tensor/pipeline sizes, virtual stages, ZeRO stage, micro-batch and recompute — drops those
// that do not divide or do not fit in memory, and keeps the fastest by step time.

#include <vector>

#include "sim/training/estimate.h"

namespace cclab::sim {

struct PlanSearch {
  int top = 10;           // how many plans to keep
  int maxMicroBatch = 64; // largest micro-batch tried (divisors of the per-replica batch up to it)
};

struct PlanResult {
  std::vector<TrainingEstimate> best;  // fastest first
  long explored = 0;       // layouts looked at
  long notDividing = 0;    // rejected by resolve(): sizes that do not divide, unsupported pairings
  long notFitting = 0;     // rejected by memory
  long fitting = 0;        // priced
};

// `base` carries what the user fixed (GPUs, global batch, sequence, precision, optimizer, flash
// attention, sequence parallelism, ...); its layout fields are overwritten. `pricer` prices on
// jobCluster(cluster, base.gpus).
PlanResult plan(const ModelCard& model, const TrainConfig& base, TrainingPricer& pricer, const PlanSearch& search = {});

}  // namespace cclab::sim
