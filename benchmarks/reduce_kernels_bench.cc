// The CPU reduction kernels against a plain memory copy of the same bytes, in one run.
// Bandwidth counts bytes read plus written: a copy moves 2 x size, a reduction dst = a op b moves
// 3 x size. The kernels are memory-bound, so their GB/s should approach the copy's.
//
//   ./build/benchmarks/reduce_kernels_bench --benchmark_filter=256M

#include <benchmark/benchmark.h>

#include <cstring>
#include <vector>

#include "collectives/device.h"
#include "collectives/reduce_kernels.h"

namespace {

using cclab::DataType;
using cclab::ReduceOp;

// Buffers far larger than the caches, so every byte comes from memory.
constexpr std::size_t kBytes = std::size_t{256} << 20;

struct Buffers {
  cclab::HostDevice host;
  char* a = static_cast<char*>(host.allocate(kBytes));
  char* b = static_cast<char*>(host.allocate(kBytes));
  char* c = static_cast<char*>(host.allocate(kBytes));
  Buffers() {
    std::memset(a, 1, kBytes);
    std::memset(b, 2, kBytes);
    std::memset(c, 0, kBytes);
  }
  ~Buffers() {
    host.release(a);
    host.release(b);
    host.release(c);
  }
};

Buffers& buffers() {
  static Buffers instance;
  return instance;
}

void BM_Memcpy(benchmark::State& state) {
  Buffers& buf = buffers();
  for (auto _ : state) {
    std::memcpy(buf.c, buf.a, kBytes);
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * 2 * static_cast<std::int64_t>(kBytes));
}

// The same bytes through HostDevice::copy, which the algorithms' local copies use (in pieces).
void BM_HostCopy(benchmark::State& state) {
  Buffers& buf = buffers();
  for (auto _ : state) {
    buf.host.copy(buf.c, buf.a, kBytes);
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * 2 * static_cast<std::int64_t>(kBytes));
}

// dst = a op b, or with inPlace dst op= src as the ring algorithms reduce: 2 reads + 1 write per
// element either way.
void BM_Reduce(benchmark::State& state, DataType dtype, ReduceOp op, bool inPlace) {
  Buffers& buf = buffers();
  const std::size_t count = kBytes / cclab::sizeOf(dtype);
  const char* a = inPlace ? buf.c : buf.a;
  for (auto _ : state) {
    cclab::reduceHost(buf.c, a, buf.b, count, dtype, op);
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * 3 * static_cast<std::int64_t>(kBytes));
}

void registerAll() {
  benchmark::RegisterBenchmark("copy/256M", BM_Memcpy)->Unit(benchmark::kMillisecond)->UseRealTime();
  benchmark::RegisterBenchmark("host_copy/256M", BM_HostCopy)->Unit(benchmark::kMillisecond)->UseRealTime();
  for (DataType dtype : cclab::allDataTypes()) {
    const std::string type(cclab::name(dtype));
    benchmark::RegisterBenchmark(("reduce/" + type + "/sum/256M").c_str(), BM_Reduce, dtype, ReduceOp::Sum, false)
        ->Unit(benchmark::kMillisecond)->UseRealTime();
  }
  for (ReduceOp op : {ReduceOp::Prod, ReduceOp::Min, ReduceOp::Max}) {
    benchmark::RegisterBenchmark(("reduce/float/" + std::string(cclab::name(op)) + "/256M").c_str(), BM_Reduce,
                                 DataType::Float, op, false)->Unit(benchmark::kMillisecond)->UseRealTime();
  }
  benchmark::RegisterBenchmark("accumulate/float/sum/256M", BM_Reduce, DataType::Float, ReduceOp::Sum, true)
      ->Unit(benchmark::kMillisecond)->UseRealTime();
}

}  // namespace

int main(int argc, char** argv) {
  registerAll();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
