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
  void* allocate(std::size_t bytes) override;
  void release(void* ptr) override;
  void copy(void* dst, const void* src, std::size_t bytes) override;
  void reduce(void* dst, const void* a, const void* b, std::size_t count, DataType dtype, ReduceOp op) override;
  void divide(void* buf, std::size_t count, DataType dtype, int divisor) override;
};

}  // namespace cclab
