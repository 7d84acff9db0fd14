#include "collectives/nccl/nccl_memory.h"

#include <nccl.h>

#include <fmt/format.h>

#include "collectives/cuda/cuda_error.h"
#include "collectives/nccl/nccl_communicator.h"

namespace cclab {

NcclMemoryDevice::NcclMemoryDevice(CudaDevice& device) : device_(device), ncclAllocates_(NcclCommunicator::features().memAlloc) {}

NcclMemoryDevice::~NcclMemoryDevice() {
  while (!owned_.empty()) release(*owned_.begin());
}

void* NcclMemoryDevice::allocate(std::size_t bytes) {
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 19, 0)
  if (ncclAllocates_) {
    CCLAB_CUDA(cudaSetDevice(device_.gpu()));
    void* p = nullptr;
    const ncclResult_t status = ncclMemAlloc(&p, bytes == 0 ? 1 : bytes);
    if (status != ncclSuccess) throw NcclError(fmt::format("ncclMemAlloc({} bytes): {}", bytes, ncclGetErrorString(status)));
    owned_.insert(p);
    return p;
  }
#endif
  return device_.allocate(bytes);
}

void NcclMemoryDevice::release(void* ptr) {
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 19, 0)
  if (owned_.erase(ptr) > 0) {
    cudaSetDevice(device_.gpu());
    ncclMemFree(ptr);
    return;
  }
#endif
  device_.release(ptr);
}

}  // namespace cclab
