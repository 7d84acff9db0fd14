#pragma once

// A GPU's buffers allocated as nccl-tests allocates them for NCCL: ncclMemAlloc (NCCL 2.19, in
// header and library), which gives memory NCCL can register for NVLS and its symmetric kernels;
// cudaMalloc before that. Copies and kernels run on the wrapped CudaDevice's stream.

#include <set>

#include "collectives/cuda/cuda_device.h"

namespace cclab {

class NcclMemoryDevice final : public Device {
 public:
  explicit NcclMemoryDevice(CudaDevice& device);
  ~NcclMemoryDevice() override;
  NcclMemoryDevice(const NcclMemoryDevice&) = delete;
  NcclMemoryDevice& operator=(const NcclMemoryDevice&) = delete;

  void* allocate(std::size_t bytes) override;
  void release(void* ptr) override;
  void copy(void* dst, const void* src, std::size_t bytes) override { device_.copy(dst, src, bytes); }
  void reduce(void* dst, const void* a, const void* b, std::size_t count, DataType dtype, ReduceOp op) override {
    device_.reduce(dst, a, b, count, dtype, op);
  }
  void divide(void* buf, std::size_t count, DataType dtype, int divisor) override { device_.divide(buf, count, dtype, divisor); }

 private:
  CudaDevice& device_;
  bool ncclAllocates_;
  std::set<void*> owned_;  // what ncclMemAlloc gave (freed with ncclMemFree)
};

}  // namespace cclab
