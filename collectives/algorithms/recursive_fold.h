#pragma once

// What the recursive algorithms (recursive doubling, recursive halving, Rabenseifner) share: the
// folding of a rank count that is not a power of two onto one that is, as MPICH does it, and a
// paired exchange with one partner.
//
// Of n = pof2 + rem ranks, the first 2*rem pair up as (2i, 2i+1): the even rank hands its data to
// the odd one and sits out the power-of-two part, which the odd rank runs as participant i
// speaking for both. Ranks from 2*rem on are participants rank - rem. Every participant speaks
// for a contiguous run of real ranks ([2i, 2i+2) or [rank, rank+1)), so a run of participants
// speaks for a contiguous run of ranks too: blocks ordered by rank stay contiguous while halving.

#include <bit>
#include <cstddef>

#include "collectives/context.h"
#include "collectives/transport.h"

namespace cclab {

class Fold {
 public:
  Fold(int ranks, int rank)
      : rank_(rank), pof2_(static_cast<int>(std::bit_floor(static_cast<unsigned>(ranks)))), rem_(ranks - pof2_) {}
  int pof2() const { return pof2_; }
  // Whether this rank hands its data to its odd neighbour and waits for the result.
  bool sitsOut() const { return rank_ < 2 * rem_ && rank_ % 2 == 0; }
  // Whether this rank takes an extra rank's data first (and hands it the result at the end).
  bool standsIn() const { return rank_ < 2 * rem_ && rank_ % 2 == 1; }
  // This rank's place among the pof2 participants (meaningless when it sits out).
  int participant() const { return rank_ < 2 * rem_ ? rank_ / 2 : rank_ - rem_; }
  // The real rank running participant v.
  int rankOf(int v) const { return v < rem_ ? 2 * v + 1 : v + rem_; }
  // The first real rank that participants [v, v + count) speak for, and how many they speak for.
  int firstRankOf(int v) const { return v < rem_ ? 2 * v : v + rem_; }
  int ranksOf(int v, int count) const { return firstRankOf(v + count - 1) + (v + count - 1 < rem_ ? 2 : 1) - firstRankOf(v); }

 private:
  int rank_;
  int pof2_;  // the largest power of two <= ranks
  int rem_;
};

// Sends `sendBytes` to `peer` while receiving `recvBytes` from it, and waits for both. Empty
// messages are skipped: both sides compute the same sizes, so both skip.
void exchange(Transport& transport, const void* send, std::size_t sendBytes, void* recv, std::size_t recvBytes, int peer);
void sendTo(Transport& transport, const void* send, std::size_t bytes, int peer);
void receiveFrom(Transport& transport, void* recv, std::size_t bytes, int peer);

// dst = (the lower rank's data) op (the higher rank's), so both partners of an exchange hold the
// same bits whatever the op's rounding.
void reduceInRankOrder(Device& device, void* dst, const void* mine, const void* theirs, bool theirsIsLower, std::size_t count,
                       DataType dtype, ReduceOp op);

// A receive of `count` elements from `peer` reduced with `mine` into `dst` (which may be
// `mine`), in two steps so that a send can go out between them: the constructor posts it, finish()
// waits. A transport that reduces as it receives does so from the peer's message in place, one
// pass instead of a copy into `incoming` and then the reduction; the others receive into
// `incoming` and finish() reduces in rank order. For reductions one rank computes alone, whose
// bits no partner has to match.
class ReceiveReduce {
 public:
  ReceiveReduce(Context& ctx, void* dst, const void* mine, std::size_t count, DataType dtype, ReduceOp op, void* incoming,
                int peer);
  void finish();

 private:
  Context& ctx_;
  void* dst_;
  const void* mine_;
  std::size_t count_;
  DataType dtype_;
  ReduceOp op_;
  void* incoming_;
  int peer_;
  Request request_{};
};

// Sends `sendBytes` of `send` to `peer` while receiving `count` elements back and reducing them
// with `mine` into `dst` (ReceiveReduce; `dst` and `mine` must not overlap `send`), and waits for
// both: recursive halving's step, where each partner keeps the half it reduces.
void exchangeReduce(Context& ctx, const void* send, std::size_t sendBytes, void* dst, const void* mine, std::size_t count,
                    DataType dtype, ReduceOp op, void* incoming, int peer);

// ReceiveReduce posted and finished: the fold's whole buffer, where a pass is what the fold costs.
void receiveReduce(Context& ctx, void* dst, const void* mine, std::size_t count, DataType dtype, ReduceOp op, void* incoming,
                   int peer);

// The all-reduce fold of `input` (`count` elements) into `buf`: an extra rank sends its input to
// its odd neighbour, which reduces it with its own input into `buf` (receiveReduce). Returns
// false for the extra rank, which then waits in foldOut for the result. `input` may be `buf` (in
// place).
bool foldIn(Context& ctx, const Fold& fold, const void* input, void* buf, void* incoming, std::size_t count, DataType dtype,
            ReduceOp op);
// The odd neighbour sends the result back; the extra rank receives it into `buf`.
void foldOut(Context& ctx, const Fold& fold, void* buf, std::size_t bytes);

}  // namespace cclab
