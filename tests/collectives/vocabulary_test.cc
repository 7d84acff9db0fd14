#include "collectives/vocabulary.h"

#include <gtest/gtest.h>

#include "collectives/errors.h"

namespace cclab {
namespace {

TEST(Vocabulary, NamesRoundTrip) {
  for (Collective c : allCollectives()) EXPECT_EQ(parseCollective(name(c)), c);
  for (DataType t : allDataTypes()) EXPECT_EQ(parseDataType(name(t)), t);
  for (ReduceOp op : allReduceOps()) EXPECT_EQ(parseReduceOp(name(op)), op);
  EXPECT_EQ(allCollectives().size(), 9u);
  EXPECT_EQ(allDataTypes().size(), 12u);
  EXPECT_EQ(allReduceOps().size(), 5u);
}

TEST(Vocabulary, AcceptsNcclTestsProgramNames) {
  EXPECT_EQ(parseCollective("all_reduce_perf"), Collective::AllReduce);
  EXPECT_EQ(parseCollective("alltoall_perf"), Collective::AllToAll);
}

TEST(Vocabulary, UnknownNamesListTheValidOnes) {
  try {
    parseCollective("allreduce");
    FAIL() << "no exception";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("unknown collective 'allreduce'"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("all_reduce"), std::string::npos);
  }
  EXPECT_THROW(parseDataType("float16"), InputError);
  EXPECT_THROW(parseReduceOp("mean"), InputError);
}

TEST(Vocabulary, SizesAndKinds) {
  EXPECT_EQ(sizeOf(DataType::Int8), 1u);
  EXPECT_EQ(sizeOf(DataType::Half), 2u);
  EXPECT_EQ(sizeOf(DataType::BFloat16), 2u);
  EXPECT_EQ(sizeOf(DataType::Float), 4u);
  EXPECT_EQ(sizeOf(DataType::Uint64), 8u);
  EXPECT_TRUE(isFloatingPoint(DataType::BFloat16));
  EXPECT_FALSE(isFloatingPoint(DataType::Uint32));
  EXPECT_TRUE(reduces(Collective::ReduceScatter));
  EXPECT_FALSE(reduces(Collective::AllGather));
  EXPECT_TRUE(hasRoot(Collective::Scatter));
  EXPECT_FALSE(hasRoot(Collective::SendRecv));
}

// The factors nccl-tests documents (PERFORMANCE.md), at several rank counts.
TEST(Vocabulary, BusBandwidthFactors) {
  for (int n : {1, 2, 3, 4, 8, 16}) {
    const double ring = 2.0 * (n - 1) / n;
    const double spread = static_cast<double>(n - 1) / n;
    EXPECT_DOUBLE_EQ(busBandwidthFactor(Collective::AllReduce, n), ring);
    for (Collective c : {Collective::AllGather, Collective::ReduceScatter, Collective::AllToAll, Collective::Gather,
                         Collective::Scatter}) {
      EXPECT_DOUBLE_EQ(busBandwidthFactor(c, n), spread) << name(c);
    }
    for (Collective c : {Collective::Broadcast, Collective::Reduce, Collective::SendRecv}) {
      EXPECT_DOUBLE_EQ(busBandwidthFactor(c, n), 1.0) << name(c);
    }
  }
  EXPECT_DOUBLE_EQ(busBandwidthFactor(Collective::AllReduce, 8), 1.75);
}

TEST(Vocabulary, BufferLayouts) {
  // all_gather: send one block, receive n; in place the block sits at rank * count.
  BufferLayout ag = bufferLayout(Collective::AllGather, 10, 4, 3);
  EXPECT_EQ(ag.sendCount, 10u);
  EXPECT_EQ(ag.recvCount, 40u);
  EXPECT_EQ(ag.inPlaceSendOffset, 30u);
  EXPECT_EQ(ag.inPlaceRecvOffset, 0u);
  // reduce_scatter: the mirror image.
  BufferLayout rs = bufferLayout(Collective::ReduceScatter, 10, 4, 2);
  EXPECT_EQ(rs.sendCount, 40u);
  EXPECT_EQ(rs.recvCount, 10u);
  EXPECT_EQ(rs.inPlaceRecvOffset, 20u);
  EXPECT_EQ(rs.inPlaceCount(), 40u);
  BufferLayout a2a = bufferLayout(Collective::AllToAll, 5, 3, 1);
  EXPECT_EQ(a2a.sendCount, 15u);
  EXPECT_EQ(a2a.recvCount, 15u);
  BufferLayout ar = bufferLayout(Collective::AllReduce, 7, 3, 1);
  EXPECT_EQ(ar.sendCount, 7u);
  EXPECT_EQ(ar.inPlaceSendOffset, 0u);
}

TEST(Vocabulary, CountsFromBenchmarkSizes) {
  // The size column is the larger buffer; blocked collectives round down to whole blocks.
  EXPECT_EQ(countForBytes(Collective::AllReduce, 1000, DataType::Float, 3), 250u);
  EXPECT_EQ(countForBytes(Collective::AllGather, 1000, DataType::Float, 3), 83u);
  EXPECT_EQ(bytesForCount(Collective::AllGather, 83, DataType::Float, 3), 996u);
  EXPECT_EQ(bytesForCount(Collective::AllReduce, 250, DataType::Float, 3), 1000u);
  EXPECT_EQ(countForBytes(Collective::AllToAll, 8, DataType::Float, 4), 0u);
  EXPECT_EQ(countForBytes(Collective::Broadcast, 13, DataType::Double, 5), 1u);
}

}  // namespace
}  // namespace cclab
