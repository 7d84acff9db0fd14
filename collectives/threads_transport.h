#pragma once

// A transport between threads of one process: rank i is a thread holding ThreadsTransport(group, i).
// The receiver copies straight from the sender's buffer once both sides have posted. Used to test
// the algorithms at any rank count without MPI, and to run ranks as threads.

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "collectives/transport.h"

namespace cclab {

// The state the ranks of one group share: per ordered pair of ranks, the sends and receives posted
// but not yet matched.
class ThreadGroup {
 public:
  explicit ThreadGroup(int size, std::chrono::milliseconds timeout = std::chrono::seconds(60));
  int size() const { return size_; }

 private:
  friend class ThreadsTransport;
  struct Transfer {
    const void* src = nullptr;  // set by the send
    void* dst = nullptr;        // set by the receive
    std::size_t bytes = 0;
    bool done = false;
    // A fused receive (irecvReduce): dst = local (op) src over `bytes`.
    const void* local = nullptr;
    DataType dtype = DataType::Float;
    ReduceOp op = ReduceOp::Sum;
  };
  using TransferPtr = std::shared_ptr<Transfer>;
  struct Pair {
    std::deque<TransferPtr> sends;  // posted sends not yet matched
    std::deque<TransferPtr> recvs;  // posted receives not yet matched
  };

  Pair& pair(int from, int to) { return pairs_[static_cast<std::size_t>(from * size_ + to)]; }

  int size_;
  std::chrono::milliseconds timeout_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<Pair> pairs_;
};

class ThreadsTransport final : public Transport {
 public:
  ThreadsTransport(ThreadGroup& group, int rank) : group_(group), rank_(rank) {}
  int rank() const override { return rank_; }
  int size() const override { return group_.size(); }
  Request isend(const void* buf, std::size_t bytes, int peer) override;
  Request irecv(void* buf, std::size_t bytes, int peer) override;
  // Throws std::runtime_error when the transfer does not complete within the group's timeout.
  void wait(Request request) override;
  // The sender's buffer is in this process: reduced from in place, by whichever side posts second.
  bool fusesReceiveReduce() const override { return true; }
  Request irecvReduce(void* dst, const void* local, std::size_t count, DataType dtype, ReduceOp op, int peer) override;

 private:
  Request track(ThreadGroup::TransferPtr transfer);
  Request post(ThreadGroup::TransferPtr receive, int peer);
  // With the group's mutex held: copy a matched transfer (both sides posted) and mark it done.
  void complete(ThreadGroup::Transfer& transfer, std::unique_lock<std::mutex>& lock);

  ThreadGroup& group_;
  int rank_;
  std::uint64_t nextId_ = 1;
  std::unordered_map<std::uint64_t, ThreadGroup::TransferPtr> pending_;
};

}  // namespace cclab
