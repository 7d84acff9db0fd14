// The shared-memory transport with threads standing in for processes (one heap region shared by
// all): its fragment handshake, its order per pair, the size check, and every registry algorithm
// run over it exactly at 1-5 ranks. Between processes (a POSIX segment under mpirun) the same
// code runs on a mapping instead of a heap block.

#include "collectives/shm_transport.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <numeric>
#include <thread>
#include <unistd.h>
#include <vector>

#include "collectives/algorithms/algorithms.h"
#include "collectives/communicator.h"
#include "collectives/verify/verify.h"

namespace cclab {
namespace {

struct Region {
  explicit Region(int ranks) : bytes(ShmTransport::regionBytes(ranks)), data(std::aligned_alloc(64, bytes), std::free) {
    std::memset(data.get(), 0, bytes);
  }
  std::size_t bytes;
  std::unique_ptr<void, decltype(&std::free)> data;
};

// Runs fn(transport) on n threads, one per rank; returns the first failure, if any. Messages of
// singleCopyBytes and more (0: none) take the single-copy path (process_vm_readv of this process).
std::string onRanks(int n, const std::function<void(ShmTransport&)>& fn, std::size_t singleCopyBytes = 0) {
  Region region(n);
  std::vector<std::thread> threads;
  std::vector<std::string> errors(static_cast<std::size_t>(n));
  for (int r = 0; r < n; ++r) {
    threads.emplace_back([&, r] {
      try {
        ShmTransport transport(region.data.get(), r, n, singleCopyBytes);
        fn(transport);
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

std::vector<char> pattern(std::size_t bytes, int seed) {
  std::vector<char> v(bytes);
  for (std::size_t i = 0; i < bytes; ++i) v[i] = static_cast<char>((i * 31 + static_cast<std::size_t>(seed) * 7) % 251);
  return v;
}

// Messages of 0 bytes, of one slot, of many slots (the channel wraps around many times), more
// queued than there are slots, in both directions at once: every byte arrives, in posting order.
// With a single-copy threshold of one slot, the large ones go as descriptors between slot messages.
TEST(ShmTransport, MessagesArriveWholeAndInOrder) {
  const std::vector<std::size_t> sizes{0, 1, ShmTransport::kSlotPayload, ShmTransport::kSlotPayload + 1,
                                       ShmTransport::kSlots * ShmTransport::kSlotPayload * 3 + 17, 5, 0, 4096};
  for (std::size_t singleCopy : {std::size_t{0}, ShmTransport::kSlotPayload}) {
  const std::string error = onRanks(2, [&](ShmTransport& t) {
    const int peer = 1 - t.rank();
    std::vector<std::vector<char>> out, in;
    std::vector<Request> requests;
    for (std::size_t k = 0; k < sizes.size(); ++k) {
      out.push_back(pattern(sizes[k], t.rank() * 100 + static_cast<int>(k)));
      in.emplace_back(sizes[k]);
    }
    for (std::size_t k = 0; k < sizes.size(); ++k) {
      requests.push_back(t.isend(out[k].data(), sizes[k], peer));
      requests.push_back(t.irecv(in[k].data(), sizes[k], peer));
    }
    for (auto it = requests.rbegin(); it != requests.rend(); ++it) t.wait(*it);  // the last first: progress moves all
    for (std::size_t k = 0; k < sizes.size(); ++k) {
      if (in[k] != pattern(sizes[k], peer * 100 + static_cast<int>(k))) throw std::runtime_error("message " + std::to_string(k) + " differs");
    }
  }, singleCopy);
  EXPECT_EQ(error, "") << "single copy from " << singleCopy << " bytes";
  }
}

// Small messages travel packed, several to a cache line: a long stream of every packed size (and
// the sizes just past it, which close the packed slot) in both directions at once, many packed
// slots' worth, arrives whole and in order.
TEST(ShmTransport, PackedSmallMessagesArriveWholeAndInOrder) {
  std::vector<std::size_t> sizes;
  for (int k = 0; k < 3000; ++k) {
    const std::size_t small = static_cast<std::size_t>(k * 7) % (ShmTransport::kPackedMaxBytes + 1);  // 0..24
    sizes.push_back(k % 97 == 0 ? ShmTransport::kPackedMaxBytes + 1 + static_cast<std::size_t>(k % 300) : small);
  }
  const std::string error = onRanks(2, [&](ShmTransport& t) {
    const int peer = 1 - t.rank();
    std::vector<char> in;
    for (std::size_t k = 0; k < sizes.size(); ++k) {
      const std::vector<char> out = pattern(sizes[k], t.rank() * 1000 + static_cast<int>(k));
      in.assign(sizes[k], 0);
      const Request send = t.isend(out.data(), out.size(), peer);
      const Request recv = t.irecv(in.data(), in.size(), peer);
      t.wait(recv);
      t.wait(send);
      if (in != pattern(sizes[k], peer * 1000 + static_cast<int>(k))) throw std::runtime_error("message " + std::to_string(k) + " differs");
    }
  });
  EXPECT_EQ(error, "");
}

// A packed slot's cells are zeroed when it opens, so the bytes a slot carried on its last lap
// cannot pass for cells: here every word of the first lap's payloads is the marker the slot's
// packed cells carry on the next lap (1 + the slot's index on the channel). Without the zeroing
// the receiver reads them as cells and the stream fails.
TEST(ShmTransport, StalePayloadNeverPassesForAPackedCell) {
  const std::string error = onRanks(2, [](ShmTransport& t) {
    constexpr int kStale = ShmTransport::kSlots;
    constexpr int kSmall = 2000;
    if (t.rank() == 0) {
      std::vector<std::vector<std::uint32_t>> laps;
      std::vector<Request> sends;
      for (int slot = 0; slot < kStale; ++slot) {
        laps.emplace_back(ShmTransport::kSlotPayload / sizeof(std::uint32_t), static_cast<std::uint32_t>(slot + kStale + 1));
        sends.push_back(t.isend(laps.back().data(), ShmTransport::kSlotPayload, 1));
      }
      for (Request r : sends) t.wait(r);
      char ack = 0;
      for (int k = 0; k < kSmall; ++k) {  // each after the receiver's answer: it polls the next cell first
        const std::vector<char> out = pattern(static_cast<std::size_t>(k % 9) + 8, k);
        t.wait(t.isend(out.data(), out.size(), 1));
        // Not a plain wait: a receiver that failed never answers.
        const Request answer = t.irecv(&ack, 1, 1);
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
        while (!t.done(answer)) {
          if (std::chrono::steady_clock::now() > deadline) throw std::runtime_error("no answer to small message " + std::to_string(k));
          t.progress();
        }
        t.wait(answer);
      }
    } else {
      std::vector<char> lap(ShmTransport::kSlotPayload);
      for (int slot = 0; slot < kStale; ++slot) t.wait(t.irecv(lap.data(), lap.size(), 0));
      const char ack = 1;
      for (int k = 0; k < kSmall; ++k) {
        std::vector<char> in(static_cast<std::size_t>(k % 9) + 8);
        const Request recv = t.irecv(in.data(), in.size(), 0);
        t.wait(t.isend(&ack, 1, 0));
        t.wait(recv);
        if (in != pattern(in.size(), k)) throw std::runtime_error("small message " + std::to_string(k) + " differs");
      }
    }
  });
  EXPECT_EQ(error, "");
}

// Posting a receive never reads a large message, even one already announced: the caller may
// still have sends to post that the peer waits for (an irecv that read first made two ranks
// exchanging 128 MiB read one after the other: 23 ms where 16 ms is one read). The wait reads it.
TEST(ShmTransport, PostingAReceiveLeavesTheSingleCopyToTheWait) {
  Region region(2);
  ShmTransport sender(region.data.get(), 0, 2, 16), receiver(region.data.get(), 1, 2, 16);
  const std::vector<char> out = pattern(64, 3);
  std::vector<char> in(64, 0);
  const Request send = sender.isend(out.data(), out.size(), 1);  // its descriptor is in a slot now
  const Request recv = receiver.irecv(in.data(), in.size(), 0);
  EXPECT_FALSE(receiver.done(recv));
  EXPECT_EQ(in, std::vector<char>(64, 0));
  receiver.wait(recv);
  EXPECT_EQ(in, out);
  sender.wait(send);  // acknowledged by the read
}

// A rooted call takes the single copy from its own threshold (beginCall picks it): a 64-byte
// message goes through the slots in a broadcast (the receive copies it out as it is posted) and
// as a descriptor in an all_reduce (read in the wait).
TEST(ShmTransport, ARootedCallTakesItsOwnSingleCopyThreshold) {
  Region region(2);
  ShmTransport sender(region.data.get(), 0, 2, 16, 4096), receiver(region.data.get(), 1, 2, 16, 4096);
  EXPECT_EQ(sender.singleCopyBytes(), 16u);
  for (Collective collective : {Collective::Broadcast, Collective::AllReduce, Collective::Gather}) {
    sender.beginCall(collective);
    receiver.beginCall(collective);
    EXPECT_EQ(sender.singleCopyBytes(), hasRoot(collective) ? 4096u : 16u) << name(collective);
    const std::vector<char> out = pattern(64, 5);
    std::vector<char> in(64, 0);
    const Request send = sender.isend(out.data(), out.size(), 1);
    const Request recv = receiver.irecv(in.data(), in.size(), 0);
    EXPECT_EQ(receiver.done(recv), hasRoot(collective)) << name(collective);
    receiver.wait(recv);
    sender.wait(send);
    EXPECT_EQ(in, out) << name(collective);
  }
}

TEST(ShmTransport, MismatchedSizesAreCaught) {
  auto sendAndPost = [](std::size_t sent, std::size_t posted) {  // rank 0 sends `sent` bytes, rank 1 posts `posted`
    return onRanks(2, [&](ShmTransport& t) {
      std::vector<char> buf(std::max(sent, posted));
      if (t.rank() == 0) {
        t.wait(t.isend(buf.data(), sent, 1));
      } else {
        t.wait(t.irecv(buf.data(), posted, 0));
      }
    });
  };
  const std::string error = sendAndPost(64, 32);
  EXPECT_NE(error.find("does not match the 32 bytes"), std::string::npos) << error;
  const std::string packed = sendAndPost(16, 8);  // a packed message
  EXPECT_NE(packed.find("does not match the 8 bytes"), std::string::npos) << packed;
  const std::string single = onRanks(2, [](ShmTransport& t) {
    static std::vector<char> buf(64);
    if (t.rank() == 0) {
      t.isend(buf.data(), 64, 1);  // not waited on: no acknowledgement comes from a receive that failed
    } else {
      t.wait(t.irecv(buf.data(), 32, 0));
    }
  }, 16);
  EXPECT_NE(single.find("sent 64 bytes where rank 1 posted 32"), std::string::npos) << single;
}

// The probe ccbench runs before it turns the single-copy path on can say no.
TEST(ShmTransport, TheSingleCopyProbeCanFail) {
  const int word = 42;
  EXPECT_TRUE(ShmTransport::canRead(getpid(), &word, sizeof(word)));
  EXPECT_FALSE(ShmTransport::canRead(getpid(), nullptr, sizeof(word)));  // nothing mapped there
}

TEST(ShmTransport, WaitingTwiceOrOnNothingIsAnError) {
  const std::string error = onRanks(1, [](ShmTransport& t) {
    char c = 1, d = 0;
    const Request send = t.isend(&c, 1, 0), recv = t.irecv(&d, 1, 0);  // to itself
    t.wait(recv);
    t.wait(send);
    if (d != 1) throw std::runtime_error("the byte did not arrive");
    t.wait(send);
  });
  EXPECT_NE(error.find("unknown or finished"), std::string::npos) << error;
}

// A rank's buffer: private heap memory (read by its peers with process_vm_readv), or a shared
// allocation (mapped by them) where it is large enough to be one, as HostDevice allocates.
class RankBuffer {
 public:
  RankBuffer(std::size_t bytes, bool shared) {
    host_.setSharedBuffers(shared);
    data_ = static_cast<char*>(host_.allocate(bytes));
  }
  RankBuffer(const RankBuffer&) = delete;
  RankBuffer& operator=(const RankBuffer&) = delete;
  ~RankBuffer() { host_.release(data_); }
  char* data() const { return data_; }

 private:
  HostDevice host_;
  char* data_;
};

// Every algorithm of the registry over the shared-memory transport, exact (the verifier ccbench
// uses), at 1-5 ranks, float sum and int32 max (or no op), in and out of place, counts that do not
// divide, chunks of 64 bytes and of a whole megabyte; through the slots only, and with messages of
// 1 KiB and more read straight from the sender (fused receive-reduce included), out of private
// buffers (process_vm_readv) and out of shared ones (the peer's mapping: the large count's buffers).
TEST(ShmTransport, EveryAlgorithmIsExactOverIt) {
  struct Setting {
    std::size_t singleCopy;
    bool shared;
  };
  for (const Setting setting : {Setting{0, false}, Setting{1024, false}, Setting{1024, true}})
  for (const Algorithm& algo : allAlgorithms()) {
    const std::size_t singleCopy = setting.singleCopy;
    for (int n = 1; n <= 5; ++n) {
      for (DataType dtype : {DataType::Float, DataType::Int32}) {
        const std::optional<ReduceOp> op =
            reduces(algo.collective) ? std::optional(dtype == DataType::Float ? ReduceOp::Sum : ReduceOp::Max) : std::nullopt;
        for (bool inPlace : {false, true}) {
          for (std::size_t count : {13u, 50003u}) {
            std::atomic<std::int64_t> wrong{0};
            const int root = hasRoot(algo.collective) ? n - 1 : 0;
            const std::string error = onRanks(n, [&](ShmTransport& t) {
              HostDevice host;
              AlgorithmCommunicator comm(t, host, std::string(algo.name), count > 100 ? Context::kDefaultChunkBytes : 64);
              comm.setRanksPerNode(n % 2 == 0 && n > 2 ? 2 : 1);
              const BufferLayout layout = bufferLayout(algo.collective, count, n, t.rank());
              const std::size_t element = sizeOf(dtype);
              const RankBuffer a(layout.inPlaceCount() * element + 1, setting.shared), b(layout.inPlaceCount() * element + 1, setting.shared);
              CollectiveArgs args{inPlace ? b.data() + layout.inPlaceSendOffset * element : a.data(),
                                  inPlace ? b.data() + layout.inPlaceRecvOffset * element : b.data(),
                                  count,
                                  dtype,
                                  op.value_or(ReduceOp::Sum),
                                  root};
              verify::Verifier verifier(algo.collective, dtype, op, count, n, t.rank(), root);
              verifier.poison(b.data(), layout.inPlaceCount());
              verifier.fillInput(const_cast<void*>(args.send), 1);
              comm.run(algo.collective, args);
              wrong += verifier.countWrong(args.recv, 1);
            }, singleCopy);
            ASSERT_EQ(error, "") << algo.name << " " << name(algo.collective) << " np" << n << " count " << count << " single copy "
                                 << singleCopy << (setting.shared ? " shared" : "");
            ASSERT_EQ(wrong.load(), 0) << algo.name << " " << name(algo.collective) << " np" << n << " count " << count
                                       << (inPlace ? " in place" : "") << " single copy " << singleCopy << (setting.shared ? " shared" : "");
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace cclab
