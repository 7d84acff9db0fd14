// The loaded libnccl answers ncclGetVersion without a GPU (src/init.cc: it returns the built-in
// code), so what ccbench may call in it is decided on any machine, this one included.

#include <nccl.h>

#include <gtest/gtest.h>

#include "collectives/nccl/nccl_communicator.h"

namespace cclab {
namespace {

TEST(NcclLibrary, ReportsItsVersionWithoutAGpu) {
  const int code = NcclCommunicator::libraryVersionCode();
  ASSERT_GE(code, ncclVersionCode(2, 9, 0)) << "ncclGetVersion";
  const std::string text = NcclCommunicator::libraryVersion();
  EXPECT_EQ(text, std::to_string(code / 10000) + "." + std::to_string(code / 100 % 100) + "." + std::to_string(code % 100));
  const NcclFeatures f = NcclCommunicator::features();
  const NcclFeatures expected = ncclFeatures(NCCL_VERSION_CODE, code);
  EXPECT_EQ(f.alltoall, expected.alltoall);
  EXPECT_EQ(f.fp8, expected.fp8);
  EXPECT_EQ(f.commSplit, expected.commSplit);
  EXPECT_EQ(f.memAlloc, expected.memAlloc);
  // The library installed with this toolkit is the header's (NCCL 2.28 here: every feature).
  if (code == NCCL_VERSION_CODE && code >= ncclVersionCode(2, 28, 0)) {
    EXPECT_TRUE(f.alltoall && f.fp8 && f.commSplit && f.memAlloc && f.nvlinkCentricSched);
  }
}

}  // namespace
}  // namespace cclab
