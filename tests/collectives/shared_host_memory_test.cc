// Shared host buffers: what the registry finds, a mapping of another process's buffer seeing its
// bytes (the offset counted), the refusals that send a reader back to process_vm_readv, and
// HostDevice allocating its large buffers there.

#include "collectives/shared_host_memory.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>

#include "collectives/device.h"

namespace cclab {
namespace {

TEST(SharedHostMemory, FindsSpansInsideAnAllocationOnly) {
  constexpr std::size_t kBytes = 256 * 1024;
  auto* base = static_cast<char*>(allocateSharedHost(kBytes));
  ASSERT_NE(base, nullptr);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(base) % 4096, 0u);
  const auto whole = findSharedHost(base, kBytes);
  ASSERT_TRUE(whole.has_value());
  EXPECT_GE(whole->fd, 0);
  EXPECT_EQ(whole->offset, 0u);
  const auto middle = findSharedHost(base + 1000, 5000);
  ASSERT_TRUE(middle.has_value());
  EXPECT_EQ(middle->offset, 1000u);
  EXPECT_EQ(middle->region, whole->region);
  EXPECT_TRUE(findSharedHost(base + kBytes, 0).has_value());  // an empty span at the end
  EXPECT_FALSE(findSharedHost(base + 1, kBytes).has_value());  // one byte past the end
  EXPECT_FALSE(findSharedHost(base - 1, 2).has_value());
  int onTheStack = 0;
  EXPECT_FALSE(findSharedHost(&onTheStack, sizeof(onTheStack)).has_value());

  auto* other = static_cast<char*>(allocateSharedHost(kBytes));
  ASSERT_NE(other, nullptr);
  EXPECT_NE(findSharedHost(other, 1)->region, whole->region);  // each allocation its own region
  EXPECT_TRUE(releaseSharedHost(base));
  EXPECT_FALSE(releaseSharedHost(base));  // once
  EXPECT_FALSE(findSharedHost(base, 1).has_value());
  EXPECT_FALSE(releaseSharedHost(&onTheStack));
  EXPECT_TRUE(releaseSharedHost(other));
}

// A child process writes its buffer; the parent maps it through /proc and reads the bytes at the
// span's offset (a mapping that ignored the offset would read the pattern's start).
TEST(SharedHostMemory, AnotherProcessMapsTheBytesAtTheSpansOffset) {
  constexpr std::size_t kBytes = 1 << 20;
  constexpr std::size_t kOffset = 12345;
  int toParent[2], toChild[2];
  ASSERT_EQ(pipe(toParent), 0);
  ASSERT_EQ(pipe(toChild), 0);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    close(toChild[1]);  // so the parent's close is an EOF here
    close(toParent[0]);
    auto* buf = static_cast<char*>(allocateSharedHost(kBytes));
    if (buf == nullptr) _exit(1);
    for (std::size_t i = 0; i < kBytes; ++i) buf[i] = static_cast<char>(i % 251);
    const SharedHostSpan span = findSharedHost(buf + kOffset, 4096).value_or(SharedHostSpan{});
    if (write(toParent[1], &span, sizeof(span)) != sizeof(span)) _exit(2);
    char done = 0;
    (void)!read(toChild[0], &done, 1);  // keep the buffer (and its fd) until the parent is done: a byte or EOF
    _exit(0);
  }
  close(toParent[1]);  // a child that dies early gives EOF, not a read that waits forever
  close(toChild[0]);
  // However the test ends, the child is told to go (its pipe closed) and reaped.
  struct Reap {
    int fd;
    pid_t pid;
    ~Reap() {
      if (fd >= 0) close(fd);
      if (pid > 0) waitpid(pid, nullptr, 0);
    }
  } reap{toChild[1], child};
  SharedHostSpan span;
  ASSERT_EQ(read(toParent[0], &span, sizeof(span)), static_cast<ssize_t>(sizeof(span)));
  ASSERT_GE(span.fd, 0);
  EXPECT_EQ(span.offset, kOffset);
  {
    PeerMappings mappings;
    const char* at = mappings.map(child, span, 4096);
    ASSERT_NE(at, nullptr);
    for (std::size_t i = 0; i < 4096; ++i) ASSERT_EQ(at[i], static_cast<char>((kOffset + i) % 251)) << i;
    EXPECT_EQ(mappings.map(child, span, 4096), at);  // mapped once, kept
    SharedHostSpan past = span;
    past.offset = kBytes - 100;
    EXPECT_EQ(mappings.map(child, past, 101), nullptr);  // past the allocation's end
    EXPECT_NE(mappings.map(child, past, 100), nullptr);
  }
  close(reap.fd);
  reap.fd = -1;
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  reap.pid = -1;
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  // The process is gone: its /proc entry refuses, and the reader is told to read another way.
  PeerMappings mappings;
  EXPECT_EQ(mappings.map(child, span, 4096), nullptr);
  SharedHostSpan none;
  EXPECT_EQ(mappings.map(getpid(), none, 1), nullptr);  // not a shared allocation
  close(toParent[0]);
}

// More regions than it keeps: the oldest are unmapped, and mapping one again works.
TEST(SharedHostMemory, KeepsTheLatestMappingsAndMapsAgain) {
  std::vector<char*> buffers;
  for (std::size_t i = 0; i < PeerMappings::kKept + 3; ++i) {
    buffers.push_back(static_cast<char*>(allocateSharedHost(kSharedHostMinBytes)));
    ASSERT_NE(buffers.back(), nullptr);
    std::memset(buffers.back(), static_cast<int>(i + 1), kSharedHostMinBytes);
  }
  PeerMappings mappings;
  for (int round = 0; round < 2; ++round) {
    for (std::size_t i = 0; i < buffers.size(); ++i) {
      const char* at = mappings.map(getpid(), *findSharedHost(buffers[i], kSharedHostMinBytes), kSharedHostMinBytes);
      ASSERT_NE(at, nullptr) << i;
      EXPECT_EQ(at[kSharedHostMinBytes - 1], static_cast<char>(i + 1)) << i;
    }
  }
  for (char* b : buffers) EXPECT_TRUE(releaseSharedHost(b));
}

TEST(SharedHostMemory, HostDeviceSharesLargeBuffersUnlessToldNot) {
  HostDevice host;
  EXPECT_TRUE(host.sharedBuffers());
  void* large = host.allocate(kSharedHostMinBytes);
  void* small = host.allocate(kSharedHostMinBytes - 1);
  EXPECT_TRUE(findSharedHost(large, kSharedHostMinBytes).has_value());
  EXPECT_FALSE(findSharedHost(small, 1).has_value());
  host.setSharedBuffers(false);
  void* privateLarge = host.allocate(kSharedHostMinBytes);
  EXPECT_FALSE(findSharedHost(privateLarge, 1).has_value());
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(privateLarge) % 64, 0u);
  for (void* p : {large, small, privateLarge}) host.release(p);  // each back the way it came
  EXPECT_FALSE(findSharedHost(large, 1).has_value());
}

}  // namespace
}  // namespace cclab
