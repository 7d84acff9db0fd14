#pragma once

// What an interrupted cclab tool leaves behind: nothing. Each tool registers what it must not leave
// (temporary files of writes in progress, scratch folders, a child process drawing into one) while
// that exists; SIGINT and SIGTERM, and ccbench's watchdog, remove what is registered and end the
// process with 128 + the signal. The registry is fixed-size and lock-free, so a signal handler can
// walk it (docs/reliability.md).

#include <sys/types.h>

#include <filesystem>

namespace cclab::results {

// Installs the handlers of SIGINT and SIGTERM every cclab tool uses: end the registered child
// processes, remove the registered paths, exit with 128 + the signal. A signal the process
// inherited as ignored (a background job of a non-interactive shell ignores SIGINT) stays ignored.
// Call once, early in main.
void installInterruptHandlers();

// Ends the registered child processes and removes the registered paths now. Async-signal-safe: for
// a signal handler, or a watchdog about to end the process.
void removeRegisteredPaths();

// Registers what to clean up on an interrupt for as long as this object lives; destroying it only
// unregisters (the owner removes the thing itself on its normal path). Throws InputError when the
// path is too long or the registry is full (it holds 32: a tool has a handful at a time).
class RemoveOnInterrupt {
 public:
  enum class Kind {
    File,          // a file: unlinked
    Tree,          // a folder: removed with everything in it
  };
  RemoveOnInterrupt(const std::filesystem::path& path, Kind kind);
  // A child process that leads its own process group: the group is killed (SIGKILL) and the child
  // reaped before any path is removed, so it cannot write into a folder being removed.
  explicit RemoveOnInterrupt(pid_t processGroup);
  ~RemoveOnInterrupt();
  RemoveOnInterrupt(const RemoveOnInterrupt&) = delete;
  RemoveOnInterrupt& operator=(const RemoveOnInterrupt&) = delete;

 private:
  int slot_;
};

}  // namespace cclab::results
