#include "collectives/mpi/cuda_ipc_transport.h"

#include <exception>
#include <set>
#include <stdexcept>
#include <string>

#include "collectives/cuda/cuda_error.h"

namespace cclab {
namespace {

constexpr int kDescriptorTag = 1;  // one tag per direction: messages between a pair match in order
constexpr int kAckTag = 2;
static_assert(sizeof(cudaIpcMemHandle_t) == 64, "the descriptor is the 64-byte handle and four 8-byte numbers");

}  // namespace

CudaIpcTransport::CudaIpcTransport(MPI_Comm comm, CudaDevice& device) : device_(device) {
  MPI_Comm_dup(comm, &comm_);
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
}

CudaIpcTransport::~CudaIpcTransport() {
  cudaSetDevice(device_.gpu());
  for (auto& [key, base] : opened_) cudaIpcCloseMemHandle(base);
  // Peers free their exported memory after this (CudaDevice's destructor): wait until every rank
  // has closed its mappings. Not while an error unwinds: the other ranks may never come, and the
  // error's MPI_Abort ends them anyway.
  if (std::uncaught_exceptions() == 0) MPI_Barrier(comm_);
  MPI_Comm_free(&comm_);
}

Request CudaIpcTransport::isend(const void* buf, std::size_t bytes, int peer) {
  const std::uint64_t id = nextId_++;
  Pending& send = pending_[id];
  send.isSend = true;
  send.peer = peer;
  send.bytes = bytes;
  if (bytes > 0) {
    // The receiver reads these bytes as soon as it has the descriptor: every kernel and copy that
    // writes them must have finished.
    device_.synchronize();
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
  const std::uint64_t id = nextId_++;
  Pending& receive = pending_[id];
  receive.peer = peer;
  receive.buf = buf;
  receive.bytes = bytes;
  MPI_Irecv(&receive.descriptor, sizeof(Descriptor), MPI_BYTE, peer, kDescriptorTag, comm_, &receive.descriptorRequest);
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

void CudaIpcTransport::completeReceive(Pending& receive) {
  const Descriptor& d = receive.descriptor;
  if (d.bytes != receive.bytes) {
    throw std::logic_error("CudaIpcTransport: rank " + std::to_string(receive.peer) + " sent " + std::to_string(d.bytes) +
                           " bytes where " + std::to_string(receive.bytes) + " were expected");
  }
  if (d.bytes > 0) {
    device_.copy(receive.buf, peerMemory(receive.peer, d), d.bytes);
    device_.synchronize();  // the sender may reuse its buffer once acknowledged
  }
  const std::uint64_t ack = d.serial;
  MPI_Send(&ack, 1, MPI_UINT64_T, receive.peer, kAckTag, comm_);  // its receive is already posted
  receive.done = true;
}

void CudaIpcTransport::progress() {
  std::set<int> waitingOn;  // peers with an older receive still outstanding
  for (auto& [id, p] : pending_) {
    if (p.isSend || p.done) continue;
    if (waitingOn.contains(p.peer)) continue;
    int arrived = 0;
    MPI_Test(&p.descriptorRequest, &arrived, MPI_STATUS_IGNORE);
    if (arrived) completeReceive(p);
    else waitingOn.insert(p.peer);
  }
}

void CudaIpcTransport::wait(Request request) {
  auto it = pending_.find(request.id);
  if (it == pending_.end()) throw std::logic_error("wait on an unknown or finished request");
  Pending& p = it->second;
  for (;;) {
    progress();
    if (p.isSend) {
      int sent = 0, acknowledged = 0;
      MPI_Test(&p.descriptorRequest, &sent, MPI_STATUS_IGNORE);
      MPI_Test(&p.ackRequest, &acknowledged, MPI_STATUS_IGNORE);
      p.done = p.descriptorRequest == MPI_REQUEST_NULL && p.ackRequest == MPI_REQUEST_NULL;
    }
    if (p.done) break;
  }
  pending_.erase(it);
}

}  // namespace cclab
