// The verifier is the judge of every other test: show that it accepts exactly the right answer
// and catches wrong ones.

#include "collectives/verify/verify.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "collectives/float8.h"
#include "collectives/half.h"
#include "collectives/reduce_kernels.h"
#include "collectives/typed.h"
#include "collectives/verify/verify_values.h"

namespace cclab::verify {
namespace {

// Runs a collective the slow, obvious way on every rank's input (reductions with cclab's kernel,
// folded in rank order) and returns rank `rank`'s output.
// With dropRank >= 0 that rank's input is left out of the reductions, as a buggy algorithm would.
std::vector<char> naiveOutput(Collective c, DataType t, std::optional<ReduceOp> op, std::size_t count, int n, int rank,
                              int root, int rep, int dropRank = -1) {
  const std::size_t es = sizeOf(t);
  std::vector<std::vector<char>> inputs;
  for (int r = 0; r < n; ++r) {
    Verifier v(c, t, op, count, n, r, root);
    inputs.emplace_back(bufferLayout(c, count, n, r).sendCount * es);
    v.fillInput(inputs.back().data(), rep);
  }
  const BufferLayout layout = bufferLayout(c, count, n, rank);
  std::vector<char> out(layout.recvCount * es);
  auto reduceAll = [&](std::size_t offset, std::size_t elements, char* dst) {
    std::memcpy(dst, inputs[0].data() + offset * es, elements * es);
    for (int r = 1; r < n; ++r) {
      if (r != dropRank) reduceHost(dst, dst, inputs[static_cast<std::size_t>(r)].data() + offset * es, elements, t, *op);
    }
    if (op == ReduceOp::Avg) divideHost(dst, elements, t, n);
  };
  const std::size_t block = count * es;
  switch (c) {
    case Collective::AllReduce:
    case Collective::Reduce: reduceAll(0, count, out.data()); break;
    case Collective::ReduceScatter: reduceAll(static_cast<std::size_t>(rank) * count, count, out.data()); break;
    case Collective::AllGather:
    case Collective::Gather:
      for (int q = 0; q < n; ++q) std::memcpy(out.data() + static_cast<std::size_t>(q) * block, inputs[static_cast<std::size_t>(q)].data(), block);
      break;
    case Collective::Broadcast: std::memcpy(out.data(), inputs[static_cast<std::size_t>(root)].data(), block); break;
    case Collective::AllToAll:
      for (int q = 0; q < n; ++q)
        std::memcpy(out.data() + static_cast<std::size_t>(q) * block, inputs[static_cast<std::size_t>(q)].data() + static_cast<std::size_t>(rank) * block, block);
      break;
    case Collective::Scatter: std::memcpy(out.data(), inputs[static_cast<std::size_t>(root)].data() + static_cast<std::size_t>(rank) * block, block); break;
    case Collective::SendRecv: std::memcpy(out.data(), inputs[static_cast<std::size_t>((rank + n - 1) % n)].data(), block); break;
  }
  return out;
}

TEST(Verifier, AcceptsTheNaiveResultForEveryCollectiveTypeAndOp) {
  for (Collective c : allCollectives()) {
    for (DataType t : allDataTypes()) {
      std::vector<std::optional<ReduceOp>> ops{std::nullopt};
      if (reduces(c)) ops.assign(allReduceOps().begin(), allReduceOps().end());
      for (auto op : ops) {
        for (int n : {1, 2, 3, 7, 64}) {
          const int rank = n - 1;
          const int root = n / 2;
          Verifier v(c, t, op, 37, n, rank, root);
          const auto out = naiveOutput(c, t, op, 37, n, rank, root, 3);
          ASSERT_EQ(v.countWrong(out.data(), 3), 0)
              << name(c) << " " << name(t) << " " << (op ? name(*op) : "none") << " n=" << n;
        }
      }
    }
  }
}

// The host verifier keeps a slot per element instead of dividing (verify.cc); the GPU's and the
// formula's element-by-element functions are the definition. Both must agree bit for bit.
TEST(Verifier, BufferLoopsAgreeWithTheFormulaElementByElement) {
  for (Collective c : allCollectives()) {
    for (DataType t : allDataTypes()) {
      std::vector<std::optional<ReduceOp>> ops{std::nullopt};
      if (reduces(c)) ops.assign(allReduceOps().begin(), allReduceOps().end());
      for (auto op : ops) {
        const int opCode = op ? static_cast<int>(*op) : values::kNoOp;
        for (int n : {1, 2, 3, 5, 9}) {
          for (int rank : {0, n - 1}) {
            for (std::size_t count : {std::size_t{0}, std::size_t{1}, std::size_t{23}}) {
              const int root = n - 1 - rank;
              const BufferLayout layout = bufferLayout(c, count, n, rank);
              const std::size_t es = sizeOf(t);
              Verifier v(c, t, op, count, n, rank, root);
              std::vector<char> in(layout.sendCount * es), want(layout.recvCount * es);
              v.fillInput(in.data(), 4);
              withType(t, [&]<typename T>() {
                for (std::size_t j = 0; j < layout.sendCount; ++j) {
                  const T e = values::inputElement<T>(opCode, rank, n, j, 4);
                  ASSERT_EQ(std::memcmp(in.data() + j * es, &e, es), 0) << "input " << j;
                }
                for (std::size_t j = 0; j < layout.recvCount; ++j) {
                  const T e = values::expectedElement<T>(c, opCode, count, n, rank, root, j, 4);
                  std::memcpy(want.data() + j * es, &e, es);
                }
              });
              const std::string what = std::string(name(c)) + " " + std::string(name(t)) + " " +
                                       (op ? std::string(name(*op)) : "none") + " n=" + std::to_string(n) +
                                       " rank=" + std::to_string(rank) + " count=" + std::to_string(count);
              ASSERT_EQ(v.countWrong(want.data(), 4), 0) << what;
              if (layout.recvCount == 0 || !values::hasResult(c, rank, root)) continue;
              want[(layout.recvCount - 1) * es + es - 1] ^= 0x40;  // the last element, a high bit
              ASSERT_EQ(v.countWrong(want.data(), 4), 1) << what;
            }
          }
        }
      }
    }
  }
}

TEST(Verifier, CatchesOneCorruptedElement) {
  for (DataType t : allDataTypes()) {
    Verifier v(Collective::AllReduce, t, ReduceOp::Sum, 100, 4, 1, 0);
    auto out = naiveOutput(Collective::AllReduce, t, ReduceOp::Sum, 100, 4, 1, 0, 1);
    ASSERT_EQ(v.countWrong(out.data(), 1), 0);
    out[57 * sizeOf(t) + sizeOf(t) - 1] ^= 0x40;  // flip a high bit of element 57
    EXPECT_EQ(v.countWrong(out.data(), 1), 1) << name(t);
  }
}

TEST(Verifier, CatchesBlocksInTheWrongPlaceAndStaleData) {
  Verifier v(Collective::AllGather, DataType::Float, std::nullopt, 16, 4, 2, 0);
  auto out = naiveOutput(Collective::AllGather, DataType::Float, std::nullopt, 16, 4, 2, 0, 1);
  std::vector<char> swapped = out;
  std::memcpy(swapped.data(), out.data() + 16 * 4, 16 * 4);  // block 1's data in block 0
  EXPECT_GT(v.countWrong(swapped.data(), 1), 10);
  EXPECT_GT(v.countWrong(out.data(), 2), 10);  // right layout, but another repetition's data
  std::vector<char> poisoned(out.size());
  v.poison(poisoned.data(), 64);
  EXPECT_EQ(v.countWrong(poisoned.data(), 1), 64);  // nothing written: every element is wrong
}

TEST(Verifier, AvgAllowsTwoUlpsAndNoMore) {
  Verifier v(Collective::AllReduce, DataType::Float, ReduceOp::Avg, 8, 3, 0, 0);
  auto out = naiveOutput(Collective::AllReduce, DataType::Float, ReduceOp::Avg, 8, 3, 0, 0, 1);
  float* f = reinterpret_cast<float*>(out.data());
  std::uint32_t bits;
  std::memcpy(&bits, &f[2], 4);
  bits += 2;
  std::memcpy(&f[2], &bits, 4);
  EXPECT_EQ(v.countWrong(out.data(), 1), 0);
  bits += 1;  // now 3 ulp away
  std::memcpy(&f[2], &bits, 4);
  EXPECT_EQ(v.countWrong(out.data(), 1), 1);
}

TEST(Verifier, NonRootRanksHaveNothingToCheck) {
  Verifier v(Collective::Reduce, DataType::Int32, ReduceOp::Sum, 8, 4, 1, 0);
  std::vector<char> garbage(32, 0x5a);
  EXPECT_EQ(v.countWrong(garbage.data(), 1), 0);
  Verifier root(Collective::Reduce, DataType::Int32, ReduceOp::Sum, 8, 4, 0, 0);
  EXPECT_EQ(root.countWrong(garbage.data(), 1), 8);
}

TEST(Verifier, CatchesAMissingRankAtLargeRankCounts) {
  // Only 8 ranks contribute to each element, but every rank contributes to its share of every
  // block: leaving any one rank out is caught, for every op.
  for (ReduceOp op : allReduceOps()) {
    for (int dropped : {1, 17, 63}) {
      Verifier v(Collective::AllReduce, DataType::Float, op, 1024, 64, 5, 0);
      const auto out = naiveOutput(Collective::AllReduce, DataType::Float, op, 1024, 64, 5, 0, 2, dropped);
      EXPECT_GT(v.countWrong(out.data(), 2), 10) << name(op) << " without rank " << dropped;
    }
  }
}

TEST(Verifier, ReportsProgressOnLongChecks) {
  const std::size_t count = (std::size_t{3} << 20) + 5;
  Verifier v(Collective::AllReduce, DataType::Int32, ReduceOp::Sum, count, 2, 0, 0);
  std::vector<std::int32_t> out(count);
  int calls = 0;
  v.countWrong(out.data(), 1, [&] { ++calls; });
  EXPECT_EQ(calls, 4);  // at elements 0, 1M, 2M and 3M
}

TEST(Verifier, SumsStayExactAtLargeRankCounts) {
  // With 1000 ranks a bfloat16 sum (8-bit significand) must still be exact: the verifier keeps
  // the number of non-zero contributions per element small enough.
  for (DataType t : {DataType::BFloat16, DataType::Half, DataType::Float}) {
    Verifier v(Collective::AllReduce, t, ReduceOp::Sum, 50, 1000, 3, 0);
    const auto out = naiveOutput(Collective::AllReduce, t, ReduceOp::Sum, 50, 1000, 3, 0, 1);
    EXPECT_EQ(v.countWrong(out.data(), 1), 0) << name(t);
  }
}

// NCCL's avg on floating types, element by element (src/enqueue.cc hostToDevRedOp and
// src/device/reduce_kernel.h, NCCL 2.18-2.30): the scalar 1/n is computed in double, rounded to
// float, then to the type; each rank multiplies its own input by it in the type (fp8: through
// half) and adds it to the partial sum it received, rounding every add to the type (fp8: through
// half). A ring reduces chunk c from ring position c+1 round to c.
template <typename T>
T roundedTo(double v) {
  if constexpr (std::is_same_v<T, Float8E4M3> || std::is_same_v<T, Float8E5M2>) return fromDouble<T>(toDouble(fromDouble<Half>(v)));
  else return fromDouble<T>(v);
}

template <typename T>
T ncclPreMultipliedAvg(const std::vector<T>& inputs, std::size_t firstRank) {
  const int n = static_cast<int>(inputs.size());
  const T scalar = std::is_same_v<T, double> ? fromDouble<T>(1.0 / n) : fromDouble<T>(static_cast<float>(1.0 / n));
  auto preMul = [&](T x) { return roundedTo<T>(toDouble(x) * toDouble(scalar)); };
  T acc = preMul(inputs[firstRank % static_cast<std::size_t>(n)]);
  for (int j = 1; j < n; ++j) acc = roundedTo<T>(toDouble(acc) + toDouble(preMul(inputs[(firstRank + static_cast<std::size_t>(j)) % static_cast<std::size_t>(n)])));
  return acc;
}

template <typename T>
void expectNcclAvgAccepted(DataType t) {
  constexpr std::size_t kCount = 203;
  for (int n = 1; n <= 32; ++n) {
    std::vector<std::vector<T>> inputs(static_cast<std::size_t>(n), std::vector<T>(kCount));
    for (int r = 0; r < n; ++r) Verifier(Collective::AllReduce, t, ReduceOp::Avg, kCount, n, r, 0).fillInput(inputs[static_cast<std::size_t>(r)].data(), 1);
    std::vector<T> out(kCount);
    for (std::size_t i = 0; i < kCount; ++i) {
      std::vector<T> column;
      for (const auto& in : inputs) column.push_back(in[i]);
      out[i] = ncclPreMultipliedAvg(column, i + 1);  // chunks start at different ring positions
    }
    Verifier v(Collective::AllReduce, t, ReduceOp::Avg, kCount, n, n - 1, 0);
    EXPECT_EQ(v.countWrong(out.data(), 1), 0) << name(t) << " at " << n << " ranks";
    // Still a check: the larger contribution left out of one element is caught.
    if (n < 2) continue;
    for (std::size_t i = 0; i < kCount; ++i) {
      std::vector<T> column;
      for (const auto& in : inputs) column.push_back(in[i]);
      const auto first = static_cast<std::size_t>(values::rankInSlot(0, n, i)), second = static_cast<std::size_t>(values::rankInSlot(1, n, i));
      const std::size_t larger = toDouble(column[first]) >= toDouble(column[second]) ? first : second;
      if (toDouble(column[larger]) == 0) continue;  // both contribute 0 here
      column[larger] = T{};
      out[i] = ncclPreMultipliedAvg(column, i + 1);
      EXPECT_EQ(v.countWrong(out.data(), 1), 1) << name(t) << " at " << n << " ranks";
      break;
    }
  }
}

TEST(Verifier, AcceptsNcclsPreMultipliedAvgAtEveryRankCountAndFloatType) {
  expectNcclAvgAccepted<Half>(DataType::Half);
  expectNcclAvgAccepted<BFloat16>(DataType::BFloat16);
  expectNcclAvgAccepted<float>(DataType::Float);
  expectNcclAvgAccepted<double>(DataType::Double);
  expectNcclAvgAccepted<Float8E4M3>(DataType::Float8E4M3);
  expectNcclAvgAccepted<Float8E5M2>(DataType::Float8E5M2);
}

template <typename T>
std::uint64_t worstPreMultipliedAvg(int n, int contributions, std::int64_t range) {
  std::uint64_t worst = 0;
  for (std::uint64_t seed = 1; seed < 3000; ++seed) {
    std::vector<T> column(static_cast<std::size_t>(n), T{});
    double sum = 0;
    for (int r = 0; r < contributions; ++r) {
      const double x = static_cast<double>(values::mix(seed * 64 + static_cast<std::uint64_t>(r)) % static_cast<std::uint64_t>(range));
      column[static_cast<std::size_t>((static_cast<int>(seed % 1024) + r) % n)] = fromDouble<T>(x);
      sum += x;
    }
    worst = std::max(worst, values::ulpDistance(ncclPreMultipliedAvg(column, seed), fromDouble<T>(sum / n)));
  }
  return worst;
}

TEST(Verifier, EightPreMultipliedContributionsDriftPastTwoUlps) {
  // Why float avg has 2 contributors: with up to 8, as the other ops have (each below
  // limit / contributions, at most 64), NCCL's arithmetic leaves the exact quotient by more than
  // the 2 ulp the check allows, where 2 contributions at those rank counts never do.
  std::uint64_t eight = 0, two = 0;
  for (int n : {5, 6, 7, 9, 12, 24}) {
    const int c = std::min(n, 8);
    eight = std::max({eight, worstPreMultipliedAvg<Half>(n, c, std::min<std::int64_t>(2048 / c, 64)),
                      worstPreMultipliedAvg<BFloat16>(n, c, 256 / c), worstPreMultipliedAvg<float>(n, c, 64)});
    two = std::max({two, worstPreMultipliedAvg<Half>(n, 2, 64), worstPreMultipliedAvg<BFloat16>(n, 2, 64), worstPreMultipliedAvg<float>(n, 2, 64)});
  }
  EXPECT_GT(eight, 2u);
  EXPECT_LE(two, 2u);
}

TEST(Verifier, IntegerAvgDividesInSixtyFourBitsAtHundredsOfRanks) {
  // int8 at 200 ranks would divide by (int8)200 = -56, uint8 at 256 by 0 (SIGFPE) and at 300 by
  // 44: the divisor stays 64-bit, as NCCL's 31-bit one does.
  std::vector<std::int8_t> s8 = {-128, -100, 127, 0};
  divideHost(s8.data(), s8.size(), DataType::Int8, 200);
  EXPECT_EQ(s8, (std::vector<std::int8_t>{0, 0, 0, 0}));
  for (int n : {256, 300}) {
    std::vector<std::uint8_t> u8 = {255, 200, 0};
    divideHost(u8.data(), u8.size(), DataType::Uint8, n);
    EXPECT_EQ(u8, (std::vector<std::uint8_t>{0, 0, 0}));
  }
  std::vector<std::int32_t> s32 = {-1000, 999};
  divideHost(s32.data(), s32.size(), DataType::Int32, 300);
  EXPECT_EQ(s32, (std::vector<std::int32_t>{-3, 3}));  // truncated toward zero
  // The verifier's own expectation at those rank counts, against the naive result.
  for (auto [t, n] : {std::pair{DataType::Int8, 200}, std::pair{DataType::Uint8, 300}, std::pair{DataType::Uint8, 256}}) {
    Verifier v(Collective::AllReduce, t, ReduceOp::Avg, 40, n, 3, 0);
    const auto out = naiveOutput(Collective::AllReduce, t, ReduceOp::Avg, 40, n, 3, 0, 1);
    EXPECT_EQ(v.countWrong(out.data(), 1), 0) << name(t) << " at " << n << " ranks";
  }
}

}  // namespace
}  // namespace cclab::verify
