#pragma once

// The engine under the ring reduce-scatter, all-gather and all-reduce. A ring algorithm is a list
// of steps; in every step each rank sends one segment to its right neighbour and receives one from
// its left. The engine cuts every segment into the same number of chunks and pipelines them: chunk
// c of step t+1 leaves as soon as chunk c of step t has arrived (and been reduced), so while one
// chunk is being reduced the next is already on the wire.

#include <cstddef>
#include <span>
#include <vector>

#include "collectives/context.h"
#include "collectives/vocabulary.h"

namespace cclab {

// Segments may differ in size by an element (counts that do not divide by the rank count), so a
// step's outgoing and incoming segments each carry their own count; a rank's send count at step t
// is its right neighbour's receive count at step t.
struct RingStep {
  const void* send = nullptr;        // the segment this rank sends (step t>0: step t-1's dest)
  std::size_t sendCount = 0;         // its elements
  void* dest = nullptr;              // where the segment received this step ends up
  std::size_t recvCount = 0;         // its elements
  const void* reduceWith = nullptr;  // null: copy the received data to dest; else dest = reduceWith (op) received
  bool finishAvg = false;            // dest now holds a final sum: divide it by the rank count for Avg
};

// Scratch slots start on 16-byte boundaries, so the reduction kernels run their vector path on
// every slot (the CUDA kernel falls back to element-by-element loads, one byte at a time for int8
// and fp8, on a pointer off that alignment).
inline constexpr std::size_t kSlotAlignment = 16;
inline constexpr std::size_t alignedSlotBytes(std::size_t elements, std::size_t elementSize) {
  return (elements * elementSize + kSlotAlignment - 1) / kSlotAlignment * kSlotAlignment;
}

// Scratch the engine uses (at the start of ctx.scratch()): receive slots for reducing steps, each
// of a multiple of kSlotAlignment bytes.
std::size_t ringSlotBytes(Context& ctx, std::span<const RingStep> steps, DataType dtype);

// Runs the steps to completion. Callers that need scratch of their own place it after
// ringSlotBytes() in the same ctx.scratch() region.
void runRingSteps(Context& ctx, std::span<const RingStep> steps, DataType dtype, ReduceOp op);

// The two halves of the ring all-reduce of `args` (count elements cut into n segments by
// evenBlock), for algorithms built from them. After the reduce-scatter half rank r holds segment
// r+1 complete in args.recv (divided for Avg when `finishAvg`); the all-gather half passes the
// finished segments around.
void addRingReduceScatterHalf(std::vector<RingStep>& steps, int n, int r, const CollectiveArgs& args, bool finishAvg);
void addRingAllGatherHalf(std::vector<RingStep>& steps, int n, int r, const CollectiveArgs& args);

}  // namespace cclab
