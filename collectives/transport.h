#pragma once

// The small interface cclab's algorithms talk through. An algorithm only posts point-to-point
// transfers between ranks and waits for them; where the bytes travel (MPI, CUDA IPC, threads in one
// process) is the transport's business. Messages between one pair of ranks are matched in the order
// they are posted, as with MPI on a single tag, so algorithms need no tags.

#include <cstddef>
#include <cstdint>

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
};

}  // namespace cclab
