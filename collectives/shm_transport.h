#pragma once

// cclab's transport through shared memory between the ranks of one host, as NCCL's SHM transport
// and gloo's shared-memory pairs do: no MPI on the data path. Every ordered pair of ranks (src,
// dst) owns a single-producer single-consumer channel of kSlots slots in one shared region; a
// message travels as fragments of at most kSlotPayload bytes, copied into a slot by the sender and
// out of it by the receiver. Each slot starts with a header whose `sequence` (1 + the fragment's
// index on the channel) the sender stores last, with release order, after the payload; the
// receiver polls that word, so a small message costs the receiver one cache line (header and
// payload share it), as Open MPI's vader fast boxes do; while it polls for a message's first
// fragment it also prefetches the fragment's other lines, so they cross between cores with the
// header's line rather than after it (on the Zen 5 host a third line had cost a whole cross-core
// transfer more: 0.52 -> 0.95 us at 120 B; 0.53-0.66 us with the prefetch). `tail` (fragments
// read, stored by the receiver after copying out, on its own cache line) frees slots; the sender
// reads it only when the slots it last saw free are used up. Messages between a pair therefore
// arrive in the order they were posted, as Transport requires.
//
// Progress is made inside isend/irecv (as far as slots allow; a large message's single copy is
// read only in wait) and wait. A send or receive posted with nothing of this rank's queued ahead of
// it on its channel moves at once, and one that completes so is never queued: a small message's
// call then skips the queues and the pass over every peer's (ccbench's 2-rank broadcasts of 8-128 B
// took 8-14% less time a call; docs/auto-vs-mpi.md, "§4 with a send or receive that moves at
// once"). Waiting on any request moves every pending send and receive of this rank, sends first,
// so two ranks waiting on sends to each other cannot deadlock once their receives are posted. A
// wait that finds nothing to do yields the core at once when ranks outnumber the host's cores (the
// peer may need it to run: Open MPI yields so when oversubscribed, mpi_yield_when_idle), and only
// after 4096 idle polls otherwise (a system call on every short
// wait would double a small message's latency).
//
// Small messages (kPackedMaxBytes and less, whatever the single-copy threshold) are packed, two to
// four to a cache line, as Open MPI's vader packs its fast boxes: the sender opens a slot for them
// (its header says kPacked), zeroes the slot's first kPackedRegion bytes and writes each message
// as a cell (an 8-byte cell header, then the payload; 16 or 32 bytes, never across a cache line)
// whose marker word it stores last; the receiver polls the next cell's marker (and the next
// line's first, where a cell that did not fit in the rest of a line goes). In a stream (a
// broadcast's root posting call after call) the receiver then takes one cache line from the
// sender's core for every two to four messages, not one for each, and a rank scheduled in after
// a wait drains every cell its parent packed meanwhile: on the Zen 5 host a 5-rank broadcast of
// 8-16 B ran 2.6-3.4x the MPI library's rate, 1.0-1.4x before (on 2 quiet ranks little changes).
// Not larger messages: a 32-byte one took a line of its own and the zeroing's share of another,
// and exchanges of them ran 5-8% slower. The slot is closed (a
// closing cell) when a larger message follows or the region is full, and only then freed by the
// receiver's tail. The zeroing makes every cell the receiver polls either unwritten (0) or
// written this lap: no stale payload can pass for a cell.
//
// Large messages (singleCopyBytes and up; rootedSingleCopyBytes in a rooted call) take one copy
// instead of two, as Open MPI's vader does with CMA: the sender puts a descriptor of its buffer
// (pid, address, bytes) in a slot, the receiver reads the bytes straight out of the sender's memory with process_vm_readv (a fused
// receive reduces them in cache-sized pieces as they arrive) or, where the buffer is a shared
// allocation (shared_host_memory.h: its memfd in the descriptor), with memcpy or the reduction
// kernel from its own mapping of it, about twice as fast; then raises the channel's `acked`
// counter; the send completes when it sees that. It needs cross-process memory access (same user,
// ptrace permitted): canRead() says whether it works between the processes at hand. The send
// then waits for its receiver: in a call where every rank sends and receives (all_reduce, alltoall)
// that costs nothing (the rank waits for its own receives anyway) and the copy saved pays from
// smaller messages on than in a rooted call (broadcast, reduce, gather, scatter), where the root's
// next send waits on it; so a rooted call has its own threshold (beginCall picks it).
//
// The region comes from the caller: a POSIX shared memory segment mapped in every process
// (mpi/shm_segment.h), or one heap block shared by threads (the tests). It must be regionBytes(n)
// long and zeroed before any rank uses it.

#include <sys/types.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <algorithm>
#include <vector>

#include "collectives/shared_host_memory.h"
#include "collectives/transport.h"

namespace cclab {

class ShmTransport final : public Transport {
 public:
  // Many small slots: a sender runs up to kSlots small messages ahead of a receiver that is not
  // scheduled (ranks outnumbering cores); large messages take the single copy.
  static constexpr int kSlots = 64;
  static constexpr std::size_t kSlotPayload = 4 * 1024;
  static constexpr int kMaxRanks = 64;  // n x n channels: 64 ranks map 1 GiB
  // Messages this small or smaller travel packed, a cell each (the class comment).
  static constexpr std::size_t kPackedMaxBytes = 24;

  // The bytes of the region `ranks` ranks share.
  static std::size_t regionBytes(int ranks);

  // singleCopyBytes 0: every message through the slots. rootedSingleCopyBytes: the same for
  // rooted calls (0: through the slots); the first constructor takes singleCopyBytes for both.
  ShmTransport(void* region, int rank, int size, std::size_t singleCopyBytes = 0)
      : ShmTransport(region, rank, size, singleCopyBytes, singleCopyBytes) {}
  ShmTransport(void* region, int rank, int size, std::size_t singleCopyBytes, std::size_t rootedSingleCopyBytes);
  ShmTransport(const ShmTransport&) = delete;
  ShmTransport& operator=(const ShmTransport&) = delete;

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  Request isend(const void* buf, std::size_t bytes, int peer) override;
  Request irecv(void* buf, std::size_t bytes, int peer) override;
  void wait(Request request) override;
  // The receiver reduces each fragment straight out of its slot: dst = local (op) fragment.
  bool fusesReceiveReduce() const override { return true; }
  Request irecvReduce(void* dst, const void* local, std::size_t count, DataType dtype, ReduceOp op, int peer) override;
  // A rooted collective's messages take the single copy from rootedSingleCopyBytes, the others' from singleCopyBytes.
  void beginCall(Collective collective) override {
    singleCopyBytes_ = hasRoot(collective) ? rootedSingleCopyBytes_ : unrootedSingleCopyBytes_;
  }
  // The threshold the messages posted now take.
  std::size_t singleCopyBytes() const { return singleCopyBytes_; }

  // Moves every pending transfer as far as the slots allow; true when anything moved. (A
  // transport built on this one, with another path beside it, calls it while it waits there.)
  bool progress();
  bool done(Request request) const { return std::find(finished_.begin(), finished_.end(), request.id) != finished_.end(); }

  // Whether this process can read `bytes` at `address` in process `pid` (what the single-copy
  // path does): false when the kernel refuses (another user, ptrace restrictions, no CMA).
  static bool canRead(pid_t pid, const void* address, std::size_t bytes);

 private:
  // A cache line: counters each own one, slots start on one, and the receiver polls a slot's first.
  static constexpr std::size_t kCacheLine = 64;
  struct alignas(kCacheLine) Counter {
    std::atomic<std::uint64_t> value{0};
  };
  struct Channel {
    Counter head;  // fragments written by the sender (only the sender reads it)
    Counter tail;  // fragments read by the receiver
    Counter acked;  // single-copy messages the receiver has read out of the sender's memory
  };
  struct SlotHeader {
    std::uint64_t sequence;  // 1 + the fragment's index on the channel: stored last (atomically), polled by the receiver
    std::uint32_t bytes;     // payload bytes in this fragment
    std::uint32_t flags;     // kLast on a message's last fragment; kSingleCopy: the payload is a Descriptor
  };
  static constexpr std::uint32_t kLast = 1, kSingleCopy = 2, kPacked = 4;
  // A packed slot's cells (kPacked): from kCellsStart to kPackedRegion, each a CellHeader and its
  // payload, 16-byte aligned, inside one cache line (one that does not fit in the rest of a line
  // starts the next: the reader polls both); a closing cell sends the reader to the next slot.
  struct CellHeader {
    std::uint32_t marker;  // 0: not written yet; else cellMarker(slot index): stored last, polled
    std::uint16_t bytes;
    std::uint16_t flags;   // kCellClosed, or 0 for a message
  };
  static constexpr std::uint16_t kCellClosed = 1;
  static constexpr std::size_t kCellsStart = 16;      // after the slot's header
  static constexpr std::size_t kPackedRegion = 1024;  // zeroed when the slot opens: 16 lines
  static constexpr std::size_t cellBytes(std::size_t payload) { return (sizeof(CellHeader) + payload + 15) / 16 * 16; }
  static constexpr std::size_t nextLine(std::size_t offset) { return (offset / kCacheLine + 1) * kCacheLine; }
  static std::uint32_t cellMarker(std::uint64_t slotIndex) { return static_cast<std::uint32_t>(slotIndex % 0x7fffffffu) + 1; }
  static std::atomic_ref<std::uint32_t> marker(char* cell);
  struct Descriptor {
    std::int64_t pid;
    std::uint64_t address;
    std::uint64_t bytes;
    SharedHostSpan shared;  // fd -1: not in a shared allocation (read with process_vm_readv)
  };
  // Each slot starts on a cache line, so a header and a small payload travel as one line.
  static constexpr std::size_t kSlotBytes = (sizeof(SlotHeader) + kSlotPayload + kCacheLine - 1) / kCacheLine * kCacheLine;
  static constexpr std::size_t kChannelBytes = sizeof(Channel) + kSlots * kSlotBytes;

  struct Pending {
    std::uint64_t id = 0;
    bool isSend = false;
    int peer = 0;
    char* buf = nullptr;      // the receive's destination, or the send's source (never written)
    std::size_t bytes = 0;
    std::size_t moved = 0;    // bytes copied so far
    bool started = false;     // at least one fragment went (a message of 0 bytes is one fragment)
    std::uint64_t ackTarget = 0;  // single-copy sends: complete once the channel's acked reaches it
    // Fused receives (irecvReduce): buf = local (op) the peer's bytes.
    const char* local = nullptr;
    DataType dtype = DataType::Float;
    ReduceOp op = ReduceOp::Sum;
  };
  Request post(Pending pending);

  Channel& channel(int from, int to) const;
  char* slot(Channel& channel, std::uint64_t index) const;
  static std::atomic_ref<std::uint64_t> sequence(char* slot);
  bool slotFree(Channel& channel, int peer, std::uint64_t index);
  static void publish(Channel& channel, char* slot, std::uint64_t index, std::uint32_t bytes, std::uint32_t flags);
  static void copyIntoSlot(char* slot, const char* from, std::size_t bytes);
  void prefetchFragment(const char* slot, std::size_t bytes) const;
  // True when the send is complete: its last fragment is in a slot, or (single copy) the receiver has read it.
  bool pushFragments(Pending& send);
  bool pushPacked(Pending& send, Channel& channel);
  void closePacked(Channel& channel, int peer);
  // readSingleCopies false: a large message's descriptor is left for a later call (see post()).
  bool popFragments(Pending& receive, bool readSingleCopies);
  // The receive's message from the packed slot at the channel's tail: true when it
  // was there (the receive is complete), false when not yet, nullopt when the slot closed first
  // (the tail moved past it).
  std::optional<bool> popPacked(Pending& receive, Channel& channel, std::uint64_t& tail);
  bool progress(bool readSingleCopies);
  void readSingleCopy(Pending& receive, const Descriptor& from);

  char* region_;
  int rank_;
  int size_;
  std::size_t unrootedSingleCopyBytes_, rootedSingleCopyBytes_;
  std::size_t singleCopyBytes_;  // this call's: one of the two (beginCall)
  pid_t pid_;
  int idleBeforeYield_;                        // idle polls before a wait gives up the core (1 when oversubscribed)
  std::vector<std::uint64_t> freeUntil_;       // per peer: the fragment index the last tail read frees slots up to
  std::vector<std::uint64_t> singleCopySent_;  // per peer: single-copy messages sent
  std::vector<std::size_t> packedWrite_;       // per peer: the next cell's offset in the open packed slot (0: none open)
  std::vector<std::size_t> packedRead_;        // per peer: the next cell's offset in the packed slot at the tail (0: not in one)
  std::vector<char> scratch_;                  // a fused single-copy receive's pieces
  PeerMappings peerMappings_;                  // peers' shared buffers, mapped on first read
  std::uint64_t nextId_ = 1;
  // Per peer, the requests in posting order: only the oldest of each direction moves. Few are
  // pending at once, so plain queues and a list (no hashing, no allocation per message).
  std::vector<std::deque<Pending>> sends_, receives_;
  std::vector<std::uint64_t> finished_;  // complete, not yet waited on
};

}  // namespace cclab
