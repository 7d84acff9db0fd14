// ccsim's command line, run in-process (sim::cli::runCcsim) in a scratch folder, its output
// thrown away. Arguments holding '/' are left out so that a fuzzed path never reads or writes
// outside that folder (names of presets and cards still reach models/).
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "sim/cli/commands.h"
#include "tests/fuzz/fuzz_target.h"
#include "tests/fuzz/targets/command_line.h"

namespace {

void enterScratchFolder() {
  static const bool entered = [] {
    char folder[] = "/tmp/cclab-fuzz-ccsim-XXXXXX";
    if (::mkdtemp(folder) == nullptr || ::chdir(folder) != 0) std::abort();
    if (std::freopen("/dev/null", "w", stdout) == nullptr) std::abort();
    static const std::string scratch = folder;
    std::atexit([] { std::filesystem::remove_all(scratch); });
    return true;
  }();
  (void)entered;
}

}  // namespace

CCLAB_FUZZ_TARGET(ccsim_cli) {
  const cclab::fuzz::CommandLine line = cclab::fuzz::commandLine("ccsim", input);
  for (const std::string& arg : line.args) {
    if (arg.find('/') != std::string::npos) return;
  }
  enterScratchFolder();
  const std::vector<const char*> argv = line.argv();
  const int code = cclab::sim::cli::runCcsim(static_cast<int>(line.args.size()), argv.data());
  if (code == cclab::kExitInternalError) std::abort();  // an internal error is a bug: report it as a crash
}
