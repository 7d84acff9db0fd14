#include "bench/gpu_peers.h"

#include <fmt/format.h>

namespace cclab::bench {

std::string peerAccessProblem(std::span<const int> gpus, const std::function<bool(int, int)>& canAccessPeer) {
  for (std::size_t a = 0; a < gpus.size(); ++a) {
    for (std::size_t b = 0; b < gpus.size(); ++b) {
      if (gpus[a] == gpus[b] || canAccessPeer(gpus[a], gpus[b])) continue;
      return fmt::format("--device cuda: rank {} (GPU {}) cannot read rank {}'s memory (GPU {}): no peer access between them "
                         "(cudaDeviceCanAccessPeer), which CUDA IPC needs; put the ranks on one GPU (CUDA_VISIBLE_DEVICES=0) "
                         "or on GPUs with peer access",
                         a, gpus[a], b, gpus[b]);
    }
  }
  return "";
}

}  // namespace cclab::bench
