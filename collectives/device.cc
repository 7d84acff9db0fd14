#include "collectives/device.h"

#include <algorithm>
#include <cstring>
#include <new>

#include "collectives/reduce_kernels.h"

namespace cclab {

namespace {
constexpr std::align_val_t kHostAlignment{64};  // a cache line: vector loads never straddle two
// Large copies go in pieces this large, as Open MPI's datatype engine copies (128 KiB memcpy
// calls): one memcpy of many MiB takes glibc's non-temporal-store path, which on the Zen 5 host
// of docs/performance.md copies 32-256 MiB about 1.2x slower than cached stores do
// (benchmarks/reduce_kernels_bench: copy/256M against host_copy/256M).
constexpr std::size_t kCopyPiece = 128 * 1024;
}

void* HostDevice::allocate(std::size_t bytes) { return ::operator new(bytes == 0 ? 1 : bytes, kHostAlignment); }
void HostDevice::release(void* ptr) { ::operator delete(ptr, kHostAlignment); }
void HostDevice::copy(void* dst, const void* src, std::size_t bytes) {
  if (dst == src) return;
  auto* to = static_cast<char*>(dst);
  const auto* from = static_cast<const char*>(src);
  for (std::size_t done = 0; done < bytes; done += kCopyPiece) std::memcpy(to + done, from + done, std::min(kCopyPiece, bytes - done));
}
void HostDevice::reduce(void* dst, const void* a, const void* b, std::size_t count, DataType dtype, ReduceOp op) {
  reduceHost(dst, a, b, count, dtype, op);
}
void HostDevice::divide(void* buf, std::size_t count, DataType dtype, int divisor) {
  divideHost(buf, count, dtype, divisor);
}

}  // namespace cclab
