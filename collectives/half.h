#pragma once

// IEEE 754 binary16 ("half") and bfloat16 as 16-bit storage types with exact conversions to float.
// Arithmetic on them goes through float: float's 24-bit significand is at least 2p+2 bits for both
// (p = 11 and 8), so computing in float and rounding once gives the correctly rounded result.

#include <bit>
#include <cstdint>
#include <type_traits>

#include "collectives/hd.h"

namespace cclab {

struct Half {
  std::uint16_t bits;
};

struct BFloat16 {
  std::uint16_t bits;
};

CCLAB_HD inline float toFloat(Half h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h.bits & 0x8000u) << 16;
  const std::uint32_t exponent = (h.bits >> 10) & 0x1fu;
  const std::uint32_t mantissa = h.bits & 0x3ffu;
  if (exponent == 0) {  // zero or subnormal: mantissa * 2^-24
    const float magnitude = static_cast<float>(mantissa) * 0x1p-24f;
    return sign ? -magnitude : magnitude;
  }
  if (exponent == 0x1f) return std::bit_cast<float>(sign | 0x7f800000u | (mantissa << 13));  // inf, NaN
  return std::bit_cast<float>(sign | ((exponent + 112u) << 23) | (mantissa << 13));            // rebias 15 -> 127
}

// Round to nearest, ties to even.
CCLAB_HD inline Half toHalf(float value) {
  std::uint32_t bits = std::bit_cast<std::uint32_t>(value);
  const auto sign = static_cast<std::uint16_t>((bits >> 16) & 0x8000u);
  const std::uint32_t magnitude = bits & 0x7fffffffu;
  if (magnitude > 0x7f800000u) return Half{static_cast<std::uint16_t>(sign | 0x7e00u)};  // NaN stays NaN
  if (magnitude >= 0x477ff000u) return Half{static_cast<std::uint16_t>(sign | 0x7c00u)};  // >= 65520: inf
  if (magnitude < 0x38800000u) {
    // Below 2^-14 the result is subnormal: adding 0.5 (whose ulp is 2^-24, the subnormal step)
    // lets the FPU do the round-to-nearest-even; the difference of the bit patterns is the result.
    const float rounded = std::bit_cast<float>(magnitude) + 0.5f;
    const std::uint32_t units = std::bit_cast<std::uint32_t>(rounded) - std::bit_cast<std::uint32_t>(0.5f);
    return Half{static_cast<std::uint16_t>(sign | units)};
  }
  // Normal: rebias the exponent (127 -> 15) and round the 13 dropped bits to nearest even.
  const std::uint32_t odd = (magnitude >> 13) & 1u;
  const std::uint32_t rebased = magnitude - (112u << 23) + 0xfffu + odd;
  return Half{static_cast<std::uint16_t>(sign | (rebased >> 13))};
}

CCLAB_HD inline float toFloat(BFloat16 b) { return std::bit_cast<float>(static_cast<std::uint32_t>(b.bits) << 16); }

// Round to nearest, ties to even.
CCLAB_HD inline BFloat16 toBFloat16(float value) {
  const std::uint32_t bits = std::bit_cast<std::uint32_t>(value);
  if ((bits & 0x7fffffffu) > 0x7f800000u) return BFloat16{static_cast<std::uint16_t>((bits >> 16) | 0x40u)};
  const std::uint32_t odd = (bits >> 16) & 1u;
  return BFloat16{static_cast<std::uint16_t>((bits + 0x7fffu + odd) >> 16)};
}

// The two 16-bit float types, and rounding a float to either.
template <typename T>
concept Float16 = std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;

template <Float16 T>
CCLAB_HD T fromFloat(float value) {
  if constexpr (std::is_same_v<T, Half>) return toHalf(value);
  else return toBFloat16(value);
}

}  // namespace cclab
