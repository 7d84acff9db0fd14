#pragma once

// The planner behind `ccsim plan`: enumerates the parallel layouts of one model on one cluster —
// data/tensor/pipeline sizes, virtual stages, ZeRO stage, micro-batch and recompute — drops those
// that do not divide or do not fit in memory, and keeps the fastest by step time. Every layout is
// priced by its closed forms first (cheap, and a lower bound on the timeline); only those that
// could still enter the list, and whose step graph's memory floor fits, are simulated. Where
// nothing fits on the GPUs alone, it searches again with the model states offloaded as
// ZeRO-Offload and ZeRO-Infinity do (docs/training.md, "The planner").

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
  long notFitting = 0;     // rejected by memory (model states, the step graph's floor, or the simulated peak)
  long fitting = 0;        // simulated and fitting
  long simulated = 0;      // step graphs simulated
  long pruned = 0;         // not simulated: their closed form was already slower than the list
  long tooLarge = 0;       // not simulated: more than kMaxStepTasks tasks (millions of micro-batches)
  bool offloaded = false;  // nothing fit on the GPUs alone: the layouts above were searched offloading too
};

// `base` carries what the user fixed (GPUs, global batch, sequence, precision, optimizer, flash
// attention, sequence parallelism, ...); its layout fields are overwritten. `pricer` prices on
// jobCluster(cluster, base.gpus).
PlanResult plan(const ModelCard& model, const TrainConfig& base, TrainingPricer& pricer, const PlanSearch& search = {});

}  // namespace cclab::sim
