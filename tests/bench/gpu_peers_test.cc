// Which GPU pairs cclab's CUDA IPC transport can join, decided before any mapping is made: GPUs
// without peer access (PCIe across sockets, many cloud VMs) are refused with one line naming the
// ranks; processes sharing a GPU need none.

#include "bench/gpu_peers.h"

#include <gtest/gtest.h>

#include <vector>

namespace cclab::bench {
namespace {

// Two sockets of two GPUs each: peers within a socket only.
bool sameSocket(int a, int b) { return a / 2 == b / 2; }

TEST(GpuPeers, SharedAndPeeredGpusPass) {
  EXPECT_EQ(peerAccessProblem(std::vector<int>{0, 0, 0, 0}, [](int, int) { return false; }), "");  // one GPU
  EXPECT_EQ(peerAccessProblem(std::vector<int>{0, 1, 0, 1}, sameSocket), "");
  EXPECT_EQ(peerAccessProblem(std::vector<int>{3}, sameSocket), "");
}

TEST(GpuPeers, APairWithoutPeerAccessIsNamed) {
  const std::string problem = peerAccessProblem(std::vector<int>{0, 1, 2, 3}, sameSocket);
  EXPECT_NE(problem.find("rank 0 (GPU 0) cannot read rank 2's memory (GPU 2)"), std::string::npos) << problem;
  EXPECT_NE(problem.find("CUDA_VISIBLE_DEVICES=0"), std::string::npos);
  EXPECT_EQ(problem.find('\n'), std::string::npos);  // one line
  // One-way access is not enough: each side maps the other's buffers.
  const auto oneWay = [](int a, int b) { return a < b; };
  EXPECT_NE(peerAccessProblem(std::vector<int>{0, 1}, oneWay).find("rank 1 (GPU 1) cannot read rank 0's memory"), std::string::npos);
}

}  // namespace
}  // namespace cclab::bench
