#include "collectives/algorithms/recursive_fold.h"

namespace cclab {

void exchange(Transport& transport, const void* send, std::size_t sendBytes, void* recv, std::size_t recvBytes, int peer) {
  Request in{}, out{};
  if (sendBytes > 0) out = transport.isend(send, sendBytes, peer);  // the send first, as in exchangeReduce
  if (recvBytes > 0) in = transport.irecv(recv, recvBytes, peer);
  if (recvBytes > 0) transport.wait(in);
  if (sendBytes > 0) transport.wait(out);
}

void sendTo(Transport& transport, const void* send, std::size_t bytes, int peer) {
  if (bytes > 0) transport.wait(transport.isend(send, bytes, peer));
}

void receiveFrom(Transport& transport, void* recv, std::size_t bytes, int peer) {
  if (bytes > 0) transport.wait(transport.irecv(recv, bytes, peer));
}

void reduceInRankOrder(Device& device, void* dst, const void* mine, const void* theirs, bool theirsIsLower, std::size_t count,
                       DataType dtype, ReduceOp op) {
  if (theirsIsLower) {
    device.reduce(dst, theirs, mine, count, dtype, op);
  } else {
    device.reduce(dst, mine, theirs, count, dtype, op);
  }
}

ReceiveReduce::ReceiveReduce(Context& ctx, void* dst, const void* mine, std::size_t count, DataType dtype, ReduceOp op,
                             void* incoming, int peer)
    : ctx_(ctx), dst_(dst), mine_(mine), count_(count), dtype_(dtype), op_(op), incoming_(incoming), peer_(peer) {
  if (count_ == 0) return;
  Transport& transport = ctx.transport();
  request_ = transport.fusesReceiveReduce() ? transport.irecvReduce(dst, mine, count, dtype, op, peer)
                                            : transport.irecv(incoming, count * sizeOf(dtype), peer);
}

void ReceiveReduce::finish() {
  if (count_ == 0) return;
  ctx_.transport().wait(request_);
  if (ctx_.transport().fusesReceiveReduce()) return;  // reduced as it arrived
  reduceInRankOrder(ctx_.device(), dst_, mine_, incoming_, peer_ < ctx_.rank(), count_, dtype_, op_);
}

void exchangeReduce(Context& ctx, const void* send, std::size_t sendBytes, void* dst, const void* mine, std::size_t count,
                    DataType dtype, ReduceOp op, void* incoming, int peer) {
  // The send first, as the ring posts its sends before its receives: the peer's data is on its
  // way before this rank starts waiting for its own.
  Request out{};
  if (sendBytes > 0) out = ctx.transport().isend(send, sendBytes, peer);
  ReceiveReduce in(ctx, dst, mine, count, dtype, op, incoming, peer);
  in.finish();
  if (sendBytes > 0) ctx.transport().wait(out);
}

void receiveReduce(Context& ctx, void* dst, const void* mine, std::size_t count, DataType dtype, ReduceOp op, void* incoming,
                   int peer) {
  ReceiveReduce(ctx, dst, mine, count, dtype, op, incoming, peer).finish();
}

bool foldIn(Context& ctx, const Fold& fold, const void* input, void* buf, void* incoming, std::size_t count, DataType dtype,
            ReduceOp op) {
  const std::size_t bytes = count * sizeOf(dtype);
  if (fold.sitsOut()) {
    sendTo(ctx.transport(), input, bytes, ctx.rank() + 1);
    return false;
  }
  if (fold.standsIn()) receiveReduce(ctx, buf, input, count, dtype, op, incoming, ctx.rank() - 1);
  return true;
}

void foldOut(Context& ctx, const Fold& fold, void* buf, std::size_t bytes) {
  if (fold.sitsOut()) receiveFrom(ctx.transport(), buf, bytes, ctx.rank() + 1);
  if (fold.standsIn()) sendTo(ctx.transport(), buf, bytes, ctx.rank() - 1);
}

}  // namespace cclab
