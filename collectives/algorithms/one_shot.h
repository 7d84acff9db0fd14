#pragma once

// The one-shot (linear) algorithms' reduction, shared by the all_reduce and the reduce_scatter.

#include <cstddef>

#include "collectives/context.h"
#include "collectives/vocabulary.h"

namespace cclab {

// Reduces n equal inputs, slot q (at slots + q * slotBytes) rank q's, into dst as
// ((x0 op x1) op x2) ..., the order the reference reduces in, so every rank that reduces the same
// inputs holds the same bits; avg divides once, at the end. One input is copied.
inline void reduceSlotsInRankOrder(Device& device, void* dst, const char* slots, std::size_t slotBytes, int n, std::size_t count,
                                   DataType dtype, ReduceOp op) {
  auto slot = [&](int q) { return slots + static_cast<std::size_t>(q) * slotBytes; };
  if (n == 1) {
    device.copy(dst, slot(0), slotBytes);
    return;
  }
  device.reduce(dst, slot(0), slot(1), count, dtype, op);
  for (int q = 2; q < n; ++q) device.reduce(dst, dst, slot(q), count, dtype, op);
  if (op == ReduceOp::Avg) device.divide(dst, count, dtype, n);
}

}  // namespace cclab
