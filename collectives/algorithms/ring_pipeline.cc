#include "collectives/algorithms/ring_pipeline.h"

#include <algorithm>
#include <optional>
#include <vector>

#include "collectives/partition.h"

namespace cclab {
namespace {

// Chunks in flight per rank: enough to overlap receiving one chunk with reducing another.
constexpr std::size_t kPipelineDepth = 4;

std::size_t largestSegment(std::span<const RingStep> steps) {
  std::size_t largest = 0;
  for (const auto& step : steps) largest = std::max({largest, step.sendCount, step.recvCount});
  return largest;
}

}  // namespace

std::size_t ringSlotBytes(Context& ctx, std::span<const RingStep> steps, DataType dtype) {
  const std::size_t largest = largestSegment(steps);
  const std::size_t chunks = chunksFor(largest, sizeOf(dtype), ctx.chunkBytes());
  const std::size_t slotElements = (largest + chunks - 1) / chunks;
  return kPipelineDepth * alignedSlotBytes(slotElements, sizeOf(dtype));
}

void runRingSteps(Context& ctx, std::span<const RingStep> steps, DataType dtype, ReduceOp op) {
  if (steps.empty()) return;
  Transport& transport = ctx.transport();
  Device& device = ctx.device();
  const int n = ctx.size();
  const int right = (ctx.rank() + 1) % n;
  const int left = (ctx.rank() + n - 1) % n;
  const std::size_t elementSize = sizeOf(dtype);

  // Every step is cut into the same number of chunks; item k is chunk k % chunks of step k / chunks.
  const std::size_t chunks = chunksFor(largestSegment(steps), elementSize, ctx.chunkBytes());
  const std::size_t items = steps.size() * chunks;
  const std::size_t depth = std::min(kPipelineDepth, items);
  const std::size_t slotBytes = ringSlotBytes(ctx, steps, dtype) / kPipelineDepth;
  char* slots = static_cast<char*>(ctx.scratch(ringSlotBytes(ctx, steps, dtype)));

  auto sendChunk = [&](std::size_t item) { return evenBlock(steps[item / chunks].sendCount, chunks, item % chunks); };
  auto recvChunk = [&](std::size_t item) { return evenBlock(steps[item / chunks].recvCount, chunks, item % chunks); };

  // A step that writes a segment an earlier step sent from must first let that send finish (in
  // place, the all-gather half overwrites segments the reduce-scatter half sent from).
  std::vector<std::ptrdiff_t> hazard(steps.size(), -1);
  for (std::size_t t = 0; t < steps.size(); ++t) {
    for (std::size_t earlier = 0; earlier < t; ++earlier) {
      if (steps[earlier].send == steps[t].dest && steps[earlier].sendCount == steps[t].recvCount) {
        hazard[t] = static_cast<std::ptrdiff_t>(earlier);
      }
    }
  }

  std::vector<std::optional<Request>> sends(items);
  std::vector<Request> recvs(items);
  auto finishSend = [&](std::size_t item) {
    if (sends[item]) transport.wait(*sends[item]);
    sends[item].reset();
  };
  auto clearHazard = [&](std::size_t item) {
    const std::ptrdiff_t earlier = hazard[item / chunks];
    if (earlier >= 0) finishSend(static_cast<std::size_t>(earlier) * chunks + item % chunks);
  };
  auto postSend = [&](std::size_t item) {
    const Block chunk = sendChunk(item);
    sends[item] = transport.isend(elementAt(steps[item / chunks].send, chunk.offset, dtype),
                                  chunk.count * elementSize, right);
  };
  auto postRecv = [&](std::size_t item) {
    const RingStep& step = steps[item / chunks];
    const Block chunk = recvChunk(item);
    void* target = slots + (item % depth) * slotBytes;  // reducing steps land in a slot first
    if (step.reduceWith == nullptr) {
      clearHazard(item);
      target = elementAt(step.dest, chunk.offset, dtype);
    }
    recvs[item] = transport.irecv(target, chunk.count * elementSize, left);
  };

  // A transport that reduces as it receives (Transport::fusesReceiveReduce) reads the left
  // neighbour's chunk in place: no slots, each receive posted at its turn, once dest is free.
  const bool fused = transport.fusesReceiveReduce();

  // Transfers between a pair of ranks match in posting order, so both sides post in item order:
  // all of step 0 first (the caller's data, ready at once), then each forward as its chunk arrives.
  for (std::size_t item = 0; item < chunks; ++item) postSend(item);
  for (std::size_t item = 0; item < depth && !fused; ++item) postRecv(item);
  for (std::size_t item = 0; item < items; ++item) {
    const std::size_t t = item / chunks;
    const RingStep& step = steps[t];
    const Block chunk = recvChunk(item);
    char* dest = elementAt(step.dest, chunk.offset, dtype);
    if (fused) {
      // 1-2. Receive this chunk from the left neighbour, reduced with this rank's own contribution
      // on the way (reducing steps) or copied into place.
      clearHazard(item);
      recvs[item] = step.reduceWith != nullptr
                        ? transport.irecvReduce(dest, elementAt(step.reduceWith, chunk.offset, dtype), chunk.count, dtype, op, left)
                        : transport.irecv(dest, chunk.count * elementSize, left);
      transport.wait(recvs[item]);
    } else {
      // 1. Wait for this chunk from the left neighbour.
      transport.wait(recvs[item]);
      // 2. Reduce it with this rank's own contribution (reducing steps only).
      if (step.reduceWith != nullptr) {
        clearHazard(item);
        device.reduce(dest, elementAt(step.reduceWith, chunk.offset, dtype), slots + (item % depth) * slotBytes,
                      chunk.count, dtype, op);
      }
    }
    if (step.finishAvg && op == ReduceOp::Avg) device.divide(dest, chunk.count, dtype, n);
    // 3. Forward it: the same chunk of the next step is exactly what just arrived.
    if (t + 1 < steps.size()) postSend(item + chunks);
    // 4. Reuse the freed slot for the chunk `depth` items ahead.
    if (!fused && item + depth < items) postRecv(item + depth);
  }
  for (std::size_t item = 0; item < items; ++item) finishSend(item);
}

}  // namespace cclab
