// One way through the shared-memory transport: a ping-pong of one message between two threads
// (pinned to the first two cores where there are two), half the round trip per iteration. The
// transport is the one ccbench runs between processes; threads share its region the way the
// tests do, so no MPI is needed. And a large message's single copy both ways a receiver can make
// it: process_vm_readv of the sender's buffer (private memory) against memcpy from a mapping of it
// (a shared allocation), each of this process's own buffer (the kernel's path is the same). And
// whether a rank waiting beside an exchange on a core takes its turn there (two-core hosts).
//
//   ./build/benchmarks/shm_transport_bench --benchmark_repetitions=3

#include <benchmark/benchmark.h>
#include <pthread.h>
#include <sched.h>
#include <sys/uio.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include "collectives/communicator.h"
#include "collectives/device.h"
#include "collectives/shared_host_memory.h"
#include "collectives/shm_transport.h"

namespace {

using cclab::ShmTransport;

void pinToCore(int core) {
  if (sysconf(_SC_NPROCESSORS_ONLN) < 2) return;  // one core: both threads share it
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(core, &set);
  pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

struct Region {
  explicit Region(int ranks) : bytes(ShmTransport::regionBytes(ranks)), data(std::aligned_alloc(64, bytes)) {
    std::memset(data, 0, bytes);
  }
  ~Region() { std::free(data); }
  std::size_t bytes;
  void* data;
};

// The peer echoes every message back until one starts with 'q'.
void echo(void* region, std::size_t bytes) {
  pinToCore(1);
  ShmTransport transport(region, 1, 2);
  std::vector<char> buffer(bytes);
  for (;;) {
    transport.wait(transport.irecv(buffer.data(), bytes, 0));
    if (buffer[0] == 'q') return;
    transport.wait(transport.isend(buffer.data(), bytes, 0));
  }
}

void BM_OneWay(benchmark::State& state) {
  const auto bytes = static_cast<std::size_t>(state.range(0));
  Region region(2);
  std::thread peer(echo, region.data, bytes);
  pinToCore(0);
  ShmTransport transport(region.data, 0, 2);
  std::vector<char> out(bytes, 'm'), in(bytes);
  const auto start = std::chrono::steady_clock::now();
  for (auto _ : state) {
    transport.wait(transport.isend(out.data(), bytes, 1));
    transport.wait(transport.irecv(in.data(), bytes, 1));
  }
  const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
  out[0] = 'q';
  transport.wait(transport.isend(out.data(), bytes, 1));
  peer.join();
  // Half the round trip: one message one way.
  state.counters["one_way_us"] = us / (2.0 * static_cast<double>(state.iterations()));
}
// Up to a slot (4 KiB): the sizes whose cache lines the slots' layout decides.
BENCHMARK(BM_OneWay)->Arg(8)->Arg(48)->Arg(64)->Arg(112)->Arg(128)->Arg(160)->Arg(192)->Arg(256)->Arg(512)->Arg(1024)->Arg(4096)->UseRealTime();

// One rank of the broadcast stream: its transport, the algorithm path and its buffers.
struct BroadcastRank {
  BroadcastRank(void* region, int rank, std::size_t count, float value)
      : transport(region, rank, 2), comm(transport, device, "chain"), send(count, value), recv(count, 0.0f),
        args{send.data(), recv.data(), count, cclab::DataType::Float, cclab::ReduceOp::Sum, 0} {}
  void broadcast() { comm.run(cclab::Collective::Broadcast, args); }
  ShmTransport transport;
  cclab::HostDevice device;
  cclab::AlgorithmCommunicator comm;
  std::vector<float> send, recv;
  cclab::CollectiveArgs args;
};

// A stream of broadcasts from rank 0 to rank 1, each a whole call through cclab's algorithm path
// (AlgorithmCommunicator, the chain broadcast that --algo auto picks at 2 ranks, the transport),
// out of place, back to back as ccbench's loop runs them: what a call costs the library where
// ccbench's own clock reads and the MPI library beside it are not. The root runs ahead of the
// receiver by as many messages as the slots hold, so the rate is the slower rank's.
void BM_BroadcastStream(benchmark::State& state) {
  const auto count = static_cast<std::size_t>(state.range(0)) / sizeof(float);
  Region region(2);
  std::thread peer([&] {
    pinToCore(1);
    BroadcastRank rank(region.data, 1, count, 0.0f);
    do rank.broadcast();
    while (rank.recv[0] >= 0.0f);  // the root's last call sends -1
  });
  pinToCore(0);
  BroadcastRank root(region.data, 0, count, 1.0f);
  const auto start = std::chrono::steady_clock::now();
  for (auto _ : state) root.broadcast();
  const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
  root.send[0] = -1.0f;
  root.broadcast();
  peer.join();
  state.counters["call_us"] = us / static_cast<double>(state.iterations());
}
BENCHMARK(BM_BroadcastStream)->Arg(8)->Arg(32)->Arg(64)->Arg(256)->UseRealTime();

// Whether a rank that waits beside an exchange takes its turn on its core (the description's
// intra_node.waiting_ranks_take_turns): three ranks on two cores, rank 0 and the waiting rank 2 on
// core 0, rank 1 on core 1. Ranks 0 and 1 swap 8-byte messages (each posts a send and a receive,
// then waits on both: one step of recursive doubling); rank 2, as a rank rd or rhd folds out,
// either waits through the transport for rank 0's message at the end (arg 0: polling and
// yielding, as the transport's wait does when ranks outnumber cores) or sleeps in the kernel
// until a flag says the exchanges are done (arg 1: off the core). Both ranks exchanging yield
// alike in both (the transport of three ranks on two cores yields at once), so the ratio of the
// two exchange_us is what the waiting rank costs the exchange: near 1 where it does not take its
// turn, near 2 where the core alternates between it and rank 0. Threads, not processes: a
// switch between them keeps the address space, so a process's turn may cost more.
void waitBeside(void* region, int mode, const std::atomic<bool>* done) {
  pinToCore(0);
  ShmTransport transport(region, 2, 3);
  if (mode == 0) {
    char message = 0;
    transport.wait(transport.irecv(&message, 1, 0));
    return;
  }
  while (!done->load(std::memory_order_acquire)) std::this_thread::sleep_for(std::chrono::microseconds(200));
}

void swapWith(ShmTransport& transport, int peer, char* out, char* in) {
  const auto sent = transport.isend(out, 8, peer);
  const auto received = transport.irecv(in, 8, peer);
  transport.wait(sent);
  transport.wait(received);
}

void BM_ExchangeBesideAWaitingRank(benchmark::State& state) {
  if (sysconf(_SC_NPROCESSORS_ONLN) != 2) {
    state.SkipWithError("needs a host of two cores (three ranks on two)");
    return;
  }
  const int mode = static_cast<int>(state.range(0));
  Region region(3);
  std::atomic<bool> done{false};
  std::thread waiting(waitBeside, region.data, mode, &done);
  std::thread partner([&] {
    pinToCore(1);
    ShmTransport transport(region.data, 1, 3);
    char out[8] = {}, in[8] = {};
    for (;;) {
      swapWith(transport, 0, out, in);
      if (in[0] == 'q') return;
    }
  });
  pinToCore(0);
  ShmTransport transport(region.data, 0, 3);
  char out[8] = {}, in[8] = {};
  const auto start = std::chrono::steady_clock::now();
  for (auto _ : state) swapWith(transport, 1, out, in);
  const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
  out[0] = 'q';
  swapWith(transport, 1, out, in);
  partner.join();
  done.store(true, std::memory_order_release);
  char message = 'q';
  if (mode == 0) transport.wait(transport.isend(&message, 1, 2));
  waiting.join();
  state.counters["exchange_us"] = us / static_cast<double>(state.iterations());
  state.SetLabel(mode == 0 ? "rank 2 polling beside rank 0" : "rank 2 asleep");
}
BENCHMARK(BM_ExchangeBesideAWaitingRank)->Arg(0)->Arg(1)->UseRealTime();

// A single-copy receive of `bytes`: arg 1 = 0 reads with process_vm_readv (as from a private
// buffer), 1 copies with memcpy from a mapping of a shared allocation (PeerMappings, as from a
// shared one). The source is written once, the destination faulted in before the loop.
void BM_SingleCopyRead(benchmark::State& state) {
  const auto bytes = static_cast<std::size_t>(state.range(0));
  const bool mapped = state.range(1) == 1;
  char* source = static_cast<char*>(cclab::allocateSharedHost(bytes));
  if (source == nullptr) {
    state.SkipWithError("no shared allocation on this host");
    return;
  }
  std::memset(source, 7, bytes);
  std::vector<char> into(bytes, 0);
  cclab::PeerMappings mappings;
  const char* view = mappings.map(getpid(), *cclab::findSharedHost(source, bytes), bytes);
  for (auto _ : state) {
    if (mapped) {
      std::memcpy(into.data(), view, bytes);
    } else {
      iovec local{into.data(), bytes}, remote{source, bytes};
      if (process_vm_readv(getpid(), &local, 1, &remote, 1, 0) != static_cast<ssize_t>(bytes)) state.SkipWithError("process_vm_readv refused");
    }
    benchmark::DoNotOptimize(into.data());
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * bytes));
  state.SetLabel(mapped ? "memcpy from a mapping" : "process_vm_readv");
  cclab::releaseSharedHost(source);
}
BENCHMARK(BM_SingleCopyRead)->ArgsProduct({{1 << 20, 16 << 20, 64 << 20}, {0, 1}})->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
