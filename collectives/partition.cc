#include "collectives/partition.h"

#include <algorithm>

namespace cclab {

Block evenBlock(std::size_t count, std::size_t parts, std::size_t index) {
  const std::size_t base = count / parts;
  const std::size_t extra = count % parts;  // the first `extra` blocks get one more element
  return Block{index * base + std::min(index, extra), base + (index < extra ? 1 : 0)};
}

std::size_t chunksFor(std::size_t count, std::size_t elementSize, std::size_t chunkBytes) {
  const std::size_t elementsPerChunk = std::max<std::size_t>(1, chunkBytes / elementSize);
  return std::max<std::size_t>(1, (count + elementsPerChunk - 1) / elementsPerChunk);
}

}  // namespace cclab
