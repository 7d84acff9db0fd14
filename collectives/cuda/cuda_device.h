#pragma once

// A Device whose buffers live in one GPU's memory and whose copies and reductions run as CUDA work
// on one stream, in the order they are asked for. Nothing waits for that work until
// synchronize(): cclab's algorithms run unchanged (a CUDA transport synchronises where a peer is
// about to read). Each allocation can be exported to other processes as a CUDA IPC handle; an
// exported allocation is freed only when the device is destroyed (peers may still map it).

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <vector>

#include "collectives/device.h"

namespace cclab {

class CudaDevice final : public Device {
 public:
  // Makes `gpu` current for this thread and creates the stream.
  explicit CudaDevice(int gpu);
  ~CudaDevice() override;
  CudaDevice(const CudaDevice&) = delete;
  CudaDevice& operator=(const CudaDevice&) = delete;

  void* allocate(std::size_t bytes) override;
  void release(void* ptr) override;
  // Device to device; either side may also be host memory (the direction follows the pointers).
  void copy(void* dst, const void* src, std::size_t bytes) override;
  void reduce(void* dst, const void* a, const void* b, std::size_t count, DataType dtype, ReduceOp op) override;
  void divide(void* buf, std::size_t count, DataType dtype, int divisor) override;

  int gpu() const { return gpu_; }
  cudaStream_t stream() const { return stream_; }
  // Blocks until every copy and kernel issued so far has finished.
  void synchronize();

  // Where a pointer into one of this device's allocations lies, for a peer process to open:
  // the allocation's IPC handle, a serial number unique to the allocation in this process, and
  // the offset of the pointer in it. Throws if the pointer is not in an allocation of this device.
  struct Exported {
    cudaIpcMemHandle_t handle;
    std::uint64_t serial;
    std::size_t offset;
  };
  Exported exportPointer(const void* ptr);

 private:
  struct Allocation {
    std::size_t bytes;
    std::uint64_t serial;
    bool exported = false;  // the IPC handle is made on first export (NCCL's buffers never need one)
    cudaIpcMemHandle_t handle{};
  };
  int gpu_;
  cudaStream_t stream_ = nullptr;
  std::map<const char*, Allocation> allocations_;  // by base address
  std::vector<void*> retired_;  // released after export: freed by the destructor, when no peer maps them
  std::uint64_t nextSerial_ = 1;
};

}  // namespace cclab
