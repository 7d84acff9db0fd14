#include "collectives/reduce_kernels.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "collectives/device.h"
#include "collectives/typed.h"

namespace cclab {
namespace {

// A scalar reference written independently of the kernels: integers in 64-bit arithmetic then
// truncated (wrap-around), floats in double then rounded to the type.
template <typename T>
T referenceCombine(T a, T b, ReduceOp op) {
  if constexpr (std::is_integral_v<T>) {
    const auto ua = static_cast<std::uint64_t>(static_cast<std::int64_t>(a));
    const auto ub = static_cast<std::uint64_t>(static_cast<std::int64_t>(b));
    switch (op) {
      case ReduceOp::Prod: return static_cast<T>(ua * ub);
      case ReduceOp::Min: return a < b ? a : b;
      case ReduceOp::Max: return a < b ? b : a;
      default: return static_cast<T>(ua + ub);
    }
  } else {
    const double x = toDouble(a), y = toDouble(b);
    switch (op) {
      case ReduceOp::Prod: return fromDouble<T>(x * y);
      case ReduceOp::Min: return fromDouble<T>(std::min(x, y));
      case ReduceOp::Max: return fromDouble<T>(std::max(x, y));
      default: return fromDouble<T>(x + y);
    }
  }
}

// Inputs that span the type, negative values and (for integers) overflow included.
template <typename T>
T sample(std::size_t i, int salt) {
  const std::int64_t v = static_cast<std::int64_t>((i * 2654435761u + static_cast<std::size_t>(salt) * 40503u) % 2001) - 1000;
  if constexpr (std::is_integral_v<T>) return static_cast<T>(v * 977);  // wraps for narrow types
  else return fromDouble<T>(static_cast<double>(v) / 8);
}

template <typename T>
bool sameBits(T a, T b) { return std::memcmp(&a, &b, sizeof(T)) == 0; }

struct KernelCase {
  DataType dtype;
  ReduceOp op;
};

class ReduceKernels : public ::testing::TestWithParam<KernelCase> {};

TEST_P(ReduceKernels, MatchReferenceOutOfPlaceAndInPlace) {
  const auto [dtype, op] = GetParam();
  withType(dtype, [&]<typename T>() {
    for (std::size_t n : {1u, 7u, 64u, 1001u}) {
      std::vector<T> a(n), b(n), out(n);
      for (std::size_t i = 0; i < n; ++i) {
        a[i] = sample<T>(i, 1);
        b[i] = sample<T>(i, 2);
      }
      reduceHost(out.data(), a.data(), b.data(), n, dtype, op);
      std::vector<T> accumulateA = a;  // dst == a
      reduceHost(accumulateA.data(), accumulateA.data(), b.data(), n, dtype, op);
      std::vector<T> accumulateB = b;  // dst == b
      reduceHost(accumulateB.data(), a.data(), accumulateB.data(), n, dtype, op);
      for (std::size_t i = 0; i < n; ++i) {
        const T want = referenceCombine(a[i], b[i], op == ReduceOp::Avg ? ReduceOp::Sum : op);
        ASSERT_TRUE(sameBits(out[i], want)) << "n=" << n << " i=" << i;
        ASSERT_TRUE(sameBits(accumulateA[i], want)) << "in place (a), i=" << i;
        ASSERT_TRUE(sameBits(accumulateB[i], want)) << "in place (b), i=" << i;
      }
    }
  });
}

std::vector<KernelCase> allCases() {
  std::vector<KernelCase> cases;
  for (DataType t : allDataTypes())
    for (ReduceOp op : allReduceOps()) cases.push_back({t, op});
  return cases;
}

INSTANTIATE_TEST_SUITE_P(EveryTypeAndOp, ReduceKernels, ::testing::ValuesIn(allCases()),
                         [](const auto& info) { return std::string(name(info.param.dtype)) + "_" + std::string(name(info.param.op)); });

TEST(ReduceKernels, IntegerSumsWrapAround) {
  std::int8_t a[1] = {120}, b[1] = {10}, out[1];
  reduceHost(out, a, b, 1, DataType::Int8, ReduceOp::Sum);
  EXPECT_EQ(out[0], static_cast<std::int8_t>(-126));
  std::int32_t big[1] = {2147483647}, one[1] = {1}, sum[1];
  reduceHost(sum, big, one, 1, DataType::Int32, ReduceOp::Sum);
  EXPECT_EQ(sum[0], -2147483647 - 1);
}

TEST(ReduceKernels, DivideFinishesAvg) {
  std::vector<float> f = {3.0f, -9.0f, 1.0f};
  divideHost(f.data(), f.size(), DataType::Float, 3);
  EXPECT_FLOAT_EQ(f[0], 1.0f);
  EXPECT_FLOAT_EQ(f[1], -3.0f);
  EXPECT_FLOAT_EQ(f[2], 1.0f / 3.0f);
  std::vector<std::int32_t> i = {7, -7};
  divideHost(i.data(), i.size(), DataType::Int32, 2);
  EXPECT_EQ(i[0], 3);   // truncates toward zero, as C++ and NCCL do
  EXPECT_EQ(i[1], -3);
  std::vector<Half> h = {toHalf(6.0f)};
  divideHost(h.data(), 1, DataType::Half, 4);
  EXPECT_EQ(toFloat(h[0]), 1.5f);
}

// HostDevice copies in memcpy calls of its piece size (a machine's description sets it): every
// byte arrives whatever the piece, odd ones and one the whole copy (0) included.
TEST(HostDevice, CopiesEveryByteInAnyPieceSize) {
  std::vector<unsigned char> from(100003), to(from.size());
  for (std::size_t i = 0; i < from.size(); ++i) from[i] = static_cast<unsigned char>(i * 131 + 7);
  for (std::size_t piece : {std::size_t{0}, std::size_t{1}, std::size_t{7}, std::size_t{4096}, HostDevice::kDefaultCopyPieceBytes,
                            std::size_t{1} << 30}) {
    HostDevice host(piece);
    EXPECT_EQ(host.copyPieceBytes(), piece);
    std::fill(to.begin(), to.end(), 0);
    host.copy(to.data(), from.data(), from.size() - 1);
    EXPECT_TRUE(std::equal(from.begin(), from.end() - 1, to.begin())) << "piece " << piece;
    EXPECT_EQ(to.back(), 0) << "piece " << piece << ": wrote past the copy";
  }
  HostDevice host;
  EXPECT_EQ(host.copyPieceBytes(), HostDevice::kDefaultCopyPieceBytes);
  host.setCopyPieceBytes(0);
  EXPECT_EQ(host.copyPieceBytes(), 0u);
}

}  // namespace
}  // namespace cclab
