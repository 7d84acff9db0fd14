// The CPU description's GEMM numbers (`peak_tflops`, `gemm_efficiency` of a cpu-* cluster): Eigen
// sgemm on one core, as ccbench train --device cpu runs each GEMM of the step (bench/train/
// cpu_platform.cc: C = A x B on column-major maps, one thread). Counter GFLOPs = 2mkn per second.
//   cpu_gemm_bench --benchmark_filter=Peak     the peak (the largest of these shapes)
//   cpu_gemm_bench --benchmark_filter=Small    the efficiency with one dimension d small
// The efficiency at d is the slower of the shapes with d as k or as n, over the peak: the step model
// reads a GEMM's efficiency by min(k, n) (docs/training.md). SmallM shows m-small apart.
#include <benchmark/benchmark.h>

#include <Eigen/Core>
#include <vector>

namespace {

void runGemm(benchmark::State& state, Eigen::Index m, Eigen::Index k, Eigen::Index n) {
  Eigen::setNbThreads(1);
  std::vector<float> a(static_cast<std::size_t>(m * k), 1.0f / 64), b(static_cast<std::size_t>(k * n), 1.0f / 64),
      c(static_cast<std::size_t>(m * n), 0.0f);
  Eigen::Map<Eigen::MatrixXf> A(a.data(), m, k), B(b.data(), k, n), C(c.data(), m, n);
  for (auto _ : state) {
    C.noalias() = A * B;
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

}  // namespace

BENCHMARK_MAIN();
