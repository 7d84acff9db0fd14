#pragma once

// Where an algorithm's buffers live and what computes on them: allocation, copies and the
// reduction kernels. HostDevice runs on the CPU; a CUDA device runs the same calls as kernels.

#include <cstddef>

#include "collectives/vocabulary.h"

namespace cclab {

class Device {
 public:
  virtual ~Device() = default;
  virtual void* allocate(std::size_t bytes) = 0;
  virtual void release(void* ptr) = 0;
  virtual void copy(void* dst, const void* src, std::size_t bytes) = 0;
  // dst = a (op) b elementwise; dst may equal a or b. Avg reduces as Sum (see divide).
  virtual void reduce(void* dst, const void* a, const void* b, std::size_t count, DataType dtype, ReduceOp op) = 0;
  // buf /= divisor: finishes ReduceOp::Avg.
  virtual void divide(void* buf, std::size_t count, DataType dtype, int divisor) = 0;
};

class HostDevice final : public Device {
 public:
  // Large copies go in memcpy calls of this many bytes, as Open MPI's datatype engine copies (128
  // KiB): one memcpy of many MiB takes glibc's non-temporal-store path, which on the Zen 5 host of
  // docs/auto-vs-mpi.md copies 32-256 MiB about 1.2x slower than cached stores, and on the Intel
  // Xeon host about 1.6x faster (benchmarks/reduce_kernels_bench: copy/256M against
  // host_copy/256M). So it is the machine's to describe (a cluster description's
  // intra_node.copy_piece_bytes, which ccbench applies); 0: one memcpy a copy.
  static constexpr std::size_t kDefaultCopyPieceBytes = 128 * 1024;

  explicit HostDevice(std::size_t copyPieceBytes = kDefaultCopyPieceBytes) : copyPieceBytes_(copyPieceBytes) {}
  void setCopyPieceBytes(std::size_t bytes) { copyPieceBytes_ = bytes; }
  std::size_t copyPieceBytes() const { return copyPieceBytes_; }
  // Buffers of kSharedHostMinBytes and more in shared memory the host's other processes map
  // (shared_host_memory.h: their single copies run at memcpy's rate); false: private heap memory,
  // which they read with process_vm_readv. Only allocations made after the change move.
  void setSharedBuffers(bool shared) { sharedBuffers_ = shared; }
  bool sharedBuffers() const { return sharedBuffers_; }

  void* allocate(std::size_t bytes) override;
  void release(void* ptr) override;
  void copy(void* dst, const void* src, std::size_t bytes) override;
  void reduce(void* dst, const void* a, const void* b, std::size_t count, DataType dtype, ReduceOp op) override;
  void divide(void* buf, std::size_t count, DataType dtype, int divisor) override;

 private:
  std::size_t copyPieceBytes_;
  bool sharedBuffers_ = true;
};

}  // namespace cclab
