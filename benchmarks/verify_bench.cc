// The host verifier's check (verify.cc: per-buffer constants, each element's slot kept as the loop
// goes) against the element-by-element formula it replaced (verify_values.h's expectedElement,
// what the GPU's threads run), on the same correct output, in one run. Items are elements.
//
//   ./build/benchmarks/verify_bench

#include <benchmark/benchmark.h>

#include <cstdint>
#include <optional>
#include <vector>

#include "collectives/verify/verify.h"
#include "collectives/verify/verify_values.h"

namespace {

using cclab::Collective;
using cclab::DataType;
using cclab::ReduceOp;

constexpr std::size_t kCount = std::size_t{4} << 20;  // 16 MiB of floats
constexpr int kRanks = 4, kRank = 1, kRep = 1;

// Sum for the reductions, none for the others: as the Verifier takes it and as the formula does.
std::optional<ReduceOp> opOf(Collective c) { return cclab::reduces(c) ? std::optional(ReduceOp::Sum) : std::nullopt; }
int opCodeOf(Collective c) { return cclab::reduces(c) ? static_cast<int>(ReduceOp::Sum) : cclab::verify::values::kNoOp; }

// Rank kRank's correct output of `c` (float).
std::vector<float> correctOutput(Collective c) {
  const auto layout = cclab::bufferLayout(c, kCount, kRanks, kRank);
  std::vector<float> out(layout.recvCount);
  for (std::size_t j = 0; j < out.size(); ++j)
    out[j] = cclab::verify::values::expectedElement<float>(c, opCodeOf(c), kCount, kRanks, kRank, 0, j, kRep);
  return out;
}

void BM_CheckHostLoop(benchmark::State& state, Collective c) {
  const std::vector<float> out = correctOutput(c);
  cclab::verify::Verifier verifier(c, DataType::Float, opOf(c), kCount, kRanks, kRank, 0);
  for (auto _ : state) {
    if (verifier.countWrong(out.data(), kRep) != 0) state.SkipWithError("wrong elements in a correct output");
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * out.size()));
}

void BM_CheckElementByElement(benchmark::State& state, Collective c) {
  const std::vector<float> out = correctOutput(c);
  const int op = opCodeOf(c);
  for (auto _ : state) {
    std::int64_t wrong = 0;
    for (std::size_t j = 0; j < out.size(); ++j) {
      const float want = cclab::verify::values::expectedElement<float>(c, op, kCount, kRanks, kRank, 0, j, kRep);
      wrong += cclab::verify::values::isWrong(out[j], want, false);
    }
    if (wrong != 0) state.SkipWithError("wrong elements in a correct output");
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * out.size()));
}

BENCHMARK_CAPTURE(BM_CheckHostLoop, all_reduce, Collective::AllReduce)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_CheckElementByElement, all_reduce, Collective::AllReduce)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_CheckHostLoop, all_gather, Collective::AllGather)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_CheckElementByElement, all_gather, Collective::AllGather)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
