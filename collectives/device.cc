#include "collectives/device.h"

#include <algorithm>
#include <cstring>
#include <new>

#include "collectives/reduce_kernels.h"
#include "collectives/shared_host_memory.h"

namespace cclab {

namespace {
constexpr std::align_val_t kHostAlignment{64};  // a cache line: vector loads never straddle two
}

void* HostDevice::allocate(std::size_t bytes) {
  if (sharedBuffers_ && bytes >= kSharedHostMinBytes) {
    if (void* shared = allocateSharedHost(bytes)) return shared;  // page-aligned
  }
  return ::operator new(bytes == 0 ? 1 : bytes, kHostAlignment);
}
void HostDevice::release(void* ptr) {
  if (!releaseSharedHost(ptr)) ::operator delete(ptr, kHostAlignment);
}
void HostDevice::copy(void* dst, const void* src, std::size_t bytes) {
  if (dst == src) return;
  auto* to = static_cast<char*>(dst);
  const auto* from = static_cast<const char*>(src);
  const std::size_t piece = copyPieceBytes_ > 0 ? copyPieceBytes_ : bytes;
  for (std::size_t done = 0; done < bytes; done += piece) std::memcpy(to + done, from + done, std::min(piece, bytes - done));
}
void HostDevice::reduce(void* dst, const void* a, const void* b, std::size_t count, DataType dtype, ReduceOp op) {
  reduceHost(dst, a, b, count, dtype, op);
}
void HostDevice::divide(void* buf, std::size_t count, DataType dtype, int divisor) {
  divideHost(buf, count, dtype, divisor);
}

}  // namespace cclab
