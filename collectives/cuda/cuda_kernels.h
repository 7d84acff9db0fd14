#pragma once

// The CUDA kernels of cclab's GPU algorithms: the element-wise reduction of one step (the same
// arithmetic as the CPU kernels, collectives/reduce_ops.h) and the division that finishes avg.
// They run on the given stream and return at once.

#include <cuda_runtime.h>

#include <cstddef>

#include "collectives/vocabulary.h"

namespace cclab {

// dst[i] = a[i] (op) b[i], i < count. dst may equal a or b. 16-byte vector loads and stores where
// the three pointers share their alignment; element by element otherwise.
void launchReduce(void* dst, const void* a, const void* b, std::size_t count, DataType dtype, ReduceOp op, cudaStream_t stream);

// buf[i] /= divisor.
void launchDivide(void* buf, std::size_t count, DataType dtype, int divisor, cudaStream_t stream);

}  // namespace cclab
