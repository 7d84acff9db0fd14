#pragma once

// Bruck's all_gather and the binomial gather and scatter keep blocks in distance order: block i
// belongs to rank (first + i) mod n. These copy between that order and rank order, two copies
// around the wrap (ranks first..n-1, then 0..first-1).

#include <cstddef>

#include "collectives/device.h"

namespace cclab {

inline void rotateToRankOrder(Device& device, void* rankOrdered, const char* distanceOrdered, int first, int n,
                              std::size_t blockBytes) {
  char* out = static_cast<char*>(rankOrdered);
  const std::size_t tail = static_cast<std::size_t>(n - first) * blockBytes;  // ranks first..n-1
  device.copy(out + static_cast<std::size_t>(first) * blockBytes, distanceOrdered, tail);
  if (first > 0) device.copy(out, distanceOrdered + tail, static_cast<std::size_t>(first) * blockBytes);
}

inline void rotateFromRankOrder(Device& device, char* distanceOrdered, const void* rankOrdered, int first, int n,
                                std::size_t blockBytes) {
  const char* in = static_cast<const char*>(rankOrdered);
  const std::size_t tail = static_cast<std::size_t>(n - first) * blockBytes;
  device.copy(distanceOrdered, in + static_cast<std::size_t>(first) * blockBytes, tail);
  if (first > 0) device.copy(distanceOrdered + tail, in, static_cast<std::size_t>(first) * blockBytes);
}

}  // namespace cclab
