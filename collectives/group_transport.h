#pragma once

// A transport over some of another transport's ranks, renumbered 0..k-1 in the order given: the
// hierarchical algorithms run their node-local and cross-node parts over such groups. Messages go
// through the parent transport unchanged, so two groups sharing a pair of ranks share its ordering.

#include <vector>

#include "collectives/transport.h"

namespace cclab {

class GroupTransport final : public Transport {
 public:
  // `members`: parent ranks, distinct, including the parent's own rank.
  GroupTransport(Transport& parent, std::vector<int> members);
  int rank() const override { return rank_; }
  int size() const override { return static_cast<int>(members_.size()); }
  Request isend(const void* buf, std::size_t bytes, int peer) override { return parent_.isend(buf, bytes, members_.at(peer)); }
  Request irecv(void* buf, std::size_t bytes, int peer) override { return parent_.irecv(buf, bytes, members_.at(peer)); }
  void wait(Request request) override { parent_.wait(request); }
  bool fusesReceiveReduce() const override { return parent_.fusesReceiveReduce(); }
  Request irecvReduce(void* dst, const void* local, std::size_t count, DataType dtype, ReduceOp op, int peer) override {
    return parent_.irecvReduce(dst, local, count, dtype, op, members_.at(peer));
  }
  // drain() stays a no-op: the parent is drained once at the end of the whole collective.

 private:
  Transport& parent_;
  std::vector<int> members_;
  int rank_ = -1;
};

}  // namespace cclab
