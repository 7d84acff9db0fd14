#pragma once

// The CPU reduction kernels: the arithmetic every host-memory algorithm runs on each chunk.

#include <cstddef>

#include "collectives/vocabulary.h"

namespace cclab {

// dst[i] = a[i] (op) b[i] for i < count. dst may be the same pointer as a or b (accumulate in
// place) but must not partially overlap either. Avg reduces as Sum; finish it with divideBy.
// Integer arithmetic wraps (two's complement), so results do not depend on the reduction order.
void reduceHost(void* dst, const void* a, const void* b, std::size_t count, DataType dtype, ReduceOp op);

// buf[i] /= divisor: the last step of ReduceOp::Avg (integer division truncates toward zero).
void divideHost(void* buf, std::size_t count, DataType dtype, int divisor);

}  // namespace cclab
