#include "collectives/verify/cuda_verifier.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "collectives/verify/verify_values.h"
#include "collectives/cuda/cuda_error.h"
#include "collectives/typed.h"

namespace cclab::verify {
namespace {

using namespace values;

constexpr int kThreads = 256;

int blocksFor(std::size_t n) { return static_cast<int>(std::clamp<std::size_t>((n + kThreads - 1) / kThreads, 1, 8192)); }

int opCode(const std::optional<ReduceOp>& op) { return op ? static_cast<int>(*op) : kNoOp; }

// The parameters every kernel needs, by value.
struct Spec {
  Collective collective;
  int op;
  std::size_t count;
  int nranks;
  int rank;
  int root;
};

template <typename T>
__global__ void fillKernel(T* out, std::size_t n, Spec s, int rep) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t j = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; j < n; j += stride) {
    out[j] = inputElement<T>(s.op, s.rank, s.nranks, j, rep);
  }
}

template <typename T>
__global__ void countKernel(const T* got, std::size_t n, Spec s, int rep, bool approximate, unsigned long long* wrong) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  unsigned long long mine = 0;
  for (std::size_t j = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; j < n; j += stride) {
    const T want = expectedElement<T>(s.collective, s.op, s.count, s.nranks, s.rank, s.root, j, rep);
    if (isWrong(got[j], want, approximate)) ++mine;
  }
  if (mine > 0) atomicAdd(wrong, mine);  // rare: only wrong results pay for the atomic
}

Spec toSpec(const CheckSpec& c) { return Spec{c.collective, opCode(c.op), c.count, c.nranks, c.rank, c.root}; }

}  // namespace

void CudaVerifier::fillInput(void* send, int rep) {
  const std::size_t n = bufferLayout(spec_.collective, spec_.count, spec_.nranks, spec_.rank).sendCount;
  if (n == 0) return;
  CCLAB_CUDA(cudaSetDevice(device_.gpu()));
  withType(spec_.dtype, [&]<typename T>() {
    fillKernel<T><<<blocksFor(n), kThreads, 0, device_.stream()>>>(static_cast<T*>(send), n, toSpec(spec_), rep);
  });
  CCLAB_CUDA(cudaGetLastError());
}

void CudaVerifier::poison(void* buf, std::size_t count) {
  CCLAB_CUDA(cudaSetDevice(device_.gpu()));
  CCLAB_CUDA(cudaMemsetAsync(buf, 0xff, count * sizeOf(spec_.dtype), device_.stream()));
}

std::int64_t CudaVerifier::countWrong(const void* recv, int rep, const std::function<void()>& progress) {
  if (!hasResult(spec_.collective, spec_.rank, spec_.root)) return 0;
  const std::size_t n = bufferLayout(spec_.collective, spec_.count, spec_.nranks, spec_.rank).recvCount;
  if (n == 0) return 0;
  CCLAB_CUDA(cudaSetDevice(device_.gpu()));
  CCLAB_CUDA(cudaMemsetAsync(counter_, 0, sizeof(unsigned long long), device_.stream()));
  const bool approximate = spec_.op == ReduceOp::Avg && isFloatingPoint(spec_.dtype);
  withType(spec_.dtype, [&]<typename T>() {
    countKernel<T><<<blocksFor(n), kThreads, 0, device_.stream()>>>(static_cast<const T*>(recv), n, toSpec(spec_), rep,
                                                                       approximate, counter_);
  });
  CCLAB_CUDA(cudaGetLastError());
  unsigned long long wrong = 0;
  CCLAB_CUDA(cudaMemcpyAsync(&wrong, counter_, sizeof(wrong), cudaMemcpyDeviceToHost, device_.stream()));
  device_.synchronize();
  if (wrong > 0 && std::getenv("CCLAB_SHOW_WRONG") != nullptr) showWrong(recv, n, rep, approximate);
  if (progress) progress();
  return static_cast<std::int64_t>(wrong);
}

// CCLAB_SHOW_WRONG set: the first wrong elements on stderr (index, got, want, as numbers and
// bits), for finding out what a library computed differently; the count is what the run reports.
void CudaVerifier::showWrong(const void* recv, std::size_t n, int rep, bool approximate) {
  withType(spec_.dtype, [&]<typename T>() {
    std::vector<T> got(n);
    CCLAB_CUDA(cudaMemcpy(got.data(), recv, n * sizeof(T), cudaMemcpyDeviceToHost));
    const Spec s = toSpec(spec_);
    int shown = 0;
    for (std::size_t j = 0; j < n && shown < 8; ++j) {
      const T want = expectedElement<T>(s.collective, s.op, s.count, s.nranks, s.rank, s.root, j, rep);
      if (!isWrong(got[j], want, approximate)) continue;
      std::fprintf(stderr, "# wrong: rank %d element %zu of %zu: got %.17g (0x%llx), want %.17g (0x%llx)\n", s.rank, j, n,
                   toDouble(got[j]), static_cast<unsigned long long>(bitsOf(got[j])), toDouble(want),
                   static_cast<unsigned long long>(bitsOf(want)));
      ++shown;
    }
  });
}

}  // namespace cclab::verify
