#include "collectives/cuda/cuda_device.h"

#include <iterator>

#include "collectives/cuda/cuda_error.h"
#include "collectives/cuda/cuda_kernels.h"

namespace cclab {

CudaDevice::CudaDevice(int gpu) : gpu_(gpu) {
  CCLAB_CUDA(cudaSetDevice(gpu));
  CCLAB_CUDA(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
}

CudaDevice::~CudaDevice() {
  cudaSetDevice(gpu_);
  cudaStreamSynchronize(stream_);
  for (auto& [base, allocation] : allocations_) cudaFree(const_cast<char*>(base));
  cudaStreamDestroy(stream_);
}

void* CudaDevice::allocate(std::size_t bytes) {
  CCLAB_CUDA(cudaSetDevice(gpu_));
  void* ptr = nullptr;
  CCLAB_CUDA(cudaMalloc(&ptr, bytes == 0 ? 1 : bytes));
  allocations_.emplace(static_cast<const char*>(ptr), Allocation{bytes == 0 ? 1 : bytes, nextSerial_++});
  return ptr;
}

void CudaDevice::release(void* ptr) {
  if (ptr == nullptr) return;
  CCLAB_CUDA(cudaSetDevice(gpu_));
  CCLAB_CUDA(cudaStreamSynchronize(stream_));  // queued work may still use it
  allocations_.erase(static_cast<const char*>(ptr));
  CCLAB_CUDA(cudaFree(ptr));
}

void CudaDevice::copy(void* dst, const void* src, std::size_t bytes) {
  if (bytes == 0 || dst == src) return;
  CCLAB_CUDA(cudaSetDevice(gpu_));
  CCLAB_CUDA(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, stream_));  // either side may be host memory
}

void CudaDevice::reduce(void* dst, const void* a, const void* b, std::size_t count, DataType dtype, ReduceOp op) {
  CCLAB_CUDA(cudaSetDevice(gpu_));  // kernels launch on the current device (cheap when it already is)
  launchReduce(dst, a, b, count, dtype, op, stream_);
}

void CudaDevice::divide(void* buf, std::size_t count, DataType dtype, int divisor) {
  CCLAB_CUDA(cudaSetDevice(gpu_));
  launchDivide(buf, count, dtype, divisor, stream_);
}

void CudaDevice::synchronize() { CCLAB_CUDA(cudaStreamSynchronize(stream_)); }

CudaDevice::Exported CudaDevice::exportPointer(const void* ptr) {
  const char* p = static_cast<const char*>(ptr);
  auto it = allocations_.upper_bound(p);  // the first allocation above p; the one before holds it
  if (it != allocations_.begin()) {
    --it;
    const std::size_t offset = static_cast<std::size_t>(p - it->first);
    Allocation& a = it->second;
    if (offset < a.bytes) {
      if (!a.exported) {
        CCLAB_CUDA(cudaIpcGetMemHandle(&a.handle, const_cast<char*>(it->first)));
        a.exported = true;
      }
      return Exported{a.handle, a.serial, offset};
    }
  }
  throw CudaError("CudaDevice::exportPointer: the pointer is not in an allocation of this device");
}

}  // namespace cclab
