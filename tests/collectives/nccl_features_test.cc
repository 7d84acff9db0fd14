// Which NCCL features cclab calls, from the header's and the loaded library's versions: each needs
// both (an older libnccl than nccl.h would die on an undefined ncclAlltoAll, or refuse fp8), as
// nccl-tests checks them (src/common.cu: ncclGetVersion at start; alltoall.cu: compile-time and
// run-time >= 2.28 before ncclAlltoAll, else grouped ncclSend/ncclRecv).

#include "collectives/nccl/nccl_features.h"

#include <gtest/gtest.h>

namespace cclab {
namespace {

TEST(NcclFeatures, VersionCodesAreNcclsOwn) {
  EXPECT_EQ(ncclVersionCode(2, 8, 4), 2804);  // before 2.9: major*1000 + minor*100 + patch
  EXPECT_EQ(ncclVersionCode(2, 9, 6), 20906);
  EXPECT_EQ(ncclVersionCode(2, 28, 9), 22809);
}

TEST(NcclFeatures, EachFeatureNeedsHeaderAndLibrary) {
  const NcclFeatures all = ncclFeatures(22809, 22809);
  EXPECT_TRUE(all.alltoall && all.fp8 && all.commSplit && all.memAlloc && all.nvlinkCentricSched);

  // Built against 2.28, run with 2.27: no ncclAlltoAll/ncclGather/ncclScatter, no config field.
  const NcclFeatures older = ncclFeatures(22809, 22703);
  EXPECT_FALSE(older.alltoall);
  EXPECT_FALSE(older.nvlinkCentricSched);
  EXPECT_TRUE(older.fp8);
  EXPECT_TRUE(older.commSplit);

  // Run with 2.18: ncclCommSplit, but no ncclMemAlloc (2.19) and no fp8 (2.24).
  const NcclFeatures split = ncclFeatures(22809, 21805);
  EXPECT_TRUE(split.commSplit);
  EXPECT_FALSE(split.memAlloc);
  EXPECT_FALSE(split.fp8);

  // Built against an old header: a newer library does not add calls the header lacks.
  const NcclFeatures oldHeader = ncclFeatures(21903, 22809);
  EXPECT_TRUE(oldHeader.memAlloc);
  EXPECT_FALSE(oldHeader.alltoall);
  EXPECT_FALSE(oldHeader.fp8);

  // No library answered (ncclGetVersion failed: 0): nothing optional.
  const NcclFeatures none = ncclFeatures(22809, 0);
  EXPECT_FALSE(none.alltoall || none.fp8 || none.commSplit || none.memAlloc || none.nvlinkCentricSched);
}

}  // namespace
}  // namespace cclab
