#pragma once

// The engine under the ring reduce-scatter, all-gather and all-reduce. A ring algorithm is a list
// of steps; in every step each rank sends one segment to its right neighbour and receives one from
// its left. The engine cuts every segment into the same number of chunks and pipelines them: chunk
// c of step t+1 leaves as soon as chunk c of step t has arrived (and been reduced), so while one
// chunk is being reduced the next is already on the wire.

#include <cstddef>
#include <span>

#include "collectives/context.h"
#include "collectives/vocabulary.h"

namespace cclab {

struct RingStep {
  const void* send = nullptr;        // the segment this rank sends (step t>0: step t-1's dest)
  void* dest = nullptr;              // where the segment received this step ends up
  const void* reduceWith = nullptr;  // null: copy the received data to dest; else dest = reduceWith (op) received
  std::size_t count = 0;             // elements in the segment, the same on sender and receiver
  bool finishAvg = false;            // dest now holds a final sum: divide it by the rank count for Avg
};

// Scratch the engine uses (at the start of ctx.scratch()): receive slots for reducing steps.
std::size_t ringSlotBytes(Context& ctx, std::span<const RingStep> steps, DataType dtype);

// Runs the steps to completion. Callers that need scratch of their own place it after
// ringSlotBytes() in the same ctx.scratch() region.
void runRingSteps(Context& ctx, std::span<const RingStep> steps, DataType dtype, ReduceOp op);

}  // namespace cclab
