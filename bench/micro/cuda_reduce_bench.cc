// The CUDA reduce-copy kernel of cclab's GPU algorithms (dst = a + b) against cudaMemcpy device to
// device on the same bytes, in one run. Bandwidth counts bytes read plus written for both: 3x the
// buffer for the kernel (two reads, one write), 2x for the copy. Target: the kernel at >= 90% of
// the copy's bandwidth at 256 MiB. Times are CUDA events around each launch.
//
//   ./build/bench/micro/cuda_reduce_bench            (reports an error line per benchmark without a GPU)

#include <benchmark/benchmark.h>

#include <string>

#include "collectives/cuda/cuda_device.h"
#include "collectives/cuda/cuda_error.h"
#include "collectives/typed.h"

namespace {

using cclab::CudaDevice;
using cclab::DataType;
using cclab::ReduceOp;

// Buffers of `bytes` on GPU 0, and events to time on its stream.
struct Setup {
  explicit Setup(std::size_t bytes) : device(0) {
    a = device.allocate(bytes);
    b = device.allocate(bytes);
    dst = device.allocate(bytes);
    CCLAB_CUDA(cudaMemset(a, 0, bytes));
    CCLAB_CUDA(cudaMemset(b, 0, bytes));
    CCLAB_CUDA(cudaEventCreate(&start));
    CCLAB_CUDA(cudaEventCreate(&stop));
  }
  ~Setup() {
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
  }
  // Seconds `work` takes on the stream.
  template <typename Work>
  double time(Work&& work) {
    CCLAB_CUDA(cudaEventRecord(start, device.stream()));
    work();
    CCLAB_CUDA(cudaEventRecord(stop, device.stream()));
    CCLAB_CUDA(cudaEventSynchronize(stop));
    float ms = 0;
    CCLAB_CUDA(cudaEventElapsedTime(&ms, start, stop));
    return ms * 1e-3;
  }
  CudaDevice device;
  void *a, *b, *dst;
  cudaEvent_t start, stop;
};

bool haveGpu(benchmark::State& state) {
  if (cclab::cudaDeviceCountOrZero() > 0) return true;
  state.SkipWithError("no GPU on this machine");
  return false;
}

void BM_ReduceKernel(benchmark::State& state, DataType dtype, ReduceOp op) {
  if (!haveGpu(state)) return;
  const std::size_t bytes = static_cast<std::size_t>(state.range(0));
  const std::size_t count = bytes / cclab::sizeOf(dtype);
  Setup s(bytes);
  s.device.reduce(s.dst, s.a, s.b, count, dtype, op);  // warm up
  for (auto _ : state) state.SetIterationTime(s.time([&] { s.device.reduce(s.dst, s.a, s.b, count, dtype, op); }));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(3 * bytes));
}

void BM_CudaMemcpyDeviceToDevice(benchmark::State& state) {
  if (!haveGpu(state)) return;
  const std::size_t bytes = static_cast<std::size_t>(state.range(0));
  Setup s(bytes);
  auto copy = [&] { CCLAB_CUDA(cudaMemcpyAsync(s.dst, s.a, bytes, cudaMemcpyDeviceToDevice, s.device.stream())); };
  copy();
  for (auto _ : state) state.SetIterationTime(s.time(copy));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(2 * bytes));
}

constexpr std::int64_t k256MiB = std::int64_t{256} << 20;

BENCHMARK(BM_CudaMemcpyDeviceToDevice)->Arg(k256MiB)->Arg(16 << 20)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_ReduceKernel, float_sum, DataType::Float, ReduceOp::Sum)->Arg(k256MiB)->Arg(16 << 20)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_ReduceKernel, bfloat16_sum, DataType::BFloat16, ReduceOp::Sum)->Arg(k256MiB)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_ReduceKernel, half_sum, DataType::Half, ReduceOp::Sum)->Arg(k256MiB)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_ReduceKernel, double_sum, DataType::Double, ReduceOp::Sum)->Arg(k256MiB)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_ReduceKernel, int32_max, DataType::Int32, ReduceOp::Max)->Arg(k256MiB)->UseManualTime()->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
