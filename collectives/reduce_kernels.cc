#include "collectives/reduce_kernels.h"

#include <cstdint>
#include <type_traits>

#include "collectives/reduce_ops.h"
#include "collectives/typed.h"

namespace cclab {
namespace {

// Two loop shapes with no-alias promises so the compiler vectorises them: out of place
// (dst = a op b) and accumulate (dst op= src), which is how the algorithms reduce in place.
template <typename T, ReduceOp Op>
void reduceThree(T* __restrict dst, const T* __restrict a, const T* __restrict b, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) dst[i] = combine<T, Op>(a[i], b[i]);
}
template <typename T, ReduceOp Op>
void accumulate(T* __restrict dst, const T* __restrict src, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) dst[i] = combine<T, Op>(dst[i], src[i]);
}

template <typename T, ReduceOp Op>
void reduceTyped(void* dst, const void* a, const void* b, std::size_t n) {
  auto* d = static_cast<T*>(dst);
  const auto* x = static_cast<const T*>(a);
  const auto* y = static_cast<const T*>(b);
  if (d == x) {
    accumulate<T, Op>(d, y, n);
  } else if (d == y) {
    accumulate<T, Op>(d, x, n);  // every op is commutative
  } else {
    reduceThree<T, Op>(d, x, y, n);
  }
}

template <typename T>
void reduceWithOp(void* dst, const void* a, const void* b, std::size_t n, ReduceOp op) {
  switch (op) {
    case ReduceOp::Sum:
    case ReduceOp::Avg:
      return reduceTyped<T, ReduceOp::Sum>(dst, a, b, n);
    case ReduceOp::Prod:
      return reduceTyped<T, ReduceOp::Prod>(dst, a, b, n);
    case ReduceOp::Min:
      return reduceTyped<T, ReduceOp::Min>(dst, a, b, n);
    case ReduceOp::Max:
      return reduceTyped<T, ReduceOp::Max>(dst, a, b, n);
  }
}

template <typename T>
void divideTyped(void* buf, std::size_t n, int divisor) {
  auto* p = static_cast<T*>(buf);
  for (std::size_t i = 0; i < n; ++i) p[i] = divideElement(p[i], divisor);
}

}  // namespace

void reduceHost(void* dst, const void* a, const void* b, std::size_t count, DataType dtype, ReduceOp op) {
  withType(dtype, [&]<typename T>() { reduceWithOp<T>(dst, a, b, count, op); });
}

void divideHost(void* buf, std::size_t count, DataType dtype, int divisor) {
  withType(dtype, [&]<typename T>() { divideTyped<T>(buf, count, divisor); });
}

}  // namespace cclab
