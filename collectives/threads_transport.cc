#include "collectives/threads_transport.h"

#include <cstring>
#include <stdexcept>

#include <fmt/format.h>

#include "collectives/reduce_kernels.h"

namespace cclab {

ThreadGroup::ThreadGroup(int size, std::chrono::milliseconds timeout)
    : size_(size), timeout_(timeout), pairs_(static_cast<std::size_t>(size * size)) {}

Request ThreadsTransport::isend(const void* buf, std::size_t bytes, int peer) {
  std::unique_lock lock(group_.mutex_);
  auto& pair = group_.pair(rank_, peer);
  if (!pair.recvs.empty()) {  // the receiver was first: fill in its transfer
    auto transfer = pair.recvs.front();
    pair.recvs.pop_front();
    if (transfer->bytes != bytes) {
      throw std::logic_error(fmt::format("rank {} sends {} bytes to rank {}, which expects {}", rank_, bytes, peer,
                                         transfer->bytes));
    }
    transfer->src = buf;
    complete(*transfer, lock);
    return track(transfer);
  }
  auto transfer = std::make_shared<ThreadGroup::Transfer>();
  transfer->src = buf;
  transfer->bytes = bytes;
  pair.sends.push_back(transfer);
  return track(transfer);
}

Request ThreadsTransport::irecv(void* buf, std::size_t bytes, int peer) {
  auto receive = std::make_shared<ThreadGroup::Transfer>();
  receive->dst = buf;
  receive->bytes = bytes;
  return post(std::move(receive), peer);
}

Request ThreadsTransport::irecvReduce(void* dst, const void* local, std::size_t count, DataType dtype, ReduceOp op, int peer) {
  auto receive = std::make_shared<ThreadGroup::Transfer>();
  receive->dst = dst;
  receive->bytes = count * sizeOf(dtype);
  receive->local = local;
  receive->dtype = dtype;
  receive->op = op;
  return post(std::move(receive), peer);
}

Request ThreadsTransport::post(ThreadGroup::TransferPtr receive, int peer) {
  std::unique_lock lock(group_.mutex_);
  auto& pair = group_.pair(peer, rank_);
  if (!pair.sends.empty()) {  // the sender was first: its transfer takes this receive's side
    auto transfer = pair.sends.front();
    pair.sends.pop_front();
    if (transfer->bytes != receive->bytes) {
      throw std::logic_error(fmt::format("rank {} expects {} bytes from rank {}, which sends {}", rank_, receive->bytes, peer,
                                         transfer->bytes));
    }
    transfer->dst = receive->dst;
    transfer->local = receive->local;
    transfer->dtype = receive->dtype;
    transfer->op = receive->op;
    complete(*transfer, lock);
    return track(transfer);
  }
  pair.recvs.push_back(receive);
  return track(receive);
}

void ThreadsTransport::complete(ThreadGroup::Transfer& transfer, std::unique_lock<std::mutex>& lock) {
  // Both buffers stay valid until both sides waited, so the copy may run without the lock.
  lock.unlock();
  if (transfer.bytes > 0 && transfer.local != nullptr) {
    reduceHost(transfer.dst, transfer.local, transfer.src, transfer.bytes / sizeOf(transfer.dtype), transfer.dtype, transfer.op);
  } else if (transfer.bytes > 0) {
    std::memcpy(transfer.dst, transfer.src, transfer.bytes);
  }
  lock.lock();
  transfer.done = true;
  group_.changed_.notify_all();
}

Request ThreadsTransport::track(ThreadGroup::TransferPtr transfer) {
  const std::uint64_t id = nextId_++;
  pending_.emplace(id, std::move(transfer));
  return Request{id};
}

void ThreadsTransport::wait(Request request) {
  auto it = pending_.find(request.id);
  if (it == pending_.end()) throw std::logic_error("wait on an unknown or finished request");
  auto transfer = it->second;
  pending_.erase(it);
  std::unique_lock lock(group_.mutex_);
  if (!group_.changed_.wait_for(lock, group_.timeout_, [&] { return transfer->done; })) {
    throw std::runtime_error(fmt::format("rank {}: a transfer did not complete within {} ms (peer never posted it)",
                                         rank_, group_.timeout_.count()));
  }
}

}  // namespace cclab
