#pragma once

// The small interface cclab's algorithms talk through. An algorithm only posts point-to-point
// transfers between ranks and waits for them; where the bytes travel (MPI, CUDA IPC, threads in one
// process) is the transport's business. Messages between one pair of ranks are matched in the order
// they are posted, as with MPI on a single tag, so algorithms need no tags.

#include <cstddef>
#include <cstdint>
#include <stdexcept>

#include "collectives/vocabulary.h"

namespace cclab {

// A posted transfer. Each must be waited on exactly once.
struct Request {
  std::uint64_t id = 0;
};

class Transport {
 public:
  virtual ~Transport() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // Start sending `bytes` from `buf` to `peer`; the buffer must stay untouched until waited on.
  virtual Request isend(const void* buf, std::size_t bytes, int peer) = 0;
  // Start receiving `bytes` from `peer` into `buf`; the size must match the peer's send.
  virtual Request irecv(void* buf, std::size_t bytes, int peer) = 0;
  // Block until the transfer is complete.
  virtual void wait(Request request) = 0;

  // NCCL's recvReduceCopy: receive `count` elements of `dtype` from `peer` and leave
  // dst = local (op) received, reading the peer's buffer in place (one pass over each operand:
  // three where landing in scratch and reducing afterwards makes five). Transports that can
  // (threads: the peer's memory is ours; CUDA IPC: one kernel over the mapped buffer) say so;
  // for the others (MPI) algorithms receive into scratch and reduce (ring_pipeline.cc). `dst` and
  // `local` must be ready when posted: the reduction may run as soon as the peer's send matches.
  virtual bool fusesReceiveReduce() const { return false; }

  // Finishes what the transport still owes its peers once every request has been waited on (CUDA
  // IPC: the acknowledgements of receives whose kernels were still running when waited on).
  // AlgorithmCommunicator calls it at the end of every collective.
  virtual void drain() {}
  // AlgorithmCommunicator calls it before every collective: a transport whose protocol depends on
  // the call's pattern picks it here (shared memory: the single-copy threshold of a rooted call).
  virtual void beginCall(Collective collective) { (void)collective; }
  virtual Request irecvReduce(void* dst, const void* local, std::size_t count, DataType dtype, ReduceOp op, int peer) {
    (void)dst, (void)local, (void)count, (void)dtype, (void)op, (void)peer;
    throw std::logic_error("irecvReduce on a transport that does not fuse it");
  }
};

}  // namespace cclab
