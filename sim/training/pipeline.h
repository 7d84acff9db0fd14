#pragma once

// Pipeline schedules: GPipe, 1F1B and interleaved 1F1B (Megatron-LM). The closed forms price a
// step; simulateSchedule runs the schedule task by task (each device executing its forward and
// backward passes in the schedule's order, each pass waiting for the one it depends on) so tests
// can check the closed forms against the schedule itself.

#include <vector>

#include "sim/training/train_config.h"

namespace cclab::sim {

// p stages, m micro-batches, v model chunks per device (interleaved; 1 otherwise).
struct PipelineShape {
  Schedule schedule = Schedule::OneFOneB;
  int stages = 1;
  int microBatches = 1;
  int chunks = 1;
};

// The idle time of a step as a share of the step: (p-1) / (v*m + p - 1) — the way the seed
// documents quote it (GPipe: (p-1)/(m+p-1)).
double bubbleFraction(const PipelineShape& s);
// The idle time relative to the ideal (bubble-free) step: (p-1) / (v*m) — Megatron-LM's way.
double bubbleOverIdeal(const PipelineShape& s);
// The step of one device given a micro-batch's forward and backward time on a full stage
// (all its chunks): (m + (p-1)/v) * (forward + backward).
double pipelineTime(const PipelineShape& s, double forward, double backward);
// Chunks whose activations the first device holds at the worst moment: GPipe m*v... all
// micro-batches; 1F1B min(p, m); interleaved 2(p-1) + (v-1)p + 1 (capped at m*v).
int peakInFlightChunks(const PipelineShape& s);

// The transformer layers of pipeline stage `stage` of `stages`: as even as they go. When the stages
// do not divide the layers (the 1F1B schedules only), the lighter stages are the ends, first and
// last and then inwards, because the ends also carry the embedding and the logits: Llama 3 405B's
// 126 layers on 16 stages (7 on the first and the last, 8 on the rest: "one layer fewer" on each,
// Dubey et al. 2024, Sec. 3.3.2), DeepSpeed's split of BLOOM's 70 layers and its two embedding
// layers on 12 stages (5 on the ends, 6 on the rest).
int stageLayers(int layers, int stages, int stage);
// The most layers any stage holds: ceil(layers / stages).
inline int maxStageLayers(int layers, int stages) { return (layers + stages - 1) / stages; }

// One forward or backward pass of one micro-batch through one of a device's model chunks.
struct ScheduledPass {
  bool forward;
  int microBatch;
  int chunk;
};
// Each device's passes in the order its schedule runs them (GPipe: every forward first; 1F1B:
// p-d-1 forwards, then one forward and one backward in turn; interleaved: Megatron-LM's order,
// micro-batches in groups of p through each chunk).
std::vector<std::vector<ScheduledPass>> scheduleOrders(const PipelineShape& s);

struct SimulatedSchedule {
  double makespan = 0;
  std::vector<double> busy;          // per device: time spent computing
  std::vector<int> peakInFlight;     // per device: most chunks whose forward is done and backward not
};
SimulatedSchedule simulateSchedule(const PipelineShape& s, double forward, double backward);

}  // namespace cclab::sim
