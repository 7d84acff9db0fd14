#include "collectives/reduce_kernels.h"

#include <cstdint>
#include <type_traits>

#include "collectives/half.h"
#include "collectives/typed.h"

namespace cclab {
namespace {

// How each element type is computed: integers in their unsigned twin (wrap-around is defined and
// order-independent), 16-bit floats in float, the rest natively.
template <typename T>
struct ComputeType {
  using type = T;
};
template <typename T>
  requires std::is_integral_v<T>
struct ComputeType<T> {
  using type = std::make_unsigned_t<T>;
};

template <typename T>
struct Arith {
  using Compute = typename ComputeType<T>::type;
  static Compute load(T v) { return static_cast<Compute>(v); }
  static T store(Compute v) { return static_cast<T>(v); }
  static bool less(T a, T b) { return a < b; }
};
template <Float16 T>
struct Arith<T> {
  using Compute = float;
  static float load(T v) { return toFloat(v); }
  static T store(float v) { return fromFloat<T>(v); }
  static bool less(T a, T b) { return toFloat(a) < toFloat(b); }
};

template <typename T, ReduceOp Op>
inline T combine(T a, T b) {
  using A = Arith<T>;
  if constexpr (Op == ReduceOp::Min) return A::less(b, a) ? b : a;
  if constexpr (Op == ReduceOp::Max) return A::less(a, b) ? b : a;
  if constexpr (Op == ReduceOp::Prod) return A::store(A::load(a) * A::load(b));
  return A::store(A::load(a) + A::load(b));  // Sum, Avg
}

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
  using A = Arith<T>;
  if constexpr (std::is_integral_v<T>) {
    for (std::size_t i = 0; i < n; ++i) p[i] = static_cast<T>(p[i] / static_cast<T>(divisor));
  } else {
    using C = typename A::Compute;
    for (std::size_t i = 0; i < n; ++i) p[i] = A::store(A::load(p[i]) / static_cast<C>(divisor));
  }
}

}  // namespace

void reduceHost(void* dst, const void* a, const void* b, std::size_t count, DataType dtype, ReduceOp op) {
  withType(dtype, [&]<typename T>() { reduceWithOp<T>(dst, a, b, count, op); });
}

void divideHost(void* buf, std::size_t count, DataType dtype, int divisor) {
  withType(dtype, [&]<typename T>() { divideTyped<T>(buf, count, divisor); });
}

}  // namespace cclab
