// Binomial-tree broadcast: ceil(log2 n) rounds; in round k every rank that has the data sends it
// to the rank 2^k further along (counted from the root). The whole buffer moves in each round, so
// it wins on latency for small messages where the pipelined chain wins on bandwidth.
//
// With v = a rank's distance from the root, v receives from v - m, where m is the lowest set bit
// of v, and then sends to v + m/2, v + m/4, ..., v + 1 (those below n).

#include <array>

#include "collectives/algorithms/algorithms.h"

namespace cclab {

void treeBroadcast(Context& ctx, const CollectiveArgs& args) {
  Transport& transport = ctx.transport();
  const int n = ctx.size();
  const int v = (ctx.rank() - args.root + n) % n;
  auto rankAt = [&](int distance) { return (distance + args.root) % n; };
  const std::size_t bytes = args.count * sizeOf(args.dtype);

  int mask = 1;
  while (mask < n && (v & mask) == 0) mask *= 2;  // the root ends with the first power of two >= n
  if (v != 0) transport.wait(transport.irecv(args.recv, bytes, rankAt(v - mask)));
  // The root sends out of its input, so its own copy into the output runs while its children
  // read (a large message's single copy) instead of before they can start.
  const void* source = v == 0 ? args.send : args.recv;
  std::array<Request, 32> sends;  // one per child, ceil(log2 n) <= 31 of them: no allocation per call
  std::size_t children = 0;
  for (mask /= 2; mask > 0; mask /= 2) {
    if (v + mask < n) sends[children++] = transport.isend(source, bytes, rankAt(v + mask));
  }
  if (v == 0) ctx.device().copy(args.recv, args.send, bytes);  // a no-op in place
  for (std::size_t c = 0; c < children; ++c) transport.wait(sends[c]);
}

}  // namespace cclab
