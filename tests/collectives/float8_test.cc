// fp8 (OCP e4m3 and e5m2) against a brute-force definition: every value decodes as the format
// says, and rounding from float picks the nearest representable value, ties to the even mantissa,
// saturating at the largest finite value.

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "collectives/float8.h"

namespace cclab {
namespace {

template <typename T>
std::vector<std::pair<float, std::uint8_t>> finiteValues() {
  std::vector<std::pair<float, std::uint8_t>> values;
  for (int b = 0; b < 256; ++b) {
    const float v = toFloat(T{static_cast<std::uint8_t>(b)});
    if (std::isfinite(v)) values.emplace_back(v, static_cast<std::uint8_t>(b));
  }
  return values;
}

// The nearest finite value to x, ties to an even mantissa; beyond the largest, the largest.
template <typename T>
std::uint8_t bruteForce(float x) {
  std::uint8_t best = 0;
  double bestDistance = INFINITY;
  for (auto [v, bits] : finiteValues<T>()) {
    if (std::signbit(v) != std::signbit(x) && v != 0) continue;
    const double d = std::fabs(static_cast<double>(v) - x);
    const bool even = (bits & 1) == 0;
    if (d < bestDistance || (d == bestDistance && even)) {
      if (v == 0 && std::signbit(v) != std::signbit(x)) continue;  // keep the sign of zero
      best = bits;
      bestDistance = d;
    }
  }
  return best;
}

TEST(Float8, DecodesAsTheFormatSays) {
  EXPECT_EQ(toFloat(Float8E4M3{0x38}), 1.0f);
  EXPECT_EQ(toFloat(Float8E4M3{0x7e}), 448.0f);
  EXPECT_EQ(toFloat(Float8E4M3{0x01}), std::ldexp(1.0f, -9));  // smallest subnormal
  EXPECT_EQ(toFloat(Float8E4M3{0xc0}), -2.0f);
  EXPECT_TRUE(std::isnan(toFloat(Float8E4M3{0x7f})));
  EXPECT_EQ(toFloat(Float8E4M3{0x78}), 256.0f);  // e4m3 has no infinity: exponent 15 is a number
  EXPECT_EQ(toFloat(Float8E5M2{0x3c}), 1.0f);
  EXPECT_EQ(toFloat(Float8E5M2{0x7b}), 57344.0f);
  EXPECT_EQ(toFloat(Float8E5M2{0x01}), std::ldexp(1.0f, -16));
  EXPECT_EQ(toFloat(Float8E5M2{0x7c}), INFINITY);
  EXPECT_TRUE(std::isnan(toFloat(Float8E5M2{0x7e})));
  EXPECT_EQ(finiteValues<Float8E4M3>().size(), 254u);  // 256 minus the two NaNs
  EXPECT_EQ(finiteValues<Float8E5M2>().size(), 248u);  // minus 2 infinities and 6 NaNs
}

template <typename T>
void expectRoundTripAndNearest() {
  for (auto [v, bits] : finiteValues<T>()) EXPECT_EQ(toFloat8<T>(v).bits, bits) << v;  // exact values stay
  // Every float on a fine grid, halfway points included, against the brute-force nearest.
  const float largest = toFloat(T{Float8Format<T>::kMaxFinite});
  int checked = 0;
  for (auto [v, bits] : finiteValues<T>()) {
    for (float f : {0.25f, 0.5f, 0.75f}) {
      const float next = toFloat(T{static_cast<std::uint8_t>(bits + 1)});
      if (!std::isfinite(next) || std::signbit(v) || v >= largest) continue;
      const float x = v + f * (next - v);
      EXPECT_EQ(toFloat8<T>(x).bits, bruteForce<T>(x)) << x;
      EXPECT_EQ(toFloat8<T>(-x).bits, bruteForce<T>(-x)) << -x;
      ++checked;
    }
  }
  EXPECT_GT(checked, 300);
  EXPECT_EQ(toFloat8<T>(largest * 4).bits, Float8Format<T>::kMaxFinite);  // saturates
  EXPECT_EQ(toFloat8<T>(-INFINITY).bits, 0x80 | Float8Format<T>::kMaxFinite);
  EXPECT_TRUE(std::isnan(toFloat(toFloat8<T>(NAN))));
}

TEST(Float8, RoundsToNearestEvenE4M3) {
  expectRoundTripAndNearest<Float8E4M3>();
  EXPECT_EQ(toFloat8<Float8E4M3>(1.0625f).bits, 0x38);  // halfway 1.0 / 1.125: even
  EXPECT_EQ(toFloat8<Float8E4M3>(1.1875f).bits, 0x3a);  // halfway 1.125 / 1.25: even
  EXPECT_EQ(toFloat8<Float8E4M3>(464.0f).bits, 0x7e);   // halfway 448 / (480, not finite): 448
  EXPECT_EQ(toFloat8<Float8E4M3>(std::ldexp(1.5f, -9)).bits, 0x02);
  EXPECT_EQ(toFloat8<Float8E4M3>(std::ldexp(0.5f, -9)).bits, 0x00);
}

TEST(Float8, RoundsToNearestEvenE5M2) {
  expectRoundTripAndNearest<Float8E5M2>();
  EXPECT_EQ(toFloat8<Float8E5M2>(1.125f).bits, 0x3c);   // halfway 1.0 / 1.25: even
  EXPECT_EQ(toFloat8<Float8E5M2>(std::ldexp(1.0f, -17)).bits, 0x00);
}

}  // namespace
}  // namespace cclab
