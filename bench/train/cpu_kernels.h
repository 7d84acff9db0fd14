// The CPU step's kernels, defined once: ccbench train --device cpu runs them (cpu_platform.cc) and
// benchmarks/cpu_gemm_bench measures them, so the CPU description's peak, GEMM curve and memory
// rate are numbers of the very code the step runs (and the optimizer's rate can be checked
// against the memory rate it is priced at).
#pragma once

#include <algorithm>
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

// Adam over n fp32 parameters as a CPU optimizer runs it (DeepSpeed's CPU Adam: SIMD over the
// four arrays, a cache-sized piece at a time): reads parameters, gradients and both moments and
// writes three, 28 bytes a parameter from memory, the traffic the step model prices. (A scalar
// loop is bound by its square roots and divisions instead: 2.4-3.5x slower on one core.)
inline void adamStep(float* p, const float* g, float* m, float* v, std::size_t n) {
  constexpr std::size_t kPiece = 2048;  // 4 arrays x 8 KiB: the three passes below re-read it from L1/L2
  for (std::size_t at = 0; at < n; at += kPiece) {
    const auto len = static_cast<Eigen::Index>(std::min(kPiece, n - at));
    Eigen::Map<Eigen::ArrayXf> P(p + at, len), M(m + at, len), V(v + at, len);
    const Eigen::Map<const Eigen::ArrayXf> G(g + at, len);
    M = 0.9f * M + 0.1f * G;
    V = 0.999f * V + 0.001f * G.square();
    P -= 1e-4f * M / (V.sqrt() + 1e-8f);
  }
}

}  // namespace cclab::bench
