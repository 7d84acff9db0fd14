#pragma once

// The arithmetic of one reduction step on one element, shared by the CPU kernels
// (reduce_kernels.cc) and the CUDA kernels (cuda/cuda_kernels.cu), so both give bit-identical
// results: integers in their unsigned twin (wrap-around is defined and order-independent), 16- and
// 8-bit floats in float with one rounding, the rest natively.

#include <cstdint>
#include <type_traits>

#include "collectives/hd.h"
#include "collectives/typed.h"
#include "collectives/vocabulary.h"

namespace cclab {

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
  CCLAB_HD static Compute load(T v) { return static_cast<Compute>(v); }
  CCLAB_HD static T store(Compute v) { return static_cast<T>(v); }
  CCLAB_HD static bool less(T a, T b) { return a < b; }
};
template <NarrowFloat T>
struct Arith<T> {
  using Compute = float;
  CCLAB_HD static float load(T v) { return toFloat(v); }
  CCLAB_HD static T store(float v) { return narrowFromFloat<T>(v); }
  CCLAB_HD static bool less(T a, T b) { return toFloat(a) < toFloat(b); }
};

// a (op) b. Avg combines as Sum; divideElement finishes it.
template <typename T, ReduceOp Op>
CCLAB_HD inline T combine(T a, T b) {
  using A = Arith<T>;
  if constexpr (Op == ReduceOp::Min) return A::less(b, a) ? b : a;
  if constexpr (Op == ReduceOp::Max) return A::less(a, b) ? b : a;
  if constexpr (Op == ReduceOp::Prod) return A::store(A::load(a) * A::load(b));
  return A::store(A::load(a) + A::load(b));  // Sum, Avg
}

// v / divisor: integers truncate toward zero, floats round once.
template <typename T>
CCLAB_HD inline T divideElement(T v, int divisor) {
  if constexpr (std::is_integral_v<T>) {
    // In 64 bits, then narrowed: the rank count need not fit the type (int8 at 128+ ranks would
    // divide by a negative number, uint8 at 256+ by zero). As NCCL: the wrapped sum, truncated.
    if constexpr (std::is_signed_v<T>) return static_cast<T>(static_cast<std::int64_t>(v) / divisor);
    else return static_cast<T>(static_cast<std::uint64_t>(v) / static_cast<std::uint64_t>(divisor));
  } else {
    using A = Arith<T>;
    return A::store(A::load(v) / static_cast<typename A::Compute>(divisor));
  }
}

}  // namespace cclab
