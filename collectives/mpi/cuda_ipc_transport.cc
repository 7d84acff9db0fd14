#include "collectives/mpi/cuda_ipc_transport.h"

#include <exception>
#include <iterator>
#include <set>
#include <stdexcept>
#include <string>

#include "collectives/cuda/cuda_error.h"

namespace cclab {
namespace {

constexpr int kDescriptorTag = 1;  // one tag per direction: messages between a pair match in order
constexpr int kAckTag = 2;
static_assert(sizeof(cudaIpcMemHandle_t) == 64 && sizeof(cudaIpcEventHandle_t) == 64,
              "the descriptor is two 64-byte handles and six 8-byte numbers");

}  // namespace

CudaIpcTransport::CudaIpcTransport(MPI_Comm comm, CudaDevice& device) : device_(device) {
  MPI_Comm_dup(comm, &comm_);
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
}

CudaIpcTransport::~CudaIpcTransport() {
  cudaSetDevice(device_.gpu());
  for (auto& [key, base] : opened_) cudaIpcCloseMemHandle(base);
  for (auto& [key, event] : openedEvents_) cudaEventDestroy(event);
  for (cudaEvent_t event : freeFinishedEvents_) cudaEventDestroy(event);
  for (auto& [id, p] : pending_) {
    if (p.finished != nullptr) cudaEventDestroy(p.finished);
  }
  // Peers free their exported memory after this (CudaDevice's destructor): wait until every rank
  // has closed its mappings. Not while an error unwinds: the other ranks may never come, and the
  // error's MPI_Abort ends them anyway.
  if (std::uncaught_exceptions() == 0) MPI_Barrier(comm_);
  // The peers have closed theirs too (the barrier): the send events can go.
  for (cudaEvent_t event : sendEvents_) cudaEventDestroy(event);
  MPI_Comm_free(&comm_);
}

std::uint64_t CudaIpcTransport::takeSendEvent() {
  if (freeSendEvents_.empty()) {
    CCLAB_CUDA(cudaSetDevice(device_.gpu()));
    cudaEvent_t event = nullptr;
    CCLAB_CUDA(cudaEventCreateWithFlags(&event, cudaEventInterprocess | cudaEventDisableTiming));  // both, as IPC needs
    cudaIpcEventHandle_t handle;
    CCLAB_CUDA(cudaIpcGetEventHandle(&handle, event));
    sendEvents_.push_back(event);
    sendEventHandles_.push_back(handle);
    freeSendEvents_.push_back(sendEvents_.size() - 1);
  }
  const std::uint64_t id = freeSendEvents_.back();
  freeSendEvents_.pop_back();
  return id;
}

cudaEvent_t CudaIpcTransport::takeFinishedEvent() {
  if (freeFinishedEvents_.empty()) {
    cudaEvent_t event = nullptr;
    CCLAB_CUDA(cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
    return event;
  }
  cudaEvent_t event = freeFinishedEvents_.back();
  freeFinishedEvents_.pop_back();
  return event;
}

Request CudaIpcTransport::isend(const void* buf, std::size_t bytes, int peer) {
  const std::uint64_t id = nextId_++;
  Pending& send = pending_[id];
  send.isSend = true;
  send.peer = peer;
  send.bytes = bytes;
  if (bytes > 0) {
    // The receiver's stream waits (on the GPU) for every kernel and copy enqueued here so far,
    // those that write these bytes among them; this host goes on at once.
    send.eventId = takeSendEvent();
    CCLAB_CUDA(cudaEventRecord(sendEvents_[send.eventId], device_.stream()));
    send.descriptor.event = sendEventHandles_[send.eventId];
    send.descriptor.eventId = send.eventId;
    const CudaDevice::Exported where = device_.exportPointer(buf);
    send.descriptor.handle = where.handle;
    send.descriptor.serial = where.serial;
    send.descriptor.offset = where.offset;
  }
  send.descriptor.bytes = bytes;
  send.descriptor.address = reinterpret_cast<std::uint64_t>(buf);
  MPI_Irecv(&send.ack, 1, MPI_UINT64_T, peer, kAckTag, comm_, &send.ackRequest);
  MPI_Isend(&send.descriptor, sizeof(Descriptor), MPI_BYTE, peer, kDescriptorTag, comm_, &send.descriptorRequest);
  return Request{id};
}

Request CudaIpcTransport::irecv(void* buf, std::size_t bytes, int peer) {
  Pending receive;
  receive.peer = peer;
  receive.buf = buf;
  receive.bytes = bytes;
  return postReceive(receive);
}

Request CudaIpcTransport::irecvReduce(void* dst, const void* local, std::size_t count, DataType dtype, ReduceOp op, int peer) {
  Pending receive;
  receive.peer = peer;
  receive.buf = dst;
  receive.bytes = count * sizeOf(dtype);
  receive.local = local;
  receive.dtype = dtype;
  receive.op = op;
  return postReceive(receive);
}

Request CudaIpcTransport::postReceive(Pending receive) {
  const std::uint64_t id = nextId_++;
  Pending& r = pending_[id] = receive;
  MPI_Irecv(&r.descriptor, sizeof(Descriptor), MPI_BYTE, r.peer, kDescriptorTag, comm_, &r.descriptorRequest);
  return Request{id};
}

const char* CudaIpcTransport::peerMemory(int peer, const Descriptor& d) {
  if (peer == rank_) return reinterpret_cast<const char*>(d.address);  // a process cannot open its own handle
  auto [it, inserted] = opened_.try_emplace({peer, d.serial}, nullptr);
  if (inserted) {
    CCLAB_CUDA(cudaSetDevice(device_.gpu()));  // the mapping goes into the current device's address space
    void* base = nullptr;
    const cudaError_t status = cudaIpcOpenMemHandle(&base, d.handle, cudaIpcMemLazyEnablePeerAccess);
    if (status != cudaSuccess) {
      opened_.erase(it);
      cudaCheck(status, "cudaIpcOpenMemHandle");
    }
    it->second = static_cast<char*>(base);
  }
  return it->second + d.offset;
}

cudaEvent_t CudaIpcTransport::peerEvent(int peer, const Descriptor& d) {
  if (peer == rank_) return sendEvents_.at(d.eventId);  // our own event: no handle to open
  auto [it, inserted] = openedEvents_.try_emplace({peer, d.eventId}, nullptr);
  if (inserted) {
    CCLAB_CUDA(cudaSetDevice(device_.gpu()));
    const cudaError_t status = cudaIpcOpenEventHandle(&it->second, d.event);
    if (status != cudaSuccess) {
      openedEvents_.erase(it);
      cudaCheck(status, "cudaIpcOpenEventHandle");
    }
  }
  return it->second;
}

void CudaIpcTransport::enqueueReceive(Pending& receive) {
  const Descriptor& d = receive.descriptor;
  if (d.bytes != receive.bytes) {
    throw std::logic_error("CudaIpcTransport: rank " + std::to_string(receive.peer) + " sent " + std::to_string(d.bytes) +
                           " bytes where " + std::to_string(receive.bytes) + " were expected");
  }
  if (d.bytes > 0) {
    // After the work that wrote the bytes (on the GPU), one kernel reads them where they are.
    CCLAB_CUDA(cudaStreamWaitEvent(device_.stream(), peerEvent(receive.peer, d), 0));
    const char* peer = peerMemory(receive.peer, d);
    if (receive.local != nullptr) {
      device_.reduce(receive.buf, receive.local, peer, d.bytes / sizeOf(receive.dtype), receive.dtype, receive.op);
    } else {
      device_.copy(receive.buf, peer, d.bytes);
    }
    receive.finished = takeFinishedEvent();
    CCLAB_CUDA(cudaEventRecord(receive.finished, device_.stream()));
  }
  receive.enqueued = true;
}

bool CudaIpcTransport::acknowledgeIfFinished(Pending& receive) {
  if (receive.finished != nullptr) {
    const cudaError_t status = cudaEventQuery(receive.finished);
    if (status == cudaErrorNotReady) return false;
    cudaCheck(status, "cudaEventQuery");
    freeFinishedEvents_.push_back(receive.finished);
    receive.finished = nullptr;
  }
  // The kernel has read the sender's bytes: it may write them again.
  const std::uint64_t ack = receive.descriptor.serial;
  MPI_Send(&ack, 1, MPI_UINT64_T, receive.peer, kAckTag, comm_);  // its receive is already posted
  receive.done = true;
  return true;
}

void CudaIpcTransport::progress() {
  std::set<int> waitingOn;  // peers with an older receive still outstanding
  for (auto it = pending_.begin(); it != pending_.end();) {
    Pending& p = it->second;
    if (p.isSend || p.done || waitingOn.contains(p.peer)) {
      ++it;
      continue;
    }
    if (!p.enqueued) {
      int arrived = 0;
      MPI_Test(&p.descriptorRequest, &arrived, MPI_STATUS_IGNORE);
      if (!arrived) {
        waitingOn.insert(p.peer);
        ++it;
        continue;
      }
      enqueueReceive(p);
    }
    // Acknowledgements go out in posting order per peer, as its sends expect them.
    if (!acknowledgeIfFinished(p)) waitingOn.insert(p.peer);
    it = (p.done && p.waited) ? pending_.erase(it) : std::next(it);
  }
}

void CudaIpcTransport::drain() {
  auto owed = [&] {
    for (const auto& [id, p] : pending_) {
      if (!p.isSend && !p.done) return true;
    }
    return false;
  };
  while (owed()) progress();
}

void CudaIpcTransport::wait(Request request) {
  auto it = pending_.find(request.id);
  if (it == pending_.end()) throw std::logic_error("wait on an unknown or finished request");
  Pending& p = it->second;
  for (;;) {
    progress();
    if (!p.isSend && p.enqueued && !p.done) {
      // Enqueued is enough: what reads or forwards these bytes next runs on the same stream, or
      // waits for it through a send's event. The acknowledgement follows (progress, drain).
      p.waited = true;
      return;
    }
    if (p.isSend) {
      int sent = 0, acknowledged = 0;
      MPI_Test(&p.descriptorRequest, &sent, MPI_STATUS_IGNORE);
      MPI_Test(&p.ackRequest, &acknowledged, MPI_STATUS_IGNORE);
      p.done = p.descriptorRequest == MPI_REQUEST_NULL && p.ackRequest == MPI_REQUEST_NULL;
      if (p.done && p.bytes > 0) freeSendEvents_.push_back(p.eventId);  // the receiver's kernel has run
    }
    if (p.done) break;
  }
  pending_.erase(it);
}

}  // namespace cclab
