#include "results/atomic_file.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>

#include <fmt/format.h>

#include "results/results.h"
#include "collectives/errors.h"

namespace cclab::results {
namespace {

// This host's name as it appears in temporary names: letters, digits, '.', '_' and '-' only.
const std::string& hostTag() {
  static const std::string tag = [] {
    char name[256] = {};
    if (::gethostname(name, sizeof(name) - 1) != 0 || name[0] == '\0') return std::string("localhost");
    std::string out(name, ::strnlen(name, 64));
    for (char& c : out) {
      const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '-';
      if (!plain) c = '_';
    }
    return out;
  }();
  return tag;
}

[[noreturn]] void cannotWrite(const std::filesystem::path& path, int error) {
  throw InputError(fmt::format("cannot write '{}': {}", path.string(), std::strerror(error)));
}

// The writer of `entry` if it is a temporary of the target named `name` written on this host:
// `.<name>.[<stage>.]tmp-<pid>[-<host>]` (no host: written before names carried it, taken as
// this host's). 0 otherwise.
pid_t localWriter(std::string_view entry, std::string_view name) {
  if (entry.size() < name.size() + 2 || entry[0] != '.' || entry.substr(1, name.size()) != name || entry[name.size() + 1] != '.') return 0;
  std::string_view rest = entry.substr(name.size() + 2);
  std::size_t stage = 0;
  while (stage < rest.size() && rest[stage] >= 'a' && rest[stage] <= 'z') ++stage;
  if (rest.substr(0, stage) == "tmp") stage = 0;
  else if (stage > 0 && stage < rest.size() && rest[stage] == '.') ++stage;
  else return 0;
  rest.remove_prefix(stage);
  if (!rest.starts_with("tmp-")) return 0;
  rest.remove_prefix(4);
  pid_t pid = 0;
  const auto [end, error] = std::from_chars(rest.data(), rest.data() + rest.size(), pid);
  if (error != std::errc() || end == rest.data() || pid <= 0) return 0;
  rest.remove_prefix(static_cast<std::size_t>(end - rest.data()));
  if (!rest.empty() && rest != "-" + hostTag()) return 0;
  return pid;
}

// A device, a pipe or a socket: something that exists, and is neither a file nor a folder.
bool isSpecial(const std::filesystem::path& path) {
  std::error_code ec;
  const std::filesystem::file_status status = std::filesystem::status(path, ec);  // through links
  return !ec && std::filesystem::exists(status) && !std::filesystem::is_regular_file(status) && !std::filesystem::is_directory(status);
}

}  // namespace

std::filesystem::path temporaryPath(const std::filesystem::path& target, std::string_view stage) {
  return target.parent_path() /
         fmt::format(".{}.{}{}tmp-{}-{}", target.filename().string(), stage, stage.empty() ? "" : ".", ::getpid(), hostTag());
}

int removeStaleTemporaries(const std::filesystem::path& target) {
  const std::string name = target.filename().string();
  if (name.empty()) return 0;
  std::filesystem::path folder = target.parent_path();
  if (folder.empty()) folder = ".";
  int removed = 0;
  std::error_code error;
  for (std::filesystem::directory_iterator it(folder, error), end; !error && it != end; it.increment(error)) {
    const std::string entry = it->path().filename().string();
    const pid_t pid = localWriter(entry, name);
    if (pid == 0 || pid == ::getpid()) continue;
    // Alive (kill succeeds, or is refused: someone else's process) or unknown: leave it.
    if (::kill(pid, 0) == 0 || errno != ESRCH) continue;
    if (::unlink(it->path().c_str()) == 0) ++removed;
  }
  return removed;
}

TemporaryFile::TemporaryFile(std::filesystem::path target, std::string_view stage) : target_(std::move(target)) {
  const bool special = isSpecial(target_);
  if (special && stage.empty()) {
    fd_ = ::open(target_.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd_ < 0) cannotWrite(target_, errno);
    direct_ = true;
    return;
  }
  std::error_code ec;
  if (!special && std::filesystem::is_symlink(target_, ec) && std::filesystem::exists(target_, ec)) {
    const std::filesystem::path pointed = std::filesystem::canonical(target_, ec);
    if (!ec) target_ = pointed;
  }
  // A device's scratch stage goes to the temporary folder, not beside the device.
  const std::filesystem::path beside = special ? std::filesystem::temp_directory_path() / target_.filename() : target_;
  removeStaleTemporaries(beside);
  temporary_ = temporaryPath(beside, stage);
  registered_.emplace(temporary_, RemoveOnInterrupt::Kind::File);  // before it exists: no window without
  fd_ = ::open(temporary_.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0) {
    const int error = errno;
    registered_.reset();
    cannotWrite(target_, error);
  }
}

TemporaryFile::~TemporaryFile() {
  if (fd_ < 0) return;
  ::close(fd_);
  if (!direct_) ::unlink(temporary_.c_str());
}

void TemporaryFile::fail(int error) {
  if (fd_ >= 0) {
    ::close(fd_);
    fd_ = -1;
    if (!direct_) ::unlink(temporary_.c_str());
  }
  registered_.reset();
  cannotWrite(target_, error);
}

void TemporaryFile::write(std::string_view bytes) {
  if (fd_ < 0) throw InputError(fmt::format("cannot write '{}': already closed", target_.string()));
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd_, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail(errno);
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
}

void TemporaryFile::append(TemporaryFile& source) {
  char block[64 * 1024];
  for (off_t at = 0;;) {
    const ssize_t n = ::pread(source.fd_, block, sizeof(block), at);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int error = errno;
      throw InputError(fmt::format("cannot read '{}': {}", source.temporary_.string(), std::strerror(error)));
    }
    if (n == 0) return;
    write(std::string_view(block, static_cast<std::size_t>(n)));
    at += n;
  }
}

void TemporaryFile::commit() {
  if (fd_ < 0) throw InputError(fmt::format("cannot write '{}': already closed", target_.string()));
  if (direct_) {  // nothing to sync or rename: the bytes went to the device as written
    const int fd = fd_;
    fd_ = -1;
    if (::close(fd) != 0) cannotWrite(target_, errno);
    return;
  }
  if (::fsync(fd_) != 0) fail(errno);
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0 || ::rename(temporary_.c_str(), target_.c_str()) != 0) {
    const int error = errno;
    ::unlink(temporary_.c_str());
    registered_.reset();
    cannotWrite(target_, error);
  }
  registered_.reset();
}

TemporaryFolder::TemporaryFolder(std::string_view prefix) {
  std::string name = (std::filesystem::temp_directory_path() / fmt::format("{}XXXXXX", prefix)).string();
  // No signal between creating the folder and registering it: it would be left behind.
  sigset_t interrupts, previous;
  sigemptyset(&interrupts);
  sigaddset(&interrupts, SIGINT);
  sigaddset(&interrupts, SIGTERM);
  ::pthread_sigmask(SIG_BLOCK, &interrupts, &previous);
  const bool made = ::mkdtemp(name.data()) != nullptr;
  const int error = errno;
  std::string problem;
  if (made) {
    path_ = name;
    try {
      registered_.emplace(path_, RemoveOnInterrupt::Kind::Tree);
    } catch (const InputError& e) {
      problem = e.what();
      ::rmdir(name.c_str());
    }
  }
  ::pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  if (!made) throw InputError(fmt::format("cannot create a folder '{}': {}", name, std::strerror(error)));
  if (!problem.empty()) throw InputError(problem);
}

TemporaryFolder::~TemporaryFolder() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

void writeFileAtomically(const std::filesystem::path& path, std::string_view content) {
  TemporaryFile file(path);
  file.write(content);
  file.commit();
}

void checkWritable(const std::filesystem::path& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw InputError(fmt::format("cannot write '{}': it is a directory", path.string()));
  if (isSpecial(path)) {  // a device or a pipe: opening one to probe it could block (a FIFO) or disturb it
    if (::access(path.c_str(), W_OK) != 0) cannotWrite(path, errno);
    return;
  }
  TemporaryFile probe(path);  // created, then removed
}

}  // namespace cclab::results
