#include "collectives/cuda/cuda_kernels.h"

#include <algorithm>
#include <cstdint>

#include "collectives/cuda/cuda_error.h"
#include "collectives/reduce_ops.h"
#include "collectives/typed.h"

namespace cclab {
namespace {

constexpr int kThreads = 256;
constexpr int kVectorsPerThread = 2;  // two 16-byte loads in flight per operand per thread

// 16 bytes seen as a vector of T.
template <typename T>
union Vector {
  static constexpr int kElements = 16 / sizeof(T);
  uint4 raw;
  T elements[kElements];
};

// Each thread reduces kVectorsPerThread vectors per pass, striding over the whole grid. `head`
// elements before the first aligned vector and the tail after the last are done one by one.
template <typename T, ReduceOp Op>
__global__ void reduceKernel(T* dst, const T* a, const T* b, std::size_t head, std::size_t vectors, std::size_t count) {
  using V = Vector<T>;
  const std::size_t thread = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  const std::size_t threads = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const uint4* va = reinterpret_cast<const uint4*>(a + head);
  const uint4* vb = reinterpret_cast<const uint4*>(b + head);
  uint4* vd = reinterpret_cast<uint4*>(dst + head);
  for (std::size_t base = thread; base < vectors; base += threads * kVectorsPerThread) {
    V x[kVectorsPerThread], y[kVectorsPerThread];
#pragma unroll
    for (int u = 0; u < kVectorsPerThread; ++u) {
      const std::size_t v = base + u * threads;
      if (v < vectors) {
        x[u].raw = va[v];
        y[u].raw = vb[v];
      }
    }
#pragma unroll
    for (int u = 0; u < kVectorsPerThread; ++u) {
      const std::size_t v = base + u * threads;
      if (v < vectors) {
#pragma unroll
        for (int k = 0; k < V::kElements; ++k) x[u].elements[k] = combine<T, Op>(x[u].elements[k], y[u].elements[k]);
        vd[v] = x[u].raw;
      }
    }
  }
  // The unaligned head and the tail, element by element.
  const std::size_t tailStart = head + vectors * V::kElements;
  for (std::size_t i = thread; i < head + (count - tailStart); i += threads) {
    const std::size_t e = i < head ? i : tailStart + (i - head);
    dst[e] = combine<T, Op>(a[e], b[e]);
  }
}

template <typename T>
__global__ void divideKernel(T* buf, std::size_t count, int divisor) {
  const std::size_t threads = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < count; i += threads) {
    buf[i] = divideElement(buf[i], divisor);
  }
}

int blocksFor(std::size_t work) {
  // Enough blocks to fill any current GPU several times over; the kernels stride beyond that.
  constexpr std::size_t kMaxBlocks = 4096;
  return static_cast<int>(std::clamp<std::size_t>((work + kThreads - 1) / kThreads, 1, kMaxBlocks));
}

template <typename T, ReduceOp Op>
void launchTyped(void* dst, const void* a, const void* b, std::size_t count, cudaStream_t stream) {
  constexpr std::size_t kPerVector = Vector<T>::kElements;
  auto misalignment = [](const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16; };
  std::size_t head = 0, vectors = 0;
  const bool shared = misalignment(dst) == misalignment(a) && misalignment(a) == misalignment(b);
  if (shared && misalignment(a) % sizeof(T) == 0) {
    head = std::min(count, (16 - misalignment(a)) % 16 / sizeof(T));
    vectors = (count - head) / kPerVector;
  }
  const std::size_t scalar = count - vectors * kPerVector;
  const std::size_t work = std::max((vectors + kVectorsPerThread - 1) / kVectorsPerThread, scalar);
  reduceKernel<T, Op><<<blocksFor(work), kThreads, 0, stream>>>(static_cast<T*>(dst), static_cast<const T*>(a),
                                                                 static_cast<const T*>(b), head, vectors, count);
  CCLAB_CUDA(cudaGetLastError());
}

}  // namespace

void launchReduce(void* dst, const void* a, const void* b, std::size_t count, DataType dtype, ReduceOp op, cudaStream_t stream) {
  if (count == 0) return;
  withType(dtype, [&]<typename T>() {
    switch (op) {
      case ReduceOp::Sum:
      case ReduceOp::Avg: return launchTyped<T, ReduceOp::Sum>(dst, a, b, count, stream);
      case ReduceOp::Prod: return launchTyped<T, ReduceOp::Prod>(dst, a, b, count, stream);
      case ReduceOp::Min: return launchTyped<T, ReduceOp::Min>(dst, a, b, count, stream);
      case ReduceOp::Max: return launchTyped<T, ReduceOp::Max>(dst, a, b, count, stream);
    }
  });
}

void launchDivide(void* buf, std::size_t count, DataType dtype, int divisor, cudaStream_t stream) {
  if (count == 0) return;
  withType(dtype, [&]<typename T>() {
    divideKernel<T><<<blocksFor(count), kThreads, 0, stream>>>(static_cast<T*>(buf), count, divisor);
    CCLAB_CUDA(cudaGetLastError());
  });
}

}  // namespace cclab
