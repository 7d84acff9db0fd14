#include "collectives/partition.h"

#include <gtest/gtest.h>

namespace cclab {
namespace {

TEST(Partition, EvenBlocksCoverTheBufferExactly) {
  for (std::size_t count : {0u, 1u, 2u, 7u, 64u, 1000u, 1001u, 65537u}) {
    for (std::size_t parts : {1u, 2u, 3u, 5u, 8u, 13u}) {
      std::size_t next = 0;
      std::size_t largest = 0, smallest = count;
      for (std::size_t i = 0; i < parts; ++i) {
        const Block b = evenBlock(count, parts, i);
        EXPECT_EQ(b.offset, next) << count << "/" << parts << " block " << i;
        next += b.count;
        largest = std::max(largest, b.count);
        smallest = std::min(smallest, b.count);
      }
      EXPECT_EQ(next, count);
      EXPECT_LE(largest - smallest, 1u);  // as even as possible
    }
  }
}

TEST(Partition, LargerBlocksComeFirst) {
  EXPECT_EQ(evenBlock(10, 4, 0).count, 3u);
  EXPECT_EQ(evenBlock(10, 4, 1).count, 3u);
  EXPECT_EQ(evenBlock(10, 4, 2).count, 2u);
  EXPECT_EQ(evenBlock(10, 4, 3).offset, 8u);
}

TEST(Partition, ChunksNeverExceedTheChunkSize) {
  EXPECT_EQ(chunksFor(0, 4, 1024), 1u);
  EXPECT_EQ(chunksFor(256, 4, 1024), 1u);
  EXPECT_EQ(chunksFor(257, 4, 1024), 2u);
  EXPECT_EQ(chunksFor(1000, 8, 16), 500u);
  EXPECT_EQ(chunksFor(5, 8, 3), 5u);  // a chunk smaller than an element still holds one
  for (std::size_t count : {1u, 999u, 4096u, 100003u}) {
    for (std::size_t chunkBytes : {4u, 100u, 4096u}) {
      const std::size_t chunks = chunksFor(count, 4, chunkBytes);
      for (std::size_t c = 0; c < chunks; ++c) EXPECT_LE(evenBlock(count, chunks, c).count * 4, std::max<std::size_t>(chunkBytes, 4));
    }
  }
}

}  // namespace
}  // namespace cclab
