#include "bench/verify.h"

#include <cstring>

#include "bench/verify_values.h"
#include "collectives/typed.h"

namespace cclab::bench {

using namespace values;

namespace {

int opCode(std::optional<ReduceOp> op) { return op ? static_cast<int>(*op) : kNoOp; }

}  // namespace

Verifier::Verifier(Collective collective, DataType dtype, std::optional<ReduceOp> op, std::size_t count, int nranks,
                   int rank, int root)
    : collective_(collective), dtype_(dtype), op_(op), count_(count), nranks_(nranks), rank_(rank), root_(root) {}

void Verifier::fillInput(void* send, int rep) const {
  const std::size_t n = bufferLayout(collective_, count_, nranks_, rank_).sendCount;
  withType(dtype_, [&]<typename T>() {
    T* out = static_cast<T*>(send);
    for (std::size_t j = 0; j < n; ++j) out[j] = inputElement<T>(opCode(op_), rank_, nranks_, j, rep);
  });
}

void Verifier::poison(void* buf, std::size_t count) const { std::memset(buf, 0xff, count * sizeOf(dtype_)); }

std::int64_t Verifier::countWrong(const void* recv, int rep, const std::function<void()>& progress) const {
  if (!hasResult(collective_, rank_, root_)) return 0;
  const std::size_t n = bufferLayout(collective_, count_, nranks_, rank_).recvCount;
  std::int64_t wrong = 0;
  withType(dtype_, [&]<typename T>() {
    const T* got = static_cast<const T*>(recv);
    const bool approximate = op_ == ReduceOp::Avg && isFloatingPoint(dtype_);
    for (std::size_t j = 0; j < n; ++j) {
      if (progress && j % (std::size_t{1} << 20) == 0) progress();
      const T want = expectedElement<T>(collective_, opCode(op_), count_, nranks_, rank_, root_, j, rep);
      if (isWrong(got[j], want, approximate)) ++wrong;
    }
  });
  return wrong;
}

}  // namespace cclab::bench
