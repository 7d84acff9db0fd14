// The CPU step's kernels, defined once: ccbench train --device cpu runs them (cpu_platform.cc) and
// benchmarks/cpu_gemm_bench measures them, so the CPU description's peak, GEMM curve and memory
// rate are numbers of the very code the step runs.
#pragma once

#include <cstddef>

#include <Eigen/Core>

namespace cclab::bench {

// C = A x B on column-major m x k and k x n maps, on the calling thread (Eigen's sgemm).
inline void cpuGemm(float* a, float* b, float* c, Eigen::Index m, Eigen::Index k, Eigen::Index n) {
  using Matrix = Eigen::Map<Eigen::MatrixXf>;
  Matrix A(a, m, k), B(b, k, n), C(c, m, n);
  C.noalias() = A * B;
}

// An element-wise kernel: reads and writes each of n floats once (8n bytes), as a scale, a norm or
// an activation function does.
inline void elementwisePass(float* x, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) x[i] = x[i] * 0.999f + 0.001f;
}

}  // namespace cclab::bench
