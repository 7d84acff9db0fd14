#pragma once

// The two 8-bit floats of the OCP FP8 format that NCCL (2.24+, on sm_90) reduces, as storage
// types with exact conversions to float:
//   e4m3 ("f8e4m3"): 4 exponent bits (bias 7), 3 mantissa bits, no infinities, NaN = S.1111.111,
//                    largest 448;
//   e5m2 ("f8e5m2"): 5 exponent bits (bias 15), 2 mantissa bits, IEEE-like infinities and NaNs,
//                    largest finite 57344.
// Rounding from float is to nearest, ties to even, saturating to the largest finite value (as
// CUDA's __nv_fp8 types convert by default). Arithmetic goes through float with one rounding.

#include <bit>
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "collectives/hd.h"

namespace cclab {

struct Float8E4M3 {
  std::uint8_t bits;
};

struct Float8E5M2 {
  std::uint8_t bits;
};

// The layout of each format.
template <typename T>
struct Float8Format;
template <>
struct Float8Format<Float8E4M3> {
  static constexpr int kMantissaBits = 3, kBias = 7;
  static constexpr bool kInfinities = false;
  static constexpr std::uint8_t kMaxFinite = 0x7e;  // 1.110 x 2^8 = 448
  static constexpr std::uint8_t kNaN = 0x7f;
};
template <>
struct Float8Format<Float8E5M2> {
  static constexpr int kMantissaBits = 2, kBias = 15;
  static constexpr bool kInfinities = true;
  static constexpr std::uint8_t kMaxFinite = 0x7b;  // 1.11 x 2^15 = 57344
  static constexpr std::uint8_t kNaN = 0x7e;
};

template <typename T>
concept Float8 = std::is_same_v<T, Float8E4M3> || std::is_same_v<T, Float8E5M2>;

template <Float8 T>
CCLAB_HD inline float toFloat(T v) {
  using F = Float8Format<T>;
  constexpr int kM = F::kMantissaBits;
  constexpr std::uint8_t kExponentMask = static_cast<std::uint8_t>(0x7f >> kM);
  const bool negative = (v.bits & 0x80) != 0;
  const int exponent = (v.bits >> kM) & kExponentMask;
  const int mantissa = v.bits & ((1 << kM) - 1);
  float magnitude;
  if (exponent == kExponentMask && (F::kInfinities || mantissa == (1 << kM) - 1)) {
    magnitude = (F::kInfinities && mantissa == 0) ? INFINITY : NAN;
  } else if (exponent == 0) {  // subnormal: mantissa x 2^(1 - bias - M)
    magnitude = ldexpf(static_cast<float>(mantissa), 1 - F::kBias - kM);
  } else {
    magnitude = ldexpf(static_cast<float>(mantissa + (1 << kM)), exponent - F::kBias - kM);
  }
  return negative ? -magnitude : magnitude;
}

template <Float8 T>
CCLAB_HD inline T toFloat8(float value) {
  using F = Float8Format<T>;
  constexpr int kM = F::kMantissaBits;
  constexpr int kMaxBiased = F::kMaxFinite >> kM;  // the largest finite value's exponent field
  const auto sign = static_cast<std::uint8_t>((std::bit_cast<std::uint32_t>(value) >> 24) & 0x80);
  const float magnitude = fabsf(value);
  if (magnitude != magnitude) return T{static_cast<std::uint8_t>(sign | F::kNaN)};
  const T saturated{static_cast<std::uint8_t>(sign | F::kMaxFinite)};
  if (magnitude == INFINITY) return saturated;
  // The quantum (spacing) at this magnitude: 2^(e - M) with 2^e the power of two at or below the
  // value, or the subnormal quantum 2^(1 - bias - M) below the smallest normal.
  int exponent = 0;
  frexpf(magnitude, &exponent);  // magnitude = m x 2^exponent, m in [0.5, 1)
  const int unbiased = exponent - 1;
  if (unbiased > kMaxBiased - F::kBias) return saturated;
  const int quantumExponent = (unbiased < 1 - F::kBias ? 1 - F::kBias : unbiased) - kM;
  // The value in quanta, rounded to nearest, ties to even: (1.mmm) x 2^M for a normal, below 2^M
  // for a subnormal (exponent field 0). Rounding up to 2^(M+1) carries into the next exponent.
  int units = static_cast<int>(rintf(ldexpf(magnitude, -quantumExponent)));
  int biased = quantumExponent + kM + F::kBias;
  if (units >= (2 << kM)) {
    units >>= 1;
    ++biased;
  }
  if (units < (1 << kM)) return T{static_cast<std::uint8_t>(sign | units)};  // subnormal or zero
  if (biased > kMaxBiased) return saturated;
  const int bits = (biased << kM) | (units - (1 << kM));
  return bits > F::kMaxFinite ? saturated : T{static_cast<std::uint8_t>(sign | bits)};  // e4m3: 0x7f is NaN
}

}  // namespace cclab
