#pragma once

// cclab's transport between processes whose buffers live on GPUs (one or several processes per
// GPU): the bytes move GPU to GPU by CUDA IPC, and MPI carries only small control messages.
//
// A send records an interprocess CUDA event after the work that wrote its bytes and tells the
// receiver where the bytes are (the allocation's IPC handle and offset) and which event to wait
// for; the host never waits for the GPU to send. The receiver opens that memory and event once,
// makes its stream wait for the event (on the GPU), and enqueues one kernel reading the peer's
// buffer in place: a copy (irecv) or dst = local (op) peer (irecvReduce: NCCL's recvReduceCopy,
// three passes over the chunk where landing in scratch and reducing afterwards makes five). A
// receive's wait returns once that kernel is enqueued (what uses the bytes next is ordered after
// it on the GPU). It acknowledges once an event after the kernel has completed (polled, never a
// blocking sync; drain() at the end of a collective sends what is still owed); the sender's
// request completes with the acknowledgement, when its buffer may be written again.
// While any request is waited on, the transport enqueues the receives whose descriptors have
// arrived and acknowledges finished ones (in posting order per peer), so two ranks waiting on
// their sends to each other never deadlock. MPI carries only the 176-byte descriptors and 8-byte
// acknowledgements. CUDA IPC works within one host, between GPUs with peer access.
//
// Lifetime: destroy the transport before the device; its destructor closes the peers' memory and
// waits for every rank to do so, since a device frees its exported memory when destroyed.

#include <mpi.h>

#include <cstdint>
#include <map>
#include <utility>
#include <vector>

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
  bool fusesReceiveReduce() const override { return true; }
  // Sends the acknowledgements still owed (a receive's wait returns once its kernel is enqueued).
  void drain() override;
  Request irecvReduce(void* dst, const void* local, std::size_t count, DataType dtype, ReduceOp op, int peer) override;

 private:
  // What a sender tells its receiver (fixed size, sent as bytes).
  struct Descriptor {
    cudaIpcMemHandle_t handle;
    std::uint64_t serial;   // the sender's allocation number: the key of the opened mapping
    std::uint64_t offset;   // of the bytes in that allocation
    std::uint64_t bytes;
    std::uint64_t address;  // the sender's own pointer, used when sender and receiver are one process
    cudaIpcEventHandle_t event;  // recorded after the work that wrote the bytes
    std::uint64_t eventId;       // the sender's event number: the key of the opened event
  };
  struct Pending {
    bool isSend = false;
    bool done = false;
    int peer = 0;
    void* buf = nullptr;      // receives: where the bytes go
    std::size_t bytes = 0;
    Descriptor descriptor{};  // sends: what was sent; receives: what arrived
    std::uint64_t ack = 0;
    // Fused receives (irecvReduce): buf = local (op) the peer's bytes.
    const void* local = nullptr;
    DataType dtype = DataType::Float;
    ReduceOp op = ReduceOp::Sum;
    bool enqueued = false;          // receives: the kernel is on the stream
    bool waited = false;            // receives: waited on (returned once enqueued), acknowledgement still owed
    cudaEvent_t finished = nullptr;  // receives: recorded after the kernel
    std::uint64_t eventId = 0;      // sends: the event in the descriptor (free again once acknowledged)
    MPI_Request descriptorRequest = MPI_REQUEST_NULL;
    MPI_Request ackRequest = MPI_REQUEST_NULL;  // sends only
  };

  // Enqueues every receive whose descriptor has arrived and acknowledges every finished one,
  // oldest first per peer.
  void progress();
  void enqueueReceive(Pending& receive);
  bool acknowledgeIfFinished(Pending& receive);
  Request postReceive(Pending receive);
  const char* peerMemory(int peer, const Descriptor& d);
  cudaEvent_t peerEvent(int peer, const Descriptor& d);
  std::uint64_t takeSendEvent();
  cudaEvent_t takeFinishedEvent();

  CudaDevice& device_;
  MPI_Comm comm_;
  int rank_ = 0;
  int size_ = 1;
  std::uint64_t nextId_ = 1;
  std::map<std::uint64_t, Pending> pending_;  // by id: posting order
  std::map<std::pair<int, std::uint64_t>, char*> opened_;  // (peer, serial) -> mapped base
  std::vector<cudaEvent_t> sendEvents_;                  // interprocess, by event number
  std::vector<cudaIpcEventHandle_t> sendEventHandles_;
  std::vector<std::uint64_t> freeSendEvents_;
  std::vector<cudaEvent_t> freeFinishedEvents_;
  std::map<std::pair<int, std::uint64_t>, cudaEvent_t> openedEvents_;  // (peer, event number) -> opened event
};

}  // namespace cclab
