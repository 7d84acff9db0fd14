#include "results/interrupts.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstring>

#include <fmt/format.h>

#include "collectives/errors.h"

namespace cclab::results {
namespace {

// A slot moves Free -> Filling (claimed by one thread, being written) -> File/Tree/Process, and
// back to Free when unregistered or handled. Only the final states are acted on, so a handler that
// interrupts a registration in progress skips that slot.
enum State : int { Free, Filling, File, Tree, Process };

struct Slot {
  std::atomic<int> state{Free};
  pid_t pid = 0;
  char path[PATH_MAX];
};

constexpr int kSlots = 32;
Slot slots[kSlots];

int claim() {
  for (int i = 0; i < kSlots; ++i) {
    int expected = Free;
    if (slots[i].state.compare_exchange_strong(expected, Filling)) return i;
  }
  throw InputError(fmt::format("more than {} temporary files or folders at once", kSlots));
}

// Removes `name` in the folder `dirfd` with everything under it, using system calls only (no
// allocation, no stdio), as a signal handler must. Entries are re-read after each pass, as a
// folder's listing is not stable while entries are removed from it.
void removeTreeAt(int dirfd, const char* name, int depth) {
  if (::unlinkat(dirfd, name, 0) == 0 || errno == ENOENT) return;  // a file (or gone)
  const int fd = ::openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return;
  constexpr int kMaxDepth = 16;
  if (depth < kMaxDepth) {
    alignas(dirent64) char buffer[2048];
    for (bool removed = true; removed;) {
      removed = false;
      ::lseek(fd, 0, SEEK_SET);
      for (ssize_t n; (n = ::getdents64(fd, buffer, sizeof(buffer))) > 0;) {
        for (ssize_t at = 0; at < n;) {
          const auto* entry = reinterpret_cast<const dirent64*>(buffer + at);
          at += entry->d_reclen;
          const char* child = entry->d_name;
          if (std::strcmp(child, ".") == 0 || std::strcmp(child, "..") == 0) continue;
          removeTreeAt(fd, child, depth + 1);
          removed = true;
        }
      }
    }
  }
  ::close(fd);
  ::unlinkat(dirfd, name, AT_REMOVEDIR);
}

void onSignal(int signal) {
  removeRegisteredPaths();
  ::_exit(128 + signal);
}

}  // namespace

void removeRegisteredPaths() {
  const int savedErrno = errno;
  // Children first: a child drawing into a scratch folder must not write into it while it goes.
  for (Slot& slot : slots) {
    int expected = Process;
    if (slot.state.compare_exchange_strong(expected, Free)) {
      ::kill(-slot.pid, SIGKILL);
      while (::waitpid(slot.pid, nullptr, 0) < 0 && errno == EINTR) {
      }
    }
  }
  for (Slot& slot : slots) {
    int state = slot.state.load();
    if ((state == File || state == Tree) && slot.state.compare_exchange_strong(state, Free)) {
      if (state == File) ::unlink(slot.path);
      else removeTreeAt(AT_FDCWD, slot.path, 0);
    }
  }
  errno = savedErrno;
}

void installInterruptHandlers() {
  for (int signal : {SIGINT, SIGTERM}) {
    struct sigaction previous {};
    if (::sigaction(signal, nullptr, &previous) == 0 && previous.sa_handler == SIG_IGN) continue;
    struct sigaction action {};
    action.sa_handler = onSignal;
    sigemptyset(&action.sa_mask);
    sigaddset(&action.sa_mask, SIGINT);  // one cleanup at a time: the other signal waits for it
    sigaddset(&action.sa_mask, SIGTERM);
    ::sigaction(signal, &action, nullptr);
  }
}

RemoveOnInterrupt::RemoveOnInterrupt(const std::filesystem::path& path, Kind kind) {
  const std::string name = std::filesystem::absolute(path).string();  // the handler may run after a chdir
  if (name.size() >= PATH_MAX) throw InputError(fmt::format("path too long: '{}'", path.string()));
  slot_ = claim();
  std::memcpy(slots[slot_].path, name.c_str(), name.size() + 1);
  slots[slot_].state.store(kind == Kind::File ? File : Tree);
}

RemoveOnInterrupt::RemoveOnInterrupt(pid_t processGroup) {
  slot_ = claim();
  slots[slot_].pid = processGroup;
  slots[slot_].state.store(Process);
}

RemoveOnInterrupt::~RemoveOnInterrupt() {
  // Only if still registered: a handler may have taken the slot (and so the process is ending).
  int state = slots[slot_].state.load();
  if (state != Free && state != Filling) slots[slot_].state.compare_exchange_strong(state, Free);
}

}  // namespace cclab::results
