#include "collectives/mpi/mpi_transport.h"

#include <climits>
#include <stdexcept>

namespace cclab {
namespace {

constexpr int kTag = 0;  // one tag: messages between a pair match in posting order
constexpr std::size_t kMebibyte = std::size_t{1} << 20;

}  // namespace

MpiTransport::MpiTransport(MPI_Comm comm) {
  MPI_Comm_dup(comm, &comm_);
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
  MPI_Type_contiguous(static_cast<int>(kMebibyte), MPI_BYTE, &mebibyte_);
  MPI_Type_commit(&mebibyte_);
}

MpiTransport::~MpiTransport() {
  MPI_Type_free(&mebibyte_);
  MPI_Comm_free(&comm_);
}

Request MpiTransport::isend(const void* buf, std::size_t bytes, int peer) {
  Parts parts{MPI_REQUEST_NULL, MPI_REQUEST_NULL};
  if (bytes <= static_cast<std::size_t>(INT_MAX)) {
    MPI_Isend(buf, static_cast<int>(bytes), MPI_BYTE, peer, kTag, comm_, &parts[0]);
  } else {
    const std::size_t units = bytes / kMebibyte;
    MPI_Isend(buf, static_cast<int>(units), mebibyte_, peer, kTag, comm_, &parts[0]);
    MPI_Isend(static_cast<const char*>(buf) + units * kMebibyte, static_cast<int>(bytes % kMebibyte), MPI_BYTE, peer,
              kTag, comm_, &parts[1]);
  }
  return track(parts);
}

Request MpiTransport::irecv(void* buf, std::size_t bytes, int peer) {
  Parts parts{MPI_REQUEST_NULL, MPI_REQUEST_NULL};
  if (bytes <= static_cast<std::size_t>(INT_MAX)) {
    MPI_Irecv(buf, static_cast<int>(bytes), MPI_BYTE, peer, kTag, comm_, &parts[0]);
  } else {
    const std::size_t units = bytes / kMebibyte;
    MPI_Irecv(buf, static_cast<int>(units), mebibyte_, peer, kTag, comm_, &parts[0]);
    MPI_Irecv(static_cast<char*>(buf) + units * kMebibyte, static_cast<int>(bytes % kMebibyte), MPI_BYTE, peer, kTag,
              comm_, &parts[1]);
  }
  return track(parts);
}

Request MpiTransport::track(const Parts& parts) {
  const std::uint64_t id = nextId_++;
  pending_.emplace(id, parts);
  return Request{id};
}

void MpiTransport::wait(Request request) {
  auto it = pending_.find(request.id);
  if (it == pending_.end()) throw std::logic_error("wait on an unknown or finished request");
  MPI_Waitall(2, it->second.data(), MPI_STATUSES_IGNORE);
  pending_.erase(it);
}

}  // namespace cclab
