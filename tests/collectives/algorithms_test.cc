// Every cclab algorithm at 1 to 8 ranks (threads over the in-process transport), every datatype
// and op, in and out of place, with counts that do not divide by the rank count and chunks small
// enough that the pipelines run many of them. Results are checked exactly by the benchmark's
// verifier, so these are the same checks ccbench makes.

#include "collectives/algorithms/algorithms.h"
#include "collectives/algorithms/ring_pipeline.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <functional>
#include <thread>
#include <vector>

#include "collectives/verify/verify.h"
#include "collectives/communicator.h"
#include "collectives/errors.h"
#include "collectives/threads_transport.h"

namespace cclab {
namespace {

// Runs fn(rank, communicator) on n threads, one per rank, with cclab's algorithm `algo` (and
// `ranksPerNode` for the hierarchical ones); returns the first failure, if any.
std::string onRanks(int n, std::size_t chunkBytes, const std::function<void(int, Communicator&)>& fn,
                    const std::string& algo = "ring", int ranksPerNode = 0) {
  ThreadGroup group(n, std::chrono::seconds(5));
  std::vector<std::thread> threads;
  std::vector<std::string> errors(static_cast<std::size_t>(n));
  for (int r = 0; r < n; ++r) {
    threads.emplace_back([&, r] {
      try {
        ThreadsTransport transport(group, r);
        HostDevice host;
        AlgorithmCommunicator comm(transport, host, algo, chunkBytes);
        comm.setRanksPerNode(ranksPerNode);
        fn(r, comm);
      } catch (const std::exception& e) {
        errors[static_cast<std::size_t>(r)] = e.what();
      }
    });
  }
  for (auto& t : threads) t.join();
  for (const auto& e : errors) {
    if (!e.empty()) return e;
  }
  return "";
}

struct AlgoCase {
  std::string algo;  // a registry name
  Collective collective;
  int nranks;
  DataType dtype;
  std::optional<ReduceOp> op;
  bool inPlace;
};

std::string caseName(const AlgoCase& c) {
  return c.algo + "_" + std::string(name(c.collective)) + "_np" + std::to_string(c.nranks) + "_" + std::string(name(c.dtype)) + "_" +
         (c.op ? std::string(name(*c.op)) : "none") + (c.inPlace ? "_inplace" : "_outofplace");
}

class Algorithms : public ::testing::TestWithParam<AlgoCase> {};

TEST_P(Algorithms, ExactResults) {
  const AlgoCase c = GetParam();
  // Counts: one element, a prime that does not divide by any rank count, and one that spans many
  // 64-byte chunks with a ragged last chunk.
  for (std::size_t count : {1u, 13u, 1003u}) {
    const int lastRoot = hasRoot(c.collective) ? c.nranks - 1 : 0;
    for (int root = 0; root <= lastRoot; root += std::max(1, lastRoot)) {  // the first and the last rank
      std::atomic<std::int64_t> wrong{0};
      // The hierarchical algorithms: nodes of 2 ranks where they divide (so 2-4 nodes), else of 1.
      const int ranksPerNode = c.nranks % 2 == 0 && c.nranks > 2 ? 2 : 1;
      const std::string error = onRanks(c.nranks, 64, [&](int rank, Communicator& comm) {
        ASSERT_EQ(comm.algorithm(c.collective), c.algo);
        const BufferLayout layout = bufferLayout(c.collective, count, c.nranks, rank);
        const std::size_t elementSize = sizeOf(c.dtype);
        std::vector<char> a(layout.inPlaceCount() * elementSize + 1), b(layout.inPlaceCount() * elementSize + 1);
        CollectiveArgs args;
        args.count = count;
        args.dtype = c.dtype;
        args.op = c.op.value_or(ReduceOp::Sum);
        args.root = root;
        args.send = c.inPlace ? b.data() + layout.inPlaceSendOffset * elementSize : a.data();
        args.recv = c.inPlace ? b.data() + layout.inPlaceRecvOffset * elementSize : b.data();
        verify::Verifier verifier(c.collective, c.dtype, c.op, count, c.nranks, rank, root);
        for (int rep = 1; rep <= 2; ++rep) {  // twice: scratch and state are reused between calls
          verifier.poison(b.data(), layout.inPlaceCount());
          verifier.fillInput(const_cast<void*>(args.send), rep);
          comm.run(c.collective, args);
          wrong += verifier.countWrong(args.recv, rep);
        }
      }, c.algo, ranksPerNode);
      ASSERT_EQ(error, "") << "count " << count << " root " << root;
      ASSERT_EQ(wrong.load(), 0) << "count " << count << " root " << root;
    }
  }
}

// Every algorithm in the registry, so a new one is tested by being registered.
// Under a sanitizer the messages and the buffers' bounds are what is checked, and they depend on
// the bytes moved, not on what the reduction computes: one datatype of each element size stands
// for all twelve, and two reductions (a plain op; avg, which divides at the end) for all five
// (reduce_kernels_test checks every kernel on every datatype, sanitized too). The normal build
// runs every datatype and op.
std::vector<AlgoCase> allCases() {
#ifdef CCLAB_UNDER_SANITIZER
  const std::vector<DataType> types{DataType::Int8, DataType::Half, DataType::Float, DataType::Double};
  const std::vector<ReduceOp> reduceOps{ReduceOp::Sum, ReduceOp::Avg};
#else
  const std::vector<DataType> types(allDataTypes().begin(), allDataTypes().end());
  const std::vector<ReduceOp> reduceOps(allReduceOps().begin(), allReduceOps().end());
#endif
  std::vector<AlgoCase> cases;
  for (const Algorithm& algo : allAlgorithms()) {
    const Collective coll = algo.collective;
    for (int n = 1; n <= 8; ++n) {
      for (DataType t : types) {
        std::vector<std::optional<ReduceOp>> ops{std::nullopt};
        if (reduces(coll)) ops.assign(reduceOps.begin(), reduceOps.end());
        for (auto op : ops) {
          for (bool inPlace : {false, true}) cases.push_back({std::string(algo.name), coll, n, t, op, inPlace});
        }
      }
    }
  }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(EveryCase, Algorithms, ::testing::ValuesIn(allCases()),
                         [](const auto& info) { return caseName(info.param); });

TEST(Algorithms, LargeMessageWithDefaultChunks) {
  // 3 MiB + a ragged tail at 3 ranks: several 1 MiB chunks per segment, all in flight at once.
  const std::size_t count = (std::size_t{3} << 20) / 4 + 5;
  std::atomic<std::int64_t> wrong{0};
  const std::string error = onRanks(3, Context::kDefaultChunkBytes, [&](int rank, Communicator& comm) {
    std::vector<float> send(count), recv(count);
    verify::Verifier verifier(Collective::AllReduce, DataType::Float, ReduceOp::Sum, count, 3, rank, 0);
    verifier.fillInput(send.data(), 1);
    comm.run(Collective::AllReduce, CollectiveArgs{send.data(), recv.data(), count, DataType::Float, ReduceOp::Sum, 0});
    wrong += verifier.countWrong(recv.data(), 1);
  });
  EXPECT_EQ(error, "");
  EXPECT_EQ(wrong.load(), 0);
}

TEST(Algorithms, RegistryNamesWhatRuns) {
  EXPECT_EQ(findAlgorithm(Collective::AllReduce, "ring").name, "ring");
  EXPECT_EQ(findAlgorithm(Collective::Broadcast, "ring").name, "chain");
  EXPECT_EQ(findAlgorithm(Collective::AllToAll, "ring").name, "pairwise");
  EXPECT_EQ(findAlgorithm(Collective::AllToAll, "pairwise").name, "pairwise");
  EXPECT_EQ(findAlgorithm(Collective::AllToAll, "linear").name, "linear");
  EXPECT_EQ(findAlgorithm(Collective::AllGather, "linear").name, "linear");
  EXPECT_EQ(findAlgorithm(Collective::AllReduce, "linear").name, "linear");
  EXPECT_EQ(findAlgorithm(Collective::Gather, "linear").name, "linear");
  EXPECT_EQ(findAlgorithm(Collective::AllReduce, "tree").name, "tree");
  EXPECT_EQ(findAlgorithm(Collective::AllGather, "rhd").name, "rhd");
  EXPECT_THROW(findAlgorithm(Collective::AllReduce, "bruck"), InputError);
  EXPECT_THROW(findAlgorithm(Collective::Broadcast, "rd"), InputError);
  for (Collective c : allCollectives()) EXPECT_NO_THROW(findAlgorithm(c, "ring")) << name(c);
}

TEST(Algorithms, HierarchicalAllReduceOnEveryNodeShape) {
  // 6 ranks as 2 nodes of 3 and 3 of 2; 8 as 2 nodes of 4; a large buffer in 1 MiB chunks.
  for (auto [ranks, perNode] : {std::pair{6, 3}, {6, 2}, {8, 4}, {4, 1}}) {
    for (std::size_t count : {std::size_t{5}, (std::size_t{3} << 20) / 4 + 7}) {
      std::atomic<std::int64_t> wrong{0};
      const std::string error = onRanks(ranks, Context::kDefaultChunkBytes, [&](int rank, Communicator& comm) {
        std::vector<float> send(count), recv(count);
        verify::Verifier verifier(Collective::AllReduce, DataType::Float, ReduceOp::Avg, count, ranks, rank, 0);
        verifier.fillInput(send.data(), 1);
        comm.run(Collective::AllReduce, CollectiveArgs{send.data(), recv.data(), count, DataType::Float, ReduceOp::Avg, 0});
        wrong += verifier.countWrong(recv.data(), 1);
      }, "hier", perNode);
      EXPECT_EQ(error, "") << ranks << " ranks, " << perNode << " per node";
      EXPECT_EQ(wrong.load(), 0) << ranks << " ranks, " << perNode << " per node";
    }
  }
}

TEST(Algorithms, HierarchicalAllReduceRefusesUnequalNodes) {
  const std::string error = onRanks(5, 64, [&](int, Communicator& comm) {
    std::vector<float> send(8), recv(8);
    comm.run(Collective::AllReduce, CollectiveArgs{send.data(), recv.data(), 8, DataType::Float, ReduceOp::Sum, 0});
  }, "hier", 2);
  EXPECT_EQ(error, "the hierarchical all_reduce needs equal nodes: 5 ranks do not make nodes of 2");
}

TEST(Algorithms, EveryAlgorithmCatchesACorruptedElement) {
  // The exactness matrix could pass on a checker that cannot fail: corrupt one element of the
  // result on one rank after each algorithm runs and require the verifier to see exactly it.
  for (const Algorithm& algo : allAlgorithms()) {
    constexpr int kRanks = 4;
    const std::size_t count = 13;
    std::atomic<std::int64_t> wrong{0};
    const std::string error = onRanks(kRanks, 64, [&](int rank, Communicator& comm) {
      const BufferLayout layout = bufferLayout(algo.collective, count, kRanks, rank);
      std::vector<std::int32_t> send(layout.sendCount), recv(layout.recvCount);
      const std::optional<ReduceOp> op = reduces(algo.collective) ? std::optional(ReduceOp::Sum) : std::nullopt;
      verify::Verifier verifier(algo.collective, DataType::Int32, op, count, kRanks, rank, 1);
      verifier.fillInput(send.data(), 1);
      comm.run(algo.collective, CollectiveArgs{send.data(), recv.data(), count, DataType::Int32, ReduceOp::Sum, 1});
      if (rank == 1) recv[0] += 1;  // rank 1 is the root of rooted collectives: its output is checked
      wrong += verifier.countWrong(recv.data(), 1);
    }, std::string(algo.name), 2);
    EXPECT_EQ(error, "") << algo.name << " " << name(algo.collective);
    EXPECT_EQ(wrong.load(), 1) << algo.name << " " << name(algo.collective);
  }
}

TEST(ThreadsTransport, MismatchedSizesAreCaught) {
  ThreadGroup group(2, std::chrono::milliseconds(200));
  ThreadsTransport zero(group, 0), one(group, 1);
  char buf[8] = {};
  Request send = zero.isend(buf, 8, 1);
  EXPECT_THROW(one.irecv(buf, 4, 0), std::logic_error);
  (void)send;
}

TEST(ThreadsTransport, AWaitWithoutAPeerTimesOut) {
  ThreadGroup group(2, std::chrono::milliseconds(100));
  ThreadsTransport zero(group, 0);
  char buf[8] = {};
  Request recv = zero.irecv(buf, 8, 1);  // rank 1 never sends
  EXPECT_THROW(zero.wait(recv), std::runtime_error);
}

TEST(ThreadsTransport, AFusedReceiveReducesThePeersBufferInPlace) {
  // dst = local + what the peer sent, whichever side posts first; no scratch in between.
  for (bool senderFirst : {true, false}) {
    ThreadGroup group(2, std::chrono::seconds(5));
    ThreadsTransport zero(group, 0), one(group, 1);
    const std::vector<float> sent = {1, 2, 3}, local = {10, 20, 30};
    std::vector<float> dst(3, -1);
    ASSERT_TRUE(one.fusesReceiveReduce());
    Request send{}, recv{};
    if (senderFirst) send = zero.isend(sent.data(), sizeof(float) * 3, 1);
    recv = one.irecvReduce(dst.data(), local.data(), 3, DataType::Float, ReduceOp::Max, 0);
    if (!senderFirst) send = zero.isend(sent.data(), sizeof(float) * 3, 1);
    one.wait(recv);
    zero.wait(send);
    EXPECT_EQ(dst, (std::vector<float>{10, 20, 30}));
    recv = one.irecvReduce(dst.data(), local.data(), 3, DataType::Float, ReduceOp::Sum, 0);
    send = zero.isend(sent.data(), sizeof(float) * 3, 1);
    one.wait(recv);
    zero.wait(send);
    EXPECT_EQ(dst, (std::vector<float>{11, 22, 33}));
  }
}

// Records the buffers receives write to, then passes them on (and does not fuse: the slot path).
class RecordingTransport final : public Transport {
 public:
  explicit RecordingTransport(Transport& inner) : inner_(inner) {}
  int rank() const override { return inner_.rank(); }
  int size() const override { return inner_.size(); }
  Request isend(const void* buf, std::size_t bytes, int peer) override {
    sent.push_back(buf);
    return inner_.isend(buf, bytes, peer);
  }
  Request irecv(void* buf, std::size_t bytes, int peer) override {
    buffers.push_back(buf);
    return inner_.irecv(buf, bytes, peer);
  }
  void wait(Request request) override { inner_.wait(request); }
  std::vector<const void*> buffers;  // what each receive wrote to, in order
  std::vector<const void*> sent;     // what each send read, in order

 private:
  Transport& inner_;
};

TEST(Algorithms, EveryScratchSlotIsSixteenByteAligned) {
  // 1-byte elements and counts that do not divide: before the slots were rounded up, ring reduce's
  // slots 1-3 started at odd addresses (the CUDA kernel's 1-byte path).
  for (Collective c : {Collective::Reduce, Collective::ReduceScatter, Collective::AllReduce}) {
    for (std::size_t count : {13u, 1003u}) {
      constexpr int kRanks = 3;
      ThreadGroup group(kRanks, std::chrono::seconds(5));
      std::vector<std::thread> threads;
      std::vector<std::size_t> scratchBuffers(kRanks), misaligned(kRanks);
      for (int r = 0; r < kRanks; ++r) {
        threads.emplace_back([&, r] {
          ThreadsTransport threadsTransport(group, r);
          RecordingTransport transport(threadsTransport);
          HostDevice host;
          AlgorithmCommunicator comm(transport, host, "ring", 64);
          const BufferLayout layout = bufferLayout(c, count, kRanks, r);
          std::vector<char> send(layout.sendCount + 1), recv(layout.recvCount + 1);
          comm.run(c, {send.data(), recv.data(), count, DataType::Int8, ReduceOp::Sum, 0});
          auto inside = [](const void* p, const std::vector<char>& v) { return p >= v.data() && p <= v.data() + v.size(); };
          for (const void* p : transport.buffers) {
            if (inside(p, send) || inside(p, recv)) continue;  // the user's buffers, at element offsets: not slots
            ++scratchBuffers[static_cast<std::size_t>(r)];
            misaligned[static_cast<std::size_t>(r)] += reinterpret_cast<std::uintptr_t>(p) % kSlotAlignment != 0 ? 1 : 0;
          }
        });
      }
      for (auto& t : threads) t.join();
      std::size_t slots = 0;
      for (int r = 0; r < kRanks; ++r) {
        EXPECT_EQ(misaligned[static_cast<std::size_t>(r)], 0u) << name(c) << " count " << count << " rank " << r;
        slots += scratchBuffers[static_cast<std::size_t>(r)];
      }
      EXPECT_GT(slots, 0u) << name(c) << " count " << count;  // the scratch slots were seen
    }
  }
}

// Host memory whose copies a test watches (noted()), everything else as HostDevice does it.
class WatchedCopiesDevice : public Device {
 public:
  void* allocate(std::size_t bytes) override { return host_.allocate(bytes); }
  void release(void* ptr) override { host_.release(ptr); }
  void copy(void* dst, const void* src, std::size_t bytes) override {
    noted(dst, src, bytes);
    host_.copy(dst, src, bytes);
  }
  void reduce(void* dst, const void* a, const void* b, std::size_t count, DataType dtype, ReduceOp op) override {
    host_.reduce(dst, a, b, count, dtype, op);
  }
  void divide(void* buf, std::size_t count, DataType dtype, int divisor) override { host_.divide(buf, count, dtype, divisor); }

 private:
  virtual void noted(void* dst, const void* src, std::size_t bytes) = 0;
  HostDevice host_;
};

// Notes how many sends the rank had posted when it made each copy.
class CopyOrderDevice final : public WatchedCopiesDevice {
 public:
  explicit CopyOrderDevice(const RecordingTransport& transport) : transport_(transport) {}
  std::vector<std::size_t> sendsBeforeCopy;

 private:
  void noted(void*, const void*, std::size_t) override { sendsBeforeCopy.push_back(transport_.sent.size()); }
  const RecordingTransport& transport_;
};

TEST(Algorithms, BroadcastRootCopiesItsOutputAfterPostingItsSendsFromItsInput) {
  // The root's own copy runs while its children read, not before they can start: every send is
  // posted before it, and each reads the input (the output is not written yet). The chain's root
  // copies chunk by chunk, each while that chunk's send is read, the tree's in one piece.
  for (std::string_view algo : {"tree", "chain"}) {
    constexpr int kRanks = 4, kRoot = 1;
    constexpr std::size_t kCount = 1000;  // 4 chunks of the chain's 1000 bytes
    ThreadGroup group(kRanks, std::chrono::seconds(5));
    std::vector<std::thread> threads;
    std::vector<std::size_t> sendsBeforeCopy, sendsInAll;
    bool sentFromInput = true;
    std::vector<float> rootOutput;
    for (int r = 0; r < kRanks; ++r) {
      threads.emplace_back([&, r] {
        ThreadsTransport threadsTransport(group, r);
        RecordingTransport transport(threadsTransport);
        CopyOrderDevice device(transport);
        AlgorithmCommunicator comm(transport, device, std::string(algo), 1000);
        std::vector<float> send(kCount, 7.0f), recv(kCount, 0.0f);
        comm.run(Collective::Broadcast, {send.data(), recv.data(), kCount, DataType::Float, ReduceOp::Sum, kRoot});
        if (r != kRoot) return;
        sendsBeforeCopy = device.sendsBeforeCopy;
        sendsInAll.push_back(transport.sent.size());
        for (const void* p : transport.sent) {
          sentFromInput = sentFromInput && p >= static_cast<const void*>(send.data()) && p < static_cast<const void*>(send.data() + kCount);
        }
        rootOutput = recv;
      });
    }
    for (auto& t : threads) t.join();
    ASSERT_EQ(sendsBeforeCopy.size(), algo == "chain" ? 4u : 1u) << algo;  // input to output: a copy a chunk, or one
    EXPECT_GT(sendsInAll[0], 0u) << algo;
    for (std::size_t posted : sendsBeforeCopy) EXPECT_EQ(posted, sendsInAll[0]) << algo << ": sends posted after the root's copy";
    EXPECT_TRUE(sentFromInput) << algo;
    EXPECT_EQ(rootOutput, std::vector<float>(kCount, 7.0f)) << algo;
  }
}


// Adds up the bytes a rank copies (a copy onto itself, in place, is none).
class CopyCountingDevice final : public WatchedCopiesDevice {
 public:
  std::size_t copied = 0;

 private:
  void noted(void* dst, const void* src, std::size_t bytes) override { copied += dst != src ? bytes : 0; }
};

// The copies each algorithm makes, counted on every rank, against what the simulator prices: the
// registry's InputCopies (sim/predictor.cc: inputCopies), which the busiest rank (a rooted call's
// root) must make, plus those outside it, each named below with its size, so a
// change to any algorithm's copies fails here until the registry or this list says so. At 3, 4
// and 5 ranks, in and out of place.
TEST(Algorithms, RegistryCountsTheCopiesOnTheCriticalPath) {
  // The copies outside the registry, priced by a plan or not at all, in blocks of the row's size
  // over n (docs/simulator.md, "Copies the plans leave out").
  auto outsideTheRegistry = [](const Algorithm& algo, int n, bool inPlace) -> double {
    const Collective c = algo.collective;
    // A broadcast's root copies its input to its output while its children read the input
    // (BroadcastRootCopiesItsOutputAfterPostingItsSendsFromItsInput): beside the path.
    if (c == Collective::Broadcast) return inPlace ? 0 : n;
    // Bruck's plan prices its own: the all_gather's rotation (n blocks; its own block copied
    // first, 1, is not priced), the alltoall's rotations in and out (2n; each step's blocks packed
    // into one message and unpacked from the one received, twice the blocks it sends, are not).
    if (algo.name == "bruck") {
      if (c == Collective::AllGather) return n + 1;
      double packed = 0;
      for (int d = 1; d < n; d *= 2) packed += n / (2 * d) * d + std::max(0, n % (2 * d) - d);
      return 2 * n + 2 * packed;
    }
    // The linear gather's and scatter's root copies its own block out of place.
    if (algo.name == "linear" && (c == Collective::Gather || c == Collective::Scatter)) return inPlace ? 0 : 1;
    // The binomial gather's and scatter's ranks with a subtree copy their own block into (out of)
    // their scratch run, in either placement (from 4 ranks: at 3 both children are leaves); the
    // root its own block out of place. The root's children's runs land in (leave) rank order
    // where they are: no rotation.
    if (algo.name == "tree" && (c == Collective::Gather || c == Collective::Scatter)) return inPlace && n < 4 ? 0 : 1;
    return 0;
  };
  for (const Algorithm& algo : allAlgorithms()) {
    for (bool inPlace : {false, true}) {
      for (int n : {3, 4, 5}) {
        constexpr std::size_t kCount = 840;  // one chunk: no pipeline
        ThreadGroup group(n, std::chrono::seconds(5));
        std::vector<std::thread> threads;
        std::vector<std::size_t> copied(static_cast<std::size_t>(n)), bytes(static_cast<std::size_t>(n));
        for (int r = 0; r < n; ++r) {
          threads.emplace_back([&, r] {
            ThreadsTransport transport(group, r);
            CopyCountingDevice device;
            AlgorithmCommunicator comm(transport, device, std::string(algo.name), 1 << 20);
            const BufferLayout layout = bufferLayout(algo.collective, kCount, n, r);
            std::vector<float> a(layout.inPlaceCount()), b(layout.inPlaceCount());
            comm.run(algo.collective, {inPlace ? b.data() + layout.inPlaceSendOffset : a.data(),
                                       inPlace ? b.data() + layout.inPlaceRecvOffset : b.data(), kCount, DataType::Float,
                                       ReduceOp::Sum, 0});
            copied[static_cast<std::size_t>(r)] = device.copied;
            bytes[static_cast<std::size_t>(r)] = layout.inPlaceCount() * sizeof(float);
          });
        }
        for (auto& t : threads) t.join();
        const double size = static_cast<double>(*std::max_element(bytes.begin(), bytes.end()));  // the row's size
        const InputCopies k = inPlace ? algo.inPlaceCopies : algo.outOfPlaceCopies;
        const double expected = (k.whole + static_cast<double>(k.blocks) / n + outsideTheRegistry(algo, n, inPlace) / n) * size;
        const double busiest = static_cast<double>(*std::max_element(copied.begin(), copied.end()));
        EXPECT_DOUBLE_EQ(busiest, expected) << name(algo.collective) << " " << algo.name << " at " << n << " ranks, "
                                            << (inPlace ? "in place" : "out of place");
      }
    }
  }
}

}  // namespace
}  // namespace cclab
