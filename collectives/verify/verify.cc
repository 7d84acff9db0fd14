#include "collectives/verify/verify.h"

#include <cstring>
#include <stdexcept>
#include <vector>

#include "collectives/verify/verify_values.h"
#include "collectives/typed.h"

namespace cclab::verify {

using namespace values;

namespace {

int opCode(std::optional<ReduceOp> op) { return op ? static_cast<int>(*op) : kNoOp; }

}  // namespace

void Verifier::fillInput(void* send, int rep) {
  const CheckSpec& c = spec_;
  const std::size_t n = bufferLayout(c.collective, c.count, c.nranks, c.rank).sendCount;
  withType(c.dtype, [&]<typename T>() {
    const InputPattern<T> pattern(opCode(c.op), c.nranks);
    T* out = static_cast<T*>(send);
    int slot = slotOf(c.rank, c.nranks, 0);
    for (std::size_t j = 0; j < n; ++j) {
      out[j] = pattern.element(c.rank, slot, j, rep);
      if (++slot == c.nranks) slot = 0;
    }
  });
}

void Verifier::poison(void* buf, std::size_t count) { std::memset(buf, 0xff, count * sizeOf(spec_.dtype)); }

namespace {

// A stretch of a rank's output that holds consecutive elements of one formula: the reduction at
// indices first, first + 1, ... or rank `source`'s input there. expectedElement() element by
// element, said once per stretch so the loop below needs no division per element.
struct Stretch {
  bool reduction = false;
  int source = 0;
  std::size_t first = 0;
  std::size_t length = 0;
};

std::vector<Stretch> stretchesOf(const CheckSpec& c, std::size_t recvCount) {
  const std::size_t ownBlock = static_cast<std::size_t>(c.rank) * c.count;
  switch (c.collective) {
    case Collective::AllReduce:
    case Collective::Reduce: return {{true, 0, 0, recvCount}};
    case Collective::ReduceScatter: return {{true, 0, ownBlock, recvCount}};
    case Collective::Broadcast: return {{false, c.root, 0, recvCount}};
    case Collective::Scatter: return {{false, c.root, ownBlock, recvCount}};
    case Collective::SendRecv: return {{false, (c.rank + c.nranks - 1) % c.nranks, 0, recvCount}};
    case Collective::AllGather:
    case Collective::Gather:
    case Collective::AllToAll: {  // block p came from rank p (alltoall: its block for this rank)
      std::vector<Stretch> blocks;
      const std::size_t first = c.collective == Collective::AllToAll ? ownBlock : 0;
      for (int p = 0; p < c.nranks; ++p) blocks.push_back({false, p, first, c.count});
      return blocks;
    }
  }
  return {};
}

}  // namespace

std::int64_t Verifier::countWrong(const void* recv, int rep, const std::function<void()>& progress) {
  const CheckSpec& c = spec_;
  if (!hasResult(c.collective, c.rank, c.root)) return 0;
  const std::size_t n = bufferLayout(c.collective, c.count, c.nranks, c.rank).recvCount;
  std::int64_t wrong = 0;
  withType(c.dtype, [&]<typename T>() {
    const InputPattern<T> pattern(opCode(c.op), c.nranks);
    const T* got = static_cast<const T*>(recv);
    const bool approximate = c.op == ReduceOp::Avg && isFloatingPoint(c.dtype);
    std::size_t j = 0;
    for (const Stretch& s : stretchesOf(c, n)) {
      int firstSlot = static_cast<int>(s.first % static_cast<std::size_t>(c.nranks));  // rank 0's slot at s.first
      for (std::size_t k = 0; k < s.length; ++k, ++j) {
        if (progress && j % (std::size_t{1} << 20) == 0) progress();
        const std::size_t index = s.first + k;
        T want;
        if (s.reduction) {
          want = pattern.reduced(firstSlot, index, rep);
        } else {
          want = pattern.element(s.source, slotFrom(s.source, firstSlot, c.nranks), index, rep);
        }
        if (isWrong(got[j], want, approximate)) ++wrong;
        if (++firstSlot == c.nranks) firstSlot = 0;
      }
    }
    if (j != n) throw std::logic_error("verify: the output's stretches do not cover it");
  });
  return wrong;
}

}  // namespace cclab::verify
