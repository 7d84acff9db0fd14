// Pipelined chain broadcast: the root's buffer flows down the chain root, root+1, ..., root-1.
//
// The buffer is cut into chunks. Each rank after the root receives chunk c from its predecessor
// and passes it on to its successor while chunk c+1 is still arriving, so a large message costs
// about one buffer's transfer time plus one chunk per hop, not n-1 buffers.

#include <algorithm>
#include <array>
#include <memory_resource>
#include <vector>

#include "collectives/algorithms/algorithms.h"
#include "collectives/partition.h"

namespace cclab {
namespace {
constexpr std::size_t kDepth = 4;  // chunks a rank has posted to receive ahead
}

void chainBroadcast(Context& ctx, const CollectiveArgs& args) {
  Transport& transport = ctx.transport();
  const int n = ctx.size();
  const int position = (ctx.rank() - args.root + n) % n;  // distance from the root along the chain
  const int next = (ctx.rank() + 1) % n;
  const int prev = (ctx.rank() + n - 1) % n;
  const bool last = (position == n - 1);
  const std::size_t elementSize = sizeOf(args.dtype);
  const std::size_t chunks = chunksFor(args.count, elementSize, ctx.chunkBytes());
  auto chunk = [&](std::size_t c) { return evenBlock(args.count, chunks, c); };

  // The sends' requests on the stack up to 32 (a small message's call posts one): a heap
  // allocation a call was measurable in a stream of small broadcasts.
  std::array<std::byte, 32 * sizeof(Request)> arena;
  std::pmr::monotonic_buffer_resource resource(arena.data(), arena.size());
  std::pmr::vector<Request> sends(&resource);
  if (position == 0) {
    // The root sends every chunk of its input and keeps a copy in its output, chunk by chunk: each
    // copy runs while the next rank reads that chunk, then the root waits for the read. (One copy
    // of the whole buffer after posting the sends ran beside the first chunk only: a transport
    // that starts a channel's messages one at a time as the sender waits, as shm's single copies
    // do, left the next rank idle after it until the copy was done.)
    for (std::size_t c = 0; c < chunks && n > 1; ++c) {
      sends.push_back(transport.isend(elementAt(args.send, chunk(c).offset, args.dtype), chunk(c).count * elementSize, next));
    }
    for (std::size_t c = 0; c < chunks; ++c) {
      ctx.device().copy(elementAt(args.recv, chunk(c).offset, args.dtype), elementAt(args.send, chunk(c).offset, args.dtype),
                        chunk(c).count * elementSize);  // a no-op in place
      if (n > 1) transport.wait(sends[c]);
    }
    return;
  } else {
    const std::size_t depth = std::min(kDepth, chunks);
    std::array<Request, kDepth> recvs;  // chunk c's in recvs[c % kDepth]: posted after c - kDepth's wait
    auto postRecv = [&](std::size_t c) {
      recvs[c % kDepth] = transport.irecv(elementAt(args.recv, chunk(c).offset, args.dtype), chunk(c).count * elementSize, prev);
    };
    for (std::size_t c = 0; c < depth; ++c) postRecv(c);
    for (std::size_t c = 0; c < chunks; ++c) {
      transport.wait(recvs[c % kDepth]);                           // chunk c has arrived
      if (!last) {                                                 // pass it down the chain
        sends.push_back(transport.isend(elementAt(args.recv, chunk(c).offset, args.dtype), chunk(c).count * elementSize, next));
      }
      if (c + depth < chunks) postRecv(c + depth);
    }
  }
  for (Request& request : sends) transport.wait(request);
}

}  // namespace cclab
