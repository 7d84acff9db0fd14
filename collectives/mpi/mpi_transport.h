#pragma once

// cclab's transport over MPI point-to-point on host memory. It works on its own duplicate of the
// communicator, so the algorithms' messages never match anything else the program sends.

#include <mpi.h>

#include <array>
#include <unordered_map>

#include "collectives/transport.h"

namespace cclab {

class MpiTransport final : public Transport {
 public:
  explicit MpiTransport(MPI_Comm comm);
  ~MpiTransport() override;
  MpiTransport(const MpiTransport&) = delete;
  MpiTransport& operator=(const MpiTransport&) = delete;

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  Request isend(const void* buf, std::size_t bytes, int peer) override;
  Request irecv(void* buf, std::size_t bytes, int peer) override;
  void wait(Request request) override;

 private:
  // MPI counts are ints: a message above 2 GiB travels as whole MiB units plus the remainder.
  using Parts = std::array<MPI_Request, 2>;
  Request track(const Parts& parts);

  MPI_Comm comm_;
  MPI_Datatype mebibyte_;
  int rank_ = 0;
  int size_ = 1;
  std::uint64_t nextId_ = 1;
  std::unordered_map<std::uint64_t, Parts> pending_;
};

}  // namespace cclab
