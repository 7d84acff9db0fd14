#pragma once

// The chunking arithmetic of the algorithms: how a buffer is cut into per-rank segments and how a
// segment is cut into pipeline chunks. Both cut as evenly as possible, so counts that do not divide
// evenly are handled in one place.

#include <cstddef>

namespace cclab {

struct Block {
  std::size_t offset;  // in elements
  std::size_t count;   // in elements
};

// Part `index` of `count` elements cut into `parts` nearly equal blocks: the first count % parts
// blocks hold one element more than the rest.
Block evenBlock(std::size_t count, std::size_t parts, std::size_t index);

// How many pipeline chunks a segment of `count` elements of `elementSize` bytes needs so that no
// chunk exceeds `chunkBytes` (at least one chunk, even for an empty segment).
std::size_t chunksFor(std::size_t count, std::size_t elementSize, std::size_t chunkBytes);

}  // namespace cclab
