// Bruck's all-to-all: ceil(log2 n) steps instead of pairwise's n-1, for small blocks where the
// per-message latency dominates. Each step moves about half the buffer, so it loses on bytes.
//
// 1. Rotate: slot i of a scratch buffer holds the block for rank r+i.
// 2. In the step at distance d = 1, 2, 4, ...: every slot whose index has bit d set is packed and
//    sent to rank r+d; the same slots arrive from rank r-d and are unpacked in their place. A block
//    for rank r+i travels the bits of i, so it ends at rank r+i in slot i.
// 3. Slot i then holds rank r-i's block for this rank: unrotate into the output.

#include <vector>

#include "collectives/algorithms/algorithms.h"
#include "collectives/algorithms/ring_pipeline.h"

namespace cclab {

void bruckAllToAll(Context& ctx, const CollectiveArgs& args) {
  Transport& transport = ctx.transport();
  Device& device = ctx.device();
  const int n = ctx.size();
  const int r = ctx.rank();
  const std::size_t blockBytes = args.count * sizeOf(args.dtype);
  const std::size_t slotsBytes = alignedSlotBytes(args.count * static_cast<std::size_t>(n), sizeOf(args.dtype));
  const std::size_t packBytes = alignedSlotBytes(args.count * static_cast<std::size_t>(n / 2 + 1), sizeOf(args.dtype));
  char* slots = static_cast<char*>(ctx.scratch(slotsBytes + 2 * packBytes));
  char* packed = slots + slotsBytes;
  char* unpacked = packed + packBytes;
  auto slot = [&](int i) { return slots + static_cast<std::size_t>(i) * blockBytes; };
  auto block = [&](const void* base, int b) { return elementAt(base, static_cast<std::size_t>(b) * args.count, args.dtype); };
  auto outBlock = [&](int b) { return elementAt(args.recv, static_cast<std::size_t>(b) * args.count, args.dtype); };

  // 1. Rotate: ranks r..n-1 first, then 0..r-1 (reading the input before the output is written,
  // so in place works).
  device.copy(slot(0), block(args.send, r), static_cast<std::size_t>(n - r) * blockBytes);
  if (r > 0) device.copy(slot(n - r), block(args.send, 0), static_cast<std::size_t>(r) * blockBytes);

  std::vector<int> moving;
  for (int distance = 1; distance < n; distance *= 2) {  // 2
    moving.clear();
    for (int i = 1; i < n; ++i) {
      if (i & distance) moving.push_back(i);
    }
    for (std::size_t k = 0; k < moving.size(); ++k) device.copy(packed + k * blockBytes, slot(moving[k]), blockBytes);
    const std::size_t bytes = moving.size() * blockBytes;
    Request in = transport.irecv(unpacked, bytes, (r - distance + n) % n);
    Request out = transport.isend(packed, bytes, (r + distance) % n);
    transport.wait(in);
    transport.wait(out);
    for (std::size_t k = 0; k < moving.size(); ++k) device.copy(slot(moving[k]), unpacked + k * blockBytes, blockBytes);
  }
  for (int i = 0; i < n; ++i) device.copy(outBlock((r - i + n) % n), slot(i), blockBytes);  // 3
}

}  // namespace cclab
