#include "collectives/half.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace cclab {
namespace {

bool isNanHalf(std::uint16_t bits) { return (bits & 0x7c00u) == 0x7c00u && (bits & 0x3ffu) != 0; }

TEST(Half, EveryBitPatternRoundTrips) {
  for (std::uint32_t bits = 0; bits <= 0xffffu; ++bits) {
    const Half h{static_cast<std::uint16_t>(bits)};
    if (isNanHalf(h.bits)) {
      EXPECT_TRUE(std::isnan(toFloat(h)));
      continue;
    }
    ASSERT_EQ(toHalf(toFloat(h)).bits, h.bits) << std::hex << bits;
  }
}

TEST(Half, KnownValues) {
  EXPECT_EQ(toFloat(Half{0x3c00}), 1.0f);
  EXPECT_EQ(toFloat(Half{0xc000}), -2.0f);
  EXPECT_EQ(toFloat(Half{0x7bff}), 65504.0f);
  EXPECT_EQ(toFloat(Half{0x0001}), std::ldexp(1.0f, -24));  // smallest subnormal
  EXPECT_EQ(toHalf(2048.0f).bits, 0x6800);
  EXPECT_EQ(toHalf(65520.0f).bits, 0x7c00);  // rounds up to infinity
  EXPECT_EQ(toHalf(1e-9f).bits, 0x0000);     // underflows to zero
}

TEST(Half, RoundsToNearestEven) {
  // Between 2048 and 2050 (spacing 2): 2049 is a tie and goes to the even significand (2048);
  // 2051 ties between 2050 and 2052 and goes to 2052.
  EXPECT_EQ(toFloat(toHalf(2049.0f)), 2048.0f);
  EXPECT_EQ(toFloat(toHalf(2051.0f)), 2052.0f);
  EXPECT_EQ(toFloat(toHalf(2049.5f)), 2050.0f);
  // Subnormal ties: 1.5 and 2.5 units of 2^-24.
  EXPECT_EQ(toHalf(std::ldexp(1.5f, -24)).bits, 0x0002);
  EXPECT_EQ(toHalf(std::ldexp(2.5f, -24)).bits, 0x0002);
}

#ifdef __FLT16_MAX__
// Where the compiler has _Float16, its conversion is the reference for many values.
TEST(Half, MatchesTheCompilersConversion) {
  for (std::uint32_t i = 0; i < 200000; ++i) {
    const float f = std::ldexp(static_cast<float>(i % 9973) + 0.37f * static_cast<float>(i % 7), static_cast<int>(i % 40) - 30) *
                    ((i & 1) ? -1.0f : 1.0f);
    const _Float16 reference = static_cast<_Float16>(f);
    ASSERT_EQ(toHalf(f).bits, std::bit_cast<std::uint16_t>(reference)) << f;
  }
}
#endif

TEST(BFloat16, EveryBitPatternRoundTrips) {
  for (std::uint32_t bits = 0; bits <= 0xffffu; ++bits) {
    const BFloat16 b{static_cast<std::uint16_t>(bits)};
    if (std::isnan(toFloat(b))) continue;
    ASSERT_EQ(toBFloat16(toFloat(b)).bits, b.bits) << std::hex << bits;
  }
}

TEST(BFloat16, RoundsToNearestEven) {
  EXPECT_EQ(toFloat(toBFloat16(257.0f)), 256.0f);  // tie between 256 and 258: even
  EXPECT_EQ(toFloat(toBFloat16(259.0f)), 260.0f);  // tie between 258 and 260: even
  EXPECT_EQ(toFloat(toBFloat16(257.5f)), 258.0f);
  EXPECT_TRUE(std::isnan(toFloat(toBFloat16(std::numeric_limits<float>::quiet_NaN()))));
  EXPECT_EQ(toFloat(toBFloat16(std::numeric_limits<float>::infinity())), std::numeric_limits<float>::infinity());
}

}  // namespace
}  // namespace cclab
