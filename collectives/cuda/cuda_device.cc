#include "collectives/cuda/cuda_device.h"

#include <algorithm>
#include <iterator>

#include "collectives/cuda/cuda_error.h"
#include "collectives/cuda/cuda_kernels.h"

namespace cclab {

CudaDevice::CudaDevice(int gpu) : gpu_(gpu) {
  CCLAB_CUDA(cudaSetDevice(gpu));
  CCLAB_CUDA(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
}

namespace {

// cudaMalloc may place small allocations side by side in one driver block, and an IPC handle
// shares the whole block (CUDA Programming Guide, "Interprocess Communication"): whole 2 MiB
// granules keep every allocation a block of its own, so each handle means one allocation.
constexpr std::size_t kIpcGranule = std::size_t{2} << 20;

std::size_t roundToGranule(std::size_t bytes) { return (std::max<std::size_t>(bytes, 1) + kIpcGranule - 1) / kIpcGranule * kIpcGranule; }

}  // namespace

CudaDevice::~CudaDevice() {
  cudaSetDevice(gpu_);
  cudaStreamSynchronize(stream_);
  for (auto& [base, allocation] : allocations_) cudaFree(const_cast<char*>(base));
  for (void* ptr : retired_) cudaFree(ptr);
  cudaStreamDestroy(stream_);
}

void* CudaDevice::allocate(std::size_t bytes) {
  CCLAB_CUDA(cudaSetDevice(gpu_));
  const std::size_t rounded = roundToGranule(bytes);
  void* ptr = nullptr;
  CCLAB_CUDA(cudaMalloc(&ptr, rounded));
  try {
    allocations_.emplace(static_cast<const char*>(ptr), Allocation{rounded, nextSerial_++});
  } catch (...) {
    cudaFree(ptr);
    throw;
  }
  return ptr;
}

// Never throws: buffers are released from destructors, also while an error unwinds the stack, and
// a sticky CUDA error is reported by the next checked call instead.
void CudaDevice::release(void* ptr) {
  if (ptr == nullptr) return;
  cudaSetDevice(gpu_);
  cudaStreamSynchronize(stream_);  // queued work may still use it
  const auto it = allocations_.find(static_cast<const char*>(ptr));
  const bool exported = it != allocations_.end() && it->second.exported;
  if (it != allocations_.end()) allocations_.erase(it);
  // Freeing memory a peer still has open is undefined (cudaIpcOpenMemHandle's documentation):
  // exported allocations wait for the destructor, after the transport's peers have closed them.
  if (exported) retired_.push_back(ptr);
  else cudaFree(ptr);
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
