// Ring send/receive: every rank sends its buffer to its right neighbour and receives its left
// neighbour's, all pairs at once (nccl-tests's sendrecv pattern). Each rank sends the whole buffer.

#include "collectives/algorithms/algorithms.h"

namespace cclab {

void ringSendRecv(Context& ctx, const CollectiveArgs& args) {
  Transport& transport = ctx.transport();
  const int n = ctx.size();
  const std::size_t bytes = args.count * sizeOf(args.dtype);
  if (n == 1) {
    ctx.device().copy(args.recv, args.send, bytes);
    return;
  }
  // In place, the incoming data would overwrite what is still being sent: send from a copy.
  const void* input = args.send;
  if (args.send == args.recv) {
    void* copy = ctx.scratch(bytes);
    ctx.device().copy(copy, args.send, bytes);
    input = copy;
  }
  Request recv = transport.irecv(args.recv, bytes, (ctx.rank() + n - 1) % n);
  Request send = transport.isend(input, bytes, (ctx.rank() + 1) % n);
  transport.wait(recv);
  transport.wait(send);
}

}  // namespace cclab
