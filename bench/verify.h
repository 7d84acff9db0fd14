#pragma once

// Verifiable data, as nccl-tests makes it: every rank's input is a deterministic function of
// (rank, element, repetition), chosen so the exact result is known for any reduction order:
// small integers whose sums and products stay exactly representable in the datatype, and within
// the range of integer types. Results are compared bit for bit; only avg may differ, by
// at most 2 ulp (a sum divided by n may round differently).

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>

#include "collectives/vocabulary.h"

namespace cclab::bench {

class Verifier {
 public:
  // `count` is the collective's count argument (see BufferLayout); op is none for non-reducing ones.
  Verifier(Collective collective, DataType dtype, std::optional<ReduceOp> op, std::size_t count, int nranks, int rank,
           int root);

  // Writes this rank's input for repetition `rep` (the layout's sendCount elements).
  void fillInput(void* send, int rep) const;
  // Fills an output buffer of `count` elements with a pattern no correct result leaves behind.
  void poison(void* buf, std::size_t count) const;
  // Compares this rank's output (the layout's recvCount elements) with the exact result of
  // repetition `rep`; returns the number of wrong elements (0 on ranks that receive no result).
  // `progress` is called every 2^20 elements (long checks keep a watchdog informed).
  std::int64_t countWrong(const void* recv, int rep, const std::function<void()>& progress = {}) const;

 private:
  Collective collective_;
  DataType dtype_;
  std::optional<ReduceOp> op_;
  std::size_t count_;
  int nranks_;
  int rank_;
  int root_;
};

}  // namespace cclab::bench
