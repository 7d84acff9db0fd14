#pragma once

// Bruck's all_gather and the binomial gather and scatter keep blocks in distance order: block i
// belongs to rank (first + i) mod n. These copy between that order and rank order, two copies
// around the wrap (ranks first..n-1, then 0..first-1), or split a run of distances where it
// crosses rank 0, so that it can be sent from or received into rank order without a copy.

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

// A run of `blocks` blocks of distances from `first` on, counted from a root whose rank 0 is at
// distance `wrap` (n - root): the blocks before rank 0 and those from it on, which rank order
// keeps apart (after: 0 where the run does not cross rank 0).
struct RunAroundRankZero {
  int before = 0;
  int after = 0;
};

inline RunAroundRankZero splitAtRankZero(int first, int blocks, int wrap) {
  if (first < wrap && wrap < first + blocks) return {wrap - first, first + blocks - wrap};
  return {blocks, 0};
}

}  // namespace cclab
