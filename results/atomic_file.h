#pragma once

// Files written atomically, piece by piece: a temporary file beside the target, renamed over it
// when complete. writeFileAtomically() (results.h) is the one-piece case; ResultsWriter streams
// rows through these.
//
// A target that is a device or a pipe (/dev/stdout, /dev/null) is written in place: there is no
// file to replace, and renaming over it would put a regular file where the device was. A target
// reached through a symbolic link is replaced where the link points; the link stays.
//
// Temporary names are `.<name>.tmp-<pid>-<host>` (and `.<name>.<stage>.tmp-<pid>-<host>` for a
// scratch stage of the same target), so anyone can tell whose they are: creating one first
// removes the target's temporaries left by processes of this host that are no longer alive (a
// SIGKILL, a power cut), and leaves a live writer's, or another host's on a shared folder, alone.

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "results/interrupts.h"

namespace cclab::results {

class TemporaryFile {
 public:
  // Creates the temporary for `target` (after removing stale ones); `stage` names a scratch file
  // that is never renamed over the target ("rows"). Registered for removal on SIGINT/SIGTERM.
  // Throws InputError naming the target when it cannot be created.
  explicit TemporaryFile(std::filesystem::path target, std::string_view stage = "");
  // Not committed: the temporary is closed and removed.
  ~TemporaryFile();
  TemporaryFile(const TemporaryFile&) = delete;
  TemporaryFile& operator=(const TemporaryFile&) = delete;

  // Appends; on failure (a full disk) removes the temporary and throws InputError naming the
  // target and the reason ("cannot write 'r.json': No space left on device").
  void write(std::string_view bytes);
  // Appends everything written to `source` so far, a block at a time.
  void append(TemporaryFile& source);
  // fsync, close and rename over the target: the target is now complete. Throws as write().
  void commit();

  const std::filesystem::path& target() const { return target_; }
  const std::filesystem::path& path() const { return temporary_; }

 private:
  [[noreturn]] void fail(int error);
  std::filesystem::path target_, temporary_;
  int fd_ = -1;
  bool direct_ = false;  // the target is a device or a pipe: fd_ is the target itself
  std::optional<RemoveOnInterrupt> registered_;
};

// A scratch folder, `<system temporary folder>/<prefix>XXXXXX`, removed with everything in it on
// destruction (every way out of its scope, exceptions included) and on SIGINT/SIGTERM.
class TemporaryFolder {
 public:
  // Throws InputError when it cannot be created.
  explicit TemporaryFolder(std::string_view prefix);
  ~TemporaryFolder();
  TemporaryFolder(const TemporaryFolder&) = delete;
  TemporaryFolder& operator=(const TemporaryFolder&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
  std::optional<RemoveOnInterrupt> registered_;
};

// The temporary name of `target` for this process (`stage` as above).
std::filesystem::path temporaryPath(const std::filesystem::path& target, std::string_view stage = "");

// Removes the temporaries of `target` (any stage) left by processes of this host that are no
// longer alive; returns how many. Writers call it themselves; a temporary of a live process
// (even one whose pid was reused) is kept.
int removeStaleTemporaries(const std::filesystem::path& target);

}  // namespace cclab::results
