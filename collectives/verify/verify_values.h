#pragma once

// The verifiable data of ccbench, as a formula the CPU and the GPU both evaluate (one definition:
// verify.cc checks host buffers with it, cuda_verifier.cu device buffers). Every rank's input is
// a deterministic function of (rank, element, repetition), chosen so the exact result is known for
// any reduction order: small integers whose sums and products stay exactly representable in the
// datatype, and within the range of integer types.

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "collectives/hd.h"
#include "collectives/reduce_ops.h"
#include "collectives/typed.h"
#include "collectives/vocabulary.h"

namespace cclab::verify::values {

// The op of a collective as device code takes it: a ReduceOp's value, or kNoOp for collectives
// that only move data.
constexpr int kNoOp = -1;

// The largest integer the type holds exactly, and every smaller one too: float types are limited
// by their significand (half 11 bits, bfloat16 8, float 24, double 53, fp8 e4m3 4, e5m2 3), integer types by their
// range. Results stay within it, so no check depends on overflow, which MPI leaves undefined (and
// Open MPI 4.1's AVX reductions saturate instead of wrapping: open-mpi/ompi#8045).
template <typename T>
CCLAB_HD constexpr std::int64_t exactLimit() {
  if constexpr (std::is_same_v<T, Half>) return std::int64_t{1} << 11;
  else if constexpr (std::is_same_v<T, BFloat16>) return std::int64_t{1} << 8;
  else if constexpr (std::is_same_v<T, Float8E4M3>) return std::int64_t{1} << 4;
  else if constexpr (std::is_same_v<T, Float8E5M2>) return std::int64_t{1} << 3;
  else if constexpr (std::is_same_v<T, float>) return std::int64_t{1} << 24;
  else if constexpr (std::is_same_v<T, double>) return std::int64_t{1} << 53;
  else if constexpr (sizeof(T) == 8) return std::numeric_limits<std::int64_t>::max();
  else return static_cast<std::int64_t>(std::numeric_limits<T>::max());
}

CCLAB_HD constexpr std::uint64_t mix(std::uint64_t x) {  // a cheap integer hash (splitmix64's finaliser)
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

template <typename T>
CCLAB_HD T fromInteger(std::int64_t v) {
  if constexpr (std::is_integral_v<T>) return static_cast<T>(v);
  else return fromDouble<T>(static_cast<double>(v));  // exact: |v| is below the type's limit
}

template <typename T>
CCLAB_HD std::uint64_t bitsOf(T v) {
  if constexpr (sizeof(T) == 1) return std::bit_cast<std::uint8_t>(v);
  else if constexpr (sizeof(T) == 2) return std::bit_cast<std::uint16_t>(v);
  else if constexpr (sizeof(T) == 4) return std::bit_cast<std::uint32_t>(v);
  else return std::bit_cast<std::uint64_t>(v);
}

// Distance in units in the last place between two finite floats of the same type.
template <typename T>
CCLAB_HD std::uint64_t ulpDistance(T a, T b) {
  constexpr int kBits = sizeof(T) * 8;
  auto ordered = [](std::uint64_t bits) -> std::int64_t {
    const std::uint64_t signBit = std::uint64_t{1} << (kBits - 1);
    const std::int64_t magnitude = static_cast<std::int64_t>(bits & (signBit - 1));
    return (bits & signBit) ? -magnitude : magnitude;
  };
  const std::int64_t d = ordered(bitsOf(a)) - ordered(bitsOf(b));
  return static_cast<std::uint64_t>(d < 0 ? -d : d);
}

// At most this many ranks, rotating with the element index, contribute a non-neutral value to
// each element of a reduction (the others contribute 0, 1, or a value that cannot be the min or
// max). The exact result then costs O(kContributors) per element at any rank count and stays
// representable, and every rank still contributes to its share of every chunk, so a dropped,
// doubled or misplaced contribution is caught.
constexpr int kContributors = 8;
// Avg of floats: at most 2, as nccl-tests limits it. NCCL multiplies each input by 1/n rounded to
// the type and rounds every add in the type, so the error grows with the contributions (past 2 ulp
// at 5 ranks with 8 of them, in half); with 2 a pre-multiplied sum stays within 2 ulp of the
// quotient for any rank count (verify_values_test emulates NCCL's arithmetic to show it).
constexpr int kFloatAvgContributors = 2;

// By value (device code too). `op`: a ReduceOp's value or kNoOp.
template <typename T>
CCLAB_HD constexpr int contributors(int op, int nranks) {
  const bool floatAvg = !std::is_integral_v<T> && op == static_cast<int>(ReduceOp::Avg);
  const int most = floatAvg ? kFloatAvgContributors : kContributors;
  return nranks < most ? nranks : most;
}
// Slots rotate with the element index: at `index` rank 0 holds slot index % nranks (its first
// slot), rank r the slot r places on. The two below take that first slot, so a loop over a
// buffer keeps it instead of dividing per element.
CCLAB_HD constexpr int slotFrom(int rank, int firstSlot, int nranks) {
  return firstSlot + rank < nranks ? firstSlot + rank : firstSlot + rank - nranks;
}
CCLAB_HD constexpr int rankFrom(int slot, int firstSlot, int nranks) {
  return slot >= firstSlot ? slot - firstSlot : slot - firstSlot + nranks;
}
// A rank's slot at `index`: it contributes when the slot is below contributors().
CCLAB_HD constexpr int slotOf(int rank, int nranks, std::size_t index) {
  return slotFrom(rank, static_cast<int>(index % static_cast<std::size_t>(nranks)), nranks);
}
// The rank holding slot `slot` at `index` (the inverse of slotOf).
CCLAB_HD constexpr int rankInSlot(int slot, int nranks, std::size_t index) {
  return rankFrom(slot, static_cast<int>(index % static_cast<std::size_t>(nranks)), nranks);
}

// The constants of one buffer's inputs (they depend on the type, the op and the rank count only),
// so a loop over a buffer computes them once and not per element.
template <typename T>
struct InputPattern {
  int op;
  int nranks;
  int contributing;      // contributors<T>(op, nranks)
  std::int64_t range;    // sum, avg: each contribution is below it, so their sum stays within the limit
  int twos;              // prod: at most this many factors of 2 (and at most 14: below half's largest power of two)

  CCLAB_HD InputPattern(int op_, int nranks_)
      : op(op_),
        nranks(nranks_),
        contributing(contributors<T>(op_, nranks_)),
        range(std::clamp<std::int64_t>(exactLimit<T>() / contributing, 2, 64)),
        twos(std::min(14, static_cast<int>(std::bit_width(static_cast<std::uint64_t>(exactLimit<T>()))) - 1)) {}

  // The value `rank` contributes at `index` in repetition `rep`, as an exact integer; `slot` is
  // slotOf(rank, nranks, index), which a loop over a buffer keeps without dividing.
  CCLAB_HD std::int64_t value(int rank, int slot, std::size_t index, int rep) const {
    const std::uint64_t h = mix(index * 0x9e3779b97f4a7c15ULL + static_cast<std::uint64_t>(rank) * 0x632be59bd9b4e019ULL +
                                static_cast<std::uint64_t>(rep) * 0x85ebca77c2b2ae63ULL + 1);
    const bool active = slot < contributing;
    if (op == static_cast<int>(ReduceOp::Sum) || op == static_cast<int>(ReduceOp::Avg)) {
      return active ? static_cast<std::int64_t>(h % static_cast<std::uint64_t>(range)) : 0;
    }
    if (op == static_cast<int>(ReduceOp::Prod)) {
      return slot < (twos < contributing ? twos : contributing) ? 1 + static_cast<std::int64_t>(h % 2) : 1;
    }
    // min, max, and the collectives that only move data: values tied to the rank and index (so a
    // block in the wrong place is caught), negative ones too where the type is signed. A rank that
    // does not contribute to a min (max) holds the largest (smallest) value of the spread.
    const std::int64_t lowest = std::is_unsigned_v<T> ? 0 : -125;
    if (op == static_cast<int>(ReduceOp::Min) && !active) return lowest + 250;
    if (op == static_cast<int>(ReduceOp::Max) && !active) return lowest;
    return lowest + static_cast<std::int64_t>(h % 251);
  }

  CCLAB_HD T element(int rank, int slot, std::size_t index, int rep) const {
    return fromInteger<T>(value(rank, slot, index, rep));
  }

  // The exact reduction over all ranks of their elements at `index`, computed independently of
  // the kernels: integers in 64-bit arithmetic, floats in double (exact for these inputs). Only
  // the contributing ranks are visited: the others hold values that do not change the result.
  // `firstSlot` is index % nranks (rank 0's slot).
  CCLAB_HD T reduced(int firstSlot, std::size_t index, int rep) const {
    const auto reduceOp = static_cast<ReduceOp>(op);
    auto contribution = [&](int slot) { return element(rankFrom(slot, firstSlot, nranks), slot, index, rep); };
    if constexpr (std::is_integral_v<T>) {
      std::uint64_t acc = (reduceOp == ReduceOp::Prod) ? 1 : 0;
      T extreme = contribution(0);
      for (int slot = 0; slot < contributing; ++slot) {
        const T v = contribution(slot);
        acc = (reduceOp == ReduceOp::Prod) ? acc * static_cast<std::uint64_t>(v) : acc + static_cast<std::uint64_t>(v);
        if (reduceOp == ReduceOp::Min) extreme = std::min(extreme, v);
        if (reduceOp == ReduceOp::Max) extreme = std::max(extreme, v);
      }
      if (reduceOp == ReduceOp::Min || reduceOp == ReduceOp::Max) return extreme;
      const T total = static_cast<T>(acc);
      return reduceOp == ReduceOp::Avg ? divideElement(total, nranks) : total;
    } else {
      double acc = (reduceOp == ReduceOp::Prod) ? 1.0 : 0.0;
      double extreme = toDouble(contribution(0));
      for (int slot = 0; slot < contributing; ++slot) {
        const double v = toDouble(contribution(slot));
        acc = (reduceOp == ReduceOp::Prod) ? acc * v : acc + v;
        extreme = (reduceOp == ReduceOp::Min) ? std::min(extreme, v) : std::max(extreme, v);
      }
      if (reduceOp == ReduceOp::Min || reduceOp == ReduceOp::Max) return fromDouble<T>(extreme);
      return fromDouble<T>(reduceOp == ReduceOp::Avg ? acc / nranks : acc);
    }
  }
};

// Element by element (the GPU's threads each take one; the CPU's loops keep the slot instead).
template <typename T>
CCLAB_HD std::int64_t inputValue(int op, int rank, int nranks, std::size_t index, int rep) {
  return InputPattern<T>(op, nranks).value(rank, slotOf(rank, nranks, index), index, rep);
}

template <typename T>
CCLAB_HD T inputElement(int op, int rank, int nranks, std::size_t index, int rep) {
  return InputPattern<T>(op, nranks).element(rank, slotOf(rank, nranks, index), index, rep);
}

template <typename T>
CCLAB_HD T reduced(ReduceOp op, int nranks, std::size_t index, int rep) {
  return InputPattern<T>(static_cast<int>(op), nranks)
      .reduced(static_cast<int>(index % static_cast<std::size_t>(nranks)), index, rep);
}

// The element this rank should hold at `j` of its output.
template <typename T>
CCLAB_HD T expectedElement(Collective collective, int op, std::size_t count, int nranks, int rank, int root,
                  std::size_t j, int rep) {
  const std::size_t block = count == 0 ? 0 : j / count;  // for outputs made of one block per rank
  const std::size_t within = count == 0 ? 0 : j % count;
  const std::size_t ownBlock = static_cast<std::size_t>(rank) * count;
  switch (collective) {
    case Collective::AllReduce:
    case Collective::Reduce:
      return reduced<T>(static_cast<ReduceOp>(op), nranks, j, rep);
    case Collective::ReduceScatter:
      return reduced<T>(static_cast<ReduceOp>(op), nranks, ownBlock + j, rep);
    case Collective::AllGather:
    case Collective::Gather:
      return inputElement<T>(op, static_cast<int>(block), nranks, within, rep);
    case Collective::Broadcast:
      return inputElement<T>(op, root, nranks, j, rep);
    case Collective::AllToAll:  // block p came from rank p, which sent its block for this rank
      return inputElement<T>(op, static_cast<int>(block), nranks, ownBlock + within, rep);
    case Collective::Scatter:
      return inputElement<T>(op, root, nranks, ownBlock + j, rep);
    case Collective::SendRecv:
      return inputElement<T>(op, (rank + nranks - 1) % nranks, nranks, j, rep);
  }
  return T{};
}

// Whether this rank receives a result (reduce and gather deliver to the root only).
CCLAB_HD constexpr bool hasResult(Collective collective, int rank, int root) {
  return !(collective == Collective::Reduce || collective == Collective::Gather) || rank == root;
}

// Whether `got` is not the expected `want`: bit for bit, except that avg of floats may differ by
// at most 2 ulp (a sum divided by n may round differently).
template <typename T>
CCLAB_HD bool isWrong(T got, T want, bool approximate) {
  if (bitsOf(got) == bitsOf(want)) return false;
  if constexpr (!std::is_integral_v<T>) {
    const double g = toDouble(got);
    if (approximate && g == g && ulpDistance(got, want) <= 2) return false;  // g == g: not NaN
  }
  return true;
}

}  // namespace cclab::verify::values
