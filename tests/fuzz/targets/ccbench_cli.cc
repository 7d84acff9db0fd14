// ccbench's command line: parseOptions (pure: no MPI), then what the driver derives from the
// options before any rank runs (the sizes of the sweep, the check of the root at 1 to 8 ranks);
// `ccbench train ...`: parseTrainOptions (ccsim train's settings and the run's flags).
#include <sstream>

#include "bench/options.h"
#include "bench/train/train_options.h"
#include "tests/fuzz/fuzz_target.h"
#include "tests/fuzz/targets/command_line.h"

CCLAB_FUZZ_TARGET(ccbench_cli) {
  using namespace cclab;
  const fuzz::CommandLine line = fuzz::commandLine("ccbench", input);
  const std::vector<const char*> argv = line.argv();
  fuzz::expectRefusalOrSuccess([&] {
    std::ostringstream help;
    if (line.args.size() > 1 && line.args[1] == "train") {
      (void)bench::parseTrainOptions(static_cast<int>(line.args.size()), argv.data(), help);
      return;
    }
    const auto options = bench::parseOptions(static_cast<int>(line.args.size()), argv.data(), help);
    if (!options) return;
    (void)bench::sweepSizes(*options);
    for (int ranks = 1; ranks <= 8; ++ranks) bench::checkForRanks(*options, ranks);
  });
}
