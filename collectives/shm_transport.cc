#include "collectives/shm_transport.h"

#include <sched.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <algorithm>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string>

#include "collectives/reduce_kernels.h"

namespace cclab {

static_assert(std::atomic<std::uint64_t>::is_always_lock_free,
              "the channel counters are shared between processes: they must be lock-free (address-free)");

std::size_t ShmTransport::regionBytes(int ranks) {
  return static_cast<std::size_t>(ranks) * static_cast<std::size_t>(ranks) * kChannelBytes;
}

namespace {

// A fused single-copy receive reads the peer's bytes in pieces this large (a multiple of every
// element size) and reduces each while it is in cache.
constexpr std::size_t kReducePiece = 64 * 1024;

// Reads `bytes` from `address` in process `pid` into `to`; false (errno set) when the kernel refuses.
bool readFrom(pid_t pid, std::uint64_t address, char* to, std::size_t bytes) {
  while (bytes > 0) {
    iovec local{to, bytes};
    iovec remote{reinterpret_cast<void*>(address), bytes};
    const ssize_t got = process_vm_readv(pid, &local, 1, &remote, 1, 0);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return false;
    to += got, address += static_cast<std::uint64_t>(got), bytes -= static_cast<std::size_t>(got);
  }
  return true;
}

}  // namespace

bool ShmTransport::canRead(pid_t pid, const void* address, std::size_t bytes) {
  std::vector<char> into(bytes);
  return readFrom(pid, reinterpret_cast<std::uint64_t>(address), into.data(), bytes);
}

ShmTransport::ShmTransport(void* region, int rank, int size, std::size_t singleCopyBytes, std::size_t rootedSingleCopyBytes)
    : region_(static_cast<char*>(region)), rank_(rank), size_(size), unrootedSingleCopyBytes_(singleCopyBytes),
      rootedSingleCopyBytes_(rootedSingleCopyBytes), singleCopyBytes_(singleCopyBytes), pid_(getpid()),
      idleBeforeYield_(size > sysconf(_SC_NPROCESSORS_ONLN) ? 1 : 4096), freeUntil_(static_cast<std::size_t>(size), kSlots),
      singleCopySent_(static_cast<std::size_t>(size), 0), packedWrite_(static_cast<std::size_t>(size), 0),
      packedRead_(static_cast<std::size_t>(size), 0), sends_(static_cast<std::size_t>(size)),
      receives_(static_cast<std::size_t>(size)) {
  if (size < 1 || size > kMaxRanks) throw std::invalid_argument("ShmTransport: " + std::to_string(size) + " ranks (1 to 64)");
  if (rank < 0 || rank >= size) throw std::invalid_argument("ShmTransport: rank " + std::to_string(rank) + " of " + std::to_string(size));
  if (reinterpret_cast<std::uintptr_t>(region) % alignof(Channel) != 0) throw std::invalid_argument("ShmTransport: region not 64-byte aligned");
}

ShmTransport::Channel& ShmTransport::channel(int from, int to) const {
  const std::size_t index = static_cast<std::size_t>(from) * static_cast<std::size_t>(size_) + static_cast<std::size_t>(to);
  return *reinterpret_cast<Channel*>(region_ + index * kChannelBytes);
}

char* ShmTransport::slot(Channel& c, std::uint64_t index) const {
  return reinterpret_cast<char*>(&c) + sizeof(Channel) + (index % kSlots) * kSlotBytes;
}

Request ShmTransport::post(Pending pending) {
  pending.id = nextId_++;
  auto& queue = (pending.isSend ? sends_ : receives_)[static_cast<std::size_t>(pending.peer)];
  if (queue.empty()) {
    // Nothing of this rank's is ahead of it on its channel, so it may move now, in order; a small
    // message then completes here without being queued (the class comment).
    const bool finished = pending.isSend ? pushFragments(pending) : popFragments(pending, /*readSingleCopies=*/false);
    if (finished) {
      finished_.push_back(pending.id);
      return Request{pending.id};
    }
  }
  queue.push_back(pending);
  // Posting never blocks in a peer's large buffer: the caller may have sends still to post, which
  // that peer waits for (an irecv that read 128 MiB before its isend went out made the two ranks
  // read one after the other; waits read).
  progress(/*readSingleCopies=*/false);
  return Request{pending.id};
}

Request ShmTransport::isend(const void* buf, std::size_t bytes, int peer) {
  Pending p;
  p.isSend = true;
  p.peer = peer;
  p.buf = const_cast<char*>(static_cast<const char*>(buf));  // only read
  p.bytes = bytes;
  return post(p);
}

Request ShmTransport::irecv(void* buf, std::size_t bytes, int peer) {
  Pending p;
  p.peer = peer;
  p.buf = static_cast<char*>(buf);
  p.bytes = bytes;
  return post(p);
}

Request ShmTransport::irecvReduce(void* dst, const void* local, std::size_t count, DataType dtype, ReduceOp op, int peer) {
  Pending p;
  p.peer = peer;
  p.buf = static_cast<char*>(dst);
  p.bytes = count * sizeOf(dtype);
  p.local = static_cast<const char*>(local);
  p.dtype = dtype;
  p.op = op;
  return post(p);
}

// A slot's sequence word, written and polled by two processes at once: atomic, in place.
std::atomic_ref<std::uint64_t> ShmTransport::sequence(char* slot) {
  static_assert(offsetof(SlotHeader, sequence) == 0 && kSlotBytes % kCacheLine == 0 && sizeof(Channel) % kCacheLine == 0,
                "a slot's header starts its cache line with the sequence word");
  return std::atomic_ref<std::uint64_t>(*reinterpret_cast<std::uint64_t*>(slot));
}

// Whether fragment `index` has a free slot: the receiver has read fragment index - kSlots. The
// receiver's tail is read again only when the slots last seen free are used up.
bool ShmTransport::slotFree(Channel& c, int peer, std::uint64_t index) {
  std::uint64_t& freeUntil = freeUntil_[static_cast<std::size_t>(peer)];
  if (index < freeUntil) return true;
  freeUntil = c.tail.value.load(std::memory_order_acquire) + kSlots;
  return index < freeUntil;
}

// Fills in a slot's header and publishes it: the sequence last, with release order, so the
// receiver that sees it sees the payload and the header before it.
void ShmTransport::publish(Channel& c, char* s, std::uint64_t index, std::uint32_t bytes, std::uint32_t flags) {
  std::memcpy(s + offsetof(SlotHeader, bytes), &bytes, sizeof(bytes));
  std::memcpy(s + offsetof(SlotHeader, flags), &flags, sizeof(flags));
  sequence(s).store(index + 1, std::memory_order_release);
  c.head.value.store(index + 1, std::memory_order_relaxed);
}

// Copies a fragment's payload into a slot, the part past the header's cache line first: the
// receiver polls that line, so storing to it in two bursts (the payload's start, then the header)
// let its polls take the line back between them. One way between two threads on two cores of the
// Intel VM, 128-160 bytes took 0.32 us instead of 0.42, 192-256 bytes and 1 KiB 3-5% less, 512
// bytes 4% more (medians of five rounds, docs/performance.md). An empty message may have no buffer.
void ShmTransport::copyIntoSlot(char* s, const char* from, std::size_t n) {
  constexpr std::size_t firstLine = kCacheLine - sizeof(SlotHeader);  // payload bytes sharing the header's line
  if (n > firstLine) std::memcpy(s + kCacheLine, from + firstLine, n - firstLine);
  if (n > 0) std::memcpy(s + sizeof(SlotHeader), from, std::min(n, firstLine));
}

std::atomic_ref<std::uint32_t> ShmTransport::marker(char* cell) {
  static_assert(offsetof(CellHeader, marker) == 0 && sizeof(CellHeader) == 8 && kCellsStart >= sizeof(SlotHeader) &&
                    cellBytes(kPackedMaxBytes) <= kCacheLine && kPackedRegion <= kSlotBytes && kPackedRegion % kCacheLine == 0,
                "a cell starts with its marker word and fits in a cache line of the slot");
  return std::atomic_ref<std::uint32_t>(*reinterpret_cast<std::uint32_t*>(cell));
}

// A small message as a cell of the open packed slot, opening one (its cells zeroed) if none is
// open, or if the open one has no room for the cell and a closing cell after it (then it is closed
// first). Cells never cross a cache line: one that does not fit in the rest of a line starts the
// next, and the reader, polling both places, finds it there.
bool ShmTransport::pushPacked(Pending& send, Channel& c) {
  std::size_t& at = packedWrite_[static_cast<std::size_t>(send.peer)];
  const std::size_t cell = cellBytes(send.bytes);
  auto placed = [&](std::size_t offset) {  // where a cell goes from `offset` on: inside one line
    return offset % kCacheLine + cell > kCacheLine ? nextLine(offset) : offset;
  };
  if (at != 0 && placed(at) + cell + sizeof(CellHeader) > kPackedRegion) closePacked(c, send.peer);
  const std::uint64_t head = c.head.value.load(std::memory_order_relaxed);  // only this rank writes it
  const bool open = at == 0;
  if (open) {
    if (!slotFree(c, send.peer, head)) return false;
    std::memset(slot(c, head) + kCellsStart, 0, kPackedRegion - kCellsStart);
    at = kCellsStart;
  }
  const std::uint64_t index = open ? head : head - 1;
  char* s = slot(c, index);
  const std::size_t offset = placed(at);
  if (send.bytes > 0) std::memcpy(s + offset + sizeof(CellHeader), send.buf, send.bytes);
  const auto bytes = static_cast<std::uint16_t>(send.bytes);
  std::memcpy(s + offset + offsetof(CellHeader, bytes), &bytes, sizeof(bytes));
  marker(s + offset).store(cellMarker(index), std::memory_order_release);  // flags 0: zeroed
  if (open) publish(c, s, head, 0, kPacked);  // the slot's header last: its cells are written
  at = offset + cell;
  send.started = true;
  send.moved = send.bytes;
  return true;
}

// Ends the open packed slot: a closing cell after its last, which sends the reader to the next slot.
void ShmTransport::closePacked(Channel& c, int peer) {
  std::size_t& at = packedWrite_[static_cast<std::size_t>(peer)];
  const std::uint64_t index = c.head.value.load(std::memory_order_relaxed) - 1;  // the open slot's
  char* s = slot(c, index);
  std::memcpy(s + at + offsetof(CellHeader, flags), &kCellClosed, sizeof(kCellClosed));
  marker(s + at).store(cellMarker(index), std::memory_order_release);
  at = 0;
}

// 1. While a slot is free (the sender is fewer than kSlots fragments ahead of the receiver's
//    tail), copy the next fragment into it, then publish it.
bool ShmTransport::pushFragments(Pending& send) {
  Channel& c = channel(rank_, send.peer);
  if (send.bytes <= kPackedMaxBytes) return pushPacked(send, c);
  if (packedWrite_[static_cast<std::size_t>(send.peer)] != 0) closePacked(c, send.peer);
  std::uint64_t head = c.head.value.load(std::memory_order_relaxed);  // only this rank writes it
  if (singleCopyBytes_ > 0 && send.bytes >= singleCopyBytes_) {
    // A large message: one slot carries where it is; done when the receiver has read it.
    if (!send.started) {
      if (!slotFree(c, send.peer, head)) return false;
      char* s = slot(c, head);
      const Descriptor d{pid_, reinterpret_cast<std::uint64_t>(send.buf), send.bytes,
                         findSharedHost(send.buf, send.bytes).value_or(SharedHostSpan{})};
      std::memcpy(s + sizeof(SlotHeader), &d, sizeof(d));
      publish(c, s, head, static_cast<std::uint32_t>(sizeof(d)), kLast | kSingleCopy);
      send.started = true;
      send.ackTarget = ++singleCopySent_[static_cast<std::size_t>(send.peer)];
    }
    if (c.acked.value.load(std::memory_order_acquire) < send.ackTarget) return false;
    send.moved = send.bytes;
    return true;
  }
  while (!send.started || send.moved < send.bytes) {
    if (!slotFree(c, send.peer, head)) return false;  // full: the receiver must read
    const std::size_t n = std::min(kSlotPayload, send.bytes - send.moved);
    char* s = slot(c, head);
    copyIntoSlot(s, send.buf + send.moved, n);
    send.moved += n;
    send.started = true;
    publish(c, s, head++, static_cast<std::uint32_t>(n), send.moved == send.bytes ? kLast : 0u);
  }
  return true;
}

// Asks for the lines past the header's of the slot where a `bytes`-byte message's first fragment
// will be (a descriptor's, if it takes the single copy), while the receiver polls the header: the
// lines then cross between cores with the header's line, not after it is seen. Only a message's
// first fragment: in a stream of fragments the sender is writing the next slot while the receiver
// copies, and fetching those lines takes them from it mid-write (all_reduce through the slots at
// 2 ranks, 1-4 MiB: 10-18% slower when every fragment was prefetched).
void ShmTransport::prefetchFragment(const char* s, std::size_t bytes) const {
  const std::size_t fragment = singleCopyBytes_ > 0 && bytes >= singleCopyBytes_ ? sizeof(Descriptor) : std::min(bytes, kSlotPayload);
  for (std::size_t at = kCacheLine; at < sizeof(SlotHeader) + fragment; at += kCacheLine) __builtin_prefetch(s + at, 0, 3);
}

// 2. While the slot at the tail holds the next fragment (its sequence says so), copy it out (after
//    checking it fits what this receive expects), then free the slot by raising tail.
bool ShmTransport::popFragments(Pending& receive, bool readSingleCopies) {
  Channel& c = channel(receive.peer, rank_);
  std::uint64_t tail = c.tail.value.load(std::memory_order_relaxed);  // only this rank writes it
  for (;;) {
    if (packedRead_[static_cast<std::size_t>(receive.peer)] != 0) {
      if (const std::optional<bool> complete = popPacked(receive, c, tail)) return *complete;
      continue;  // that packed slot is closed: on to the next
    }
    char* s = slot(c, tail);
    if (receive.moved == 0) prefetchFragment(s, receive.bytes);
    if (sequence(s).load(std::memory_order_acquire) != tail + 1) return false;  // nothing yet
    SlotHeader header;
    std::memcpy(&header.bytes, s + offsetof(SlotHeader, bytes), sizeof(header.bytes));
    std::memcpy(&header.flags, s + offsetof(SlotHeader, flags), sizeof(header.flags));
    if ((header.flags & kPacked) != 0) {
      packedRead_[static_cast<std::size_t>(receive.peer)] = kCellsStart;
      continue;
    }
    if ((header.flags & kSingleCopy) != 0) {
      if (!readSingleCopies) return false;
      Descriptor d;
      std::memcpy(&d, s + sizeof(SlotHeader), sizeof(d));
      if (receive.moved != 0 || d.bytes != receive.bytes) {
        throw std::logic_error("ShmTransport: rank " + std::to_string(receive.peer) + " sent " + std::to_string(d.bytes) +
                               " bytes where rank " + std::to_string(rank_) + " posted " + std::to_string(receive.bytes));
      }
      readSingleCopy(receive, d);
      c.tail.value.store(++tail, std::memory_order_release);
      // Only this rank raises the channel's acked: the sender may now reuse its buffer.
      c.acked.value.store(c.acked.value.load(std::memory_order_relaxed) + 1, std::memory_order_release);
      return true;
    }
    const bool last = (header.flags & kLast) != 0;
    if (receive.moved + header.bytes > receive.bytes || last != (receive.moved + header.bytes == receive.bytes)) {
      throw std::logic_error("ShmTransport: rank " + std::to_string(receive.peer) + " sent a message that does not match the " +
                             std::to_string(receive.bytes) + " bytes rank " + std::to_string(rank_) + " posted");
    }
    const char* payload = s + sizeof(SlotHeader);
    if (header.bytes == 0) {
      // an empty fragment (a message of 0 bytes): nothing to copy, and its buffers may be null
    } else if (receive.local != nullptr) {
      // Fragments other than the last are whole slots (a multiple of every element size).
      const std::size_t element = sizeOf(receive.dtype);
      reduceHost(receive.buf + receive.moved, receive.local + receive.moved, payload, header.bytes / element, receive.dtype, receive.op);
    } else {
      std::memcpy(receive.buf + receive.moved, payload, header.bytes);
    }
    receive.moved += header.bytes;
    c.tail.value.store(++tail, std::memory_order_release);
    if (last) return true;
  }
}

std::optional<bool> ShmTransport::popPacked(Pending& receive, Channel& c, std::uint64_t& tail) {
  std::size_t& at = packedRead_[static_cast<std::size_t>(receive.peer)];
  char* s = slot(c, tail);
  for (;;) {
    std::uint32_t seen = marker(s + at).load(std::memory_order_acquire);
    const std::size_t next = nextLine(at);
    if (seen == 0 && at % kCacheLine != 0 && next + cellBytes(0) + sizeof(CellHeader) <= kPackedRegion &&
        marker(s + next).load(std::memory_order_acquire) != 0) {
      // A cell at the next line's start. One here was written before it, and so is seen now.
      seen = marker(s + at).load(std::memory_order_acquire);
      if (seen == 0) {
        at = next;
        continue;
      }
    }
    if (seen == 0) return false;  // nothing yet
    if (seen != cellMarker(tail)) {
      throw std::logic_error("ShmTransport: a packed cell from rank " + std::to_string(receive.peer) + " carries marker " +
                             std::to_string(seen) + " where " + std::to_string(cellMarker(tail)) + " was due");
    }
    CellHeader cell;
    std::memcpy(&cell.bytes, s + at + offsetof(CellHeader, bytes), sizeof(cell.bytes));
    std::memcpy(&cell.flags, s + at + offsetof(CellHeader, flags), sizeof(cell.flags));
    if (cell.flags == kCellClosed) {
      at = 0;
      c.tail.value.store(++tail, std::memory_order_release);  // the slot is free again
      return std::nullopt;
    }
    if (receive.moved != 0 || cell.bytes != receive.bytes) {
      throw std::logic_error("ShmTransport: rank " + std::to_string(receive.peer) + " sent a message that does not match the " +
                             std::to_string(receive.bytes) + " bytes rank " + std::to_string(rank_) + " posted");
    }
    const char* payload = s + at + sizeof(CellHeader);
    if (cell.bytes == 0) {
      // an empty message: nothing to copy, and its buffers may be null
    } else if (receive.local != nullptr) {
      reduceHost(receive.buf, receive.local, payload, cell.bytes / sizeOf(receive.dtype), receive.dtype, receive.op);
    } else {
      std::memcpy(receive.buf, payload, cell.bytes);
    }
    receive.moved = cell.bytes;
    at += cellBytes(cell.bytes);
    return true;
  }
}

void ShmTransport::readSingleCopy(Pending& receive, const Descriptor& from) {
  const auto pid = static_cast<pid_t>(from.pid);
  auto failed = [&] {
    throw std::runtime_error("ShmTransport: reading rank " + std::to_string(receive.peer) + "'s buffer with process_vm_readv failed (" +
                             std::strerror(errno) + "): the single-copy path needs cross-process memory access");
  };
  if (const char* mapped = from.shared.fd >= 0 ? peerMappings_.map(pid, from.shared, receive.bytes) : nullptr) {
    if (receive.local == nullptr) {
      std::memcpy(receive.buf, mapped, receive.bytes);
    } else {
      reduceHost(receive.buf, receive.local, mapped, receive.bytes / sizeOf(receive.dtype), receive.dtype, receive.op);
    }
  } else if (receive.local == nullptr) {
    if (!readFrom(pid, from.address, receive.buf, receive.bytes)) failed();
  } else {
    scratch_.resize(kReducePiece);
    const std::size_t element = sizeOf(receive.dtype);
    for (std::size_t done = 0; done < receive.bytes;) {
      const std::size_t n = std::min(kReducePiece, receive.bytes - done);
      if (!readFrom(pid, from.address + done, scratch_.data(), n)) failed();
      reduceHost(receive.buf + done, receive.local + done, scratch_.data(), n / element, receive.dtype, receive.op);
      done += n;
    }
  }
  receive.moved = receive.bytes;
}

bool ShmTransport::progress() { return progress(/*readSingleCopies=*/true); }

// Every peer's sends first, then the receives: a send's descriptor or first fragments go out
// before this rank spends milliseconds reading a peer's large buffer, so ranks exchanging large
// messages read each other's at the same time, not in turn.
bool ShmTransport::progress(bool readSingleCopies) {
  bool moved = false;
  for (auto* queues : {&sends_, &receives_}) {
    for (auto& queue : *queues) {
      while (!queue.empty()) {
        Pending& p = queue.front();
        const std::size_t before = p.moved;
        const bool wasStarted = p.started;
        const bool finished = p.isSend ? pushFragments(p) : popFragments(p, readSingleCopies);
        moved = moved || p.moved != before || p.started != wasStarted || finished;
        if (!finished) break;
        finished_.push_back(p.id);
        queue.pop_front();
      }
    }
  }
  return moved;
}

void ShmTransport::wait(Request request) {
  auto pending = [&] {
    for (const auto* queues : {&sends_, &receives_}) {
      for (const auto& queue : *queues) {
        for (const Pending& p : queue) {
          if (p.id == request.id) return true;
        }
      }
    }
    return false;
  };
  if (!done(request) && !pending()) throw std::logic_error("wait on an unknown or finished request");
  for (int idle = 0; !done(request);) {
    if (progress()) {
      idle = 0;
    } else if (++idle >= idleBeforeYield_) {
      sched_yield();  // the peer may be waiting for this core
      idle = 0;
    }
  }
  const auto it = std::find(finished_.begin(), finished_.end(), request.id);
  *it = finished_.back();
  finished_.pop_back();
}

}  // namespace cclab
