#pragma once

// cclab's transport between processes whose buffers live on GPUs (one or several processes per
// GPU): the bytes move GPU to GPU by CUDA IPC, and MPI carries only small control messages.
//
// A send tells the receiver where its bytes are (the allocation's IPC handle and the offset); the
// receiver opens that memory once, copies from it on its device's stream, waits for the copy and
// acknowledges; the sender's request completes with the acknowledgement. While any request is
// waited on, the transport completes the receives whose descriptors have arrived (in posting
// order per peer), so two ranks waiting on their sends to each other never deadlock. MPI carries
// only the 96-byte descriptors and 8-byte acknowledgements. CUDA IPC works within one host.
//
// Lifetime: destroy the transport before the device; its destructor closes the peers' memory and
// waits for every rank to do so, since a device frees its exported memory when destroyed.

#include <mpi.h>

#include <cstdint>
#include <map>
#include <utility>

#include "collectives/cuda/cuda_device.h"
#include "collectives/transport.h"

namespace cclab {

class CudaIpcTransport final : public Transport {
 public:
  CudaIpcTransport(MPI_Comm comm, CudaDevice& device);
  ~CudaIpcTransport() override;
  CudaIpcTransport(const CudaIpcTransport&) = delete;
  CudaIpcTransport& operator=(const CudaIpcTransport&) = delete;

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  Request isend(const void* buf, std::size_t bytes, int peer) override;
  Request irecv(void* buf, std::size_t bytes, int peer) override;
  void wait(Request request) override;

 private:
  // What a sender tells its receiver (fixed size, sent as bytes).
  struct Descriptor {
    cudaIpcMemHandle_t handle;
    std::uint64_t serial;   // the sender's allocation number: the key of the opened mapping
    std::uint64_t offset;   // of the bytes in that allocation
    std::uint64_t bytes;
    std::uint64_t address;  // the sender's own pointer, used when sender and receiver are one process
  };
  struct Pending {
    bool isSend = false;
    bool done = false;
    int peer = 0;
    void* buf = nullptr;      // receives: where the bytes go
    std::size_t bytes = 0;
    Descriptor descriptor{};  // sends: what was sent; receives: what arrived
    std::uint64_t ack = 0;
    MPI_Request descriptorRequest = MPI_REQUEST_NULL;
    MPI_Request ackRequest = MPI_REQUEST_NULL;  // sends only
  };

  // Completes every receive whose descriptor has arrived, oldest first per peer.
  void progress();
  void completeReceive(Pending& receive);
  const char* peerMemory(int peer, const Descriptor& d);

  CudaDevice& device_;
  MPI_Comm comm_;
  int rank_ = 0;
  int size_ = 1;
  std::uint64_t nextId_ = 1;
  std::map<std::uint64_t, Pending> pending_;  // by id: posting order
  std::map<std::pair<int, std::uint64_t>, char*> opened_;  // (peer, serial) -> mapped base
};

}  // namespace cclab
