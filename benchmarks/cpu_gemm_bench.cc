// The CPU description's compute numbers (`peak_tflops`, `gemm_efficiency`, `memory_bandwidth_gbps`
// of a cpu-* cluster), measured with the kernels ccbench train --device cpu runs (bench/train/
// cpu_kernels.h): Eigen sgemm on one core, and the element-wise pass. Counter GFLOPs = 2mkn per
// second; bytes_per_second = bytes read plus written.
//   cpu_gemm_bench --benchmark_filter=Peak         the peak (the largest of these shapes)
//   cpu_gemm_bench --benchmark_filter=Small        the efficiency with one dimension d small
//   cpu_gemm_bench --benchmark_filter=Elementwise  the pass's rate over a buffer of 1-64 MiB
//   cpu_gemm_bench --benchmark_filter=Adam         the optimizer's rate over 1-16 Mi parameters
// The efficiency at d is the slower of the shapes with d as k or as n, over the peak: the step model
// reads a GEMM's efficiency by min(k, n) (docs/training.md). SmallM shows m-small apart.
#include <benchmark/benchmark.h>

#include <Eigen/Core>
#include <vector>

#include "bench/train/cpu_kernels.h"

namespace {

void runGemm(benchmark::State& state, Eigen::Index m, Eigen::Index k, Eigen::Index n) {
  Eigen::setNbThreads(1);
  std::vector<float> a(static_cast<std::size_t>(m * k), 1.0f / 64), b(static_cast<std::size_t>(k * n), 1.0f / 64),
      c(static_cast<std::size_t>(m * n), 0.0f);
  for (auto _ : state) {
    cclab::bench::cpuGemm(a.data(), b.data(), c.data(), m, k, n);
    benchmark::DoNotOptimize(c.data());
    benchmark::ClobberMemory();
  }
  state.counters["GFLOPs"] = benchmark::Counter(2.0 * static_cast<double>(m * k * n), benchmark::Counter::kIsIterationInvariantRate,
                                                benchmark::Counter::OneK::kIs1000);
}

void Peak(benchmark::State& state) { runGemm(state, state.range(0), state.range(1), state.range(2)); }
BENCHMARK(Peak)->Args({2048, 256, 256})->Args({2048, 1024, 1024})->Args({1024, 1024, 1024})->Unit(benchmark::kMillisecond);

// d small as m, as k, as n; the other two 1024.
void SmallM(benchmark::State& state) { runGemm(state, state.range(0), 1024, 1024); }
void SmallK(benchmark::State& state) { runGemm(state, 1024, state.range(0), 1024); }
void SmallN(benchmark::State& state) { runGemm(state, 1024, 1024, state.range(0)); }
BENCHMARK(SmallM)->RangeMultiplier(2)->Range(8, 128)->Unit(benchmark::kMicrosecond);
BENCHMARK(SmallK)->RangeMultiplier(2)->Range(8, 128)->Unit(benchmark::kMicrosecond);
BENCHMARK(SmallN)->RangeMultiplier(2)->Range(8, 128)->Unit(benchmark::kMicrosecond);

// The element-wise pass over a buffer of range(0) MiB: in a cache or from memory, as the step's
// passes are (ccbench train streams a pass's bytes through a buffer of half of them, at most 64 MiB).
void Elementwise(benchmark::State& state) {
  std::vector<float> x(static_cast<std::size_t>(state.range(0)) << 18, 1.0f);  // MiB of floats
  for (auto _ : state) {
    cclab::bench::elementwisePass(x.data(), x.size());
    benchmark::DoNotOptimize(x.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(8 * x.size()));
}
BENCHMARK(Elementwise)->RangeMultiplier(4)->Range(1, 64)->Unit(benchmark::kMicrosecond);

// The CPU step's Adam over range(0) Mi parameters (four fp32 arrays of 4 MiB each per Mi): bytes
// per second at 28 bytes a parameter, to set beside Elementwise/64, the rate the model prices it at.
void Adam(benchmark::State& state) {
  const std::size_t n = static_cast<std::size_t>(state.range(0)) << 20;
  std::vector<float> p(n, 0.001f), g(n, 0.001f), m(n, 0.001f), v(n, 0.001f);
  for (auto _ : state) {
    cclab::bench::adamStep(p.data(), g.data(), m.data(), v.data(), n);
    benchmark::DoNotOptimize(p.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(28 * n));
}
BENCHMARK(Adam)->RangeMultiplier(4)->Range(1, 16)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
