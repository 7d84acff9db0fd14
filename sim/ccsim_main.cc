// ccsim: the analytic simulator (sim/cli/ccsim.cc has the commands). See docs/simulator.md.
#include "results/interrupts.h"
#include "sim/cli/commands.h"

int main(int argc, char** argv) {
  cclab::results::installInterruptHandlers();  // SIGINT, SIGTERM: no temporary file left, exit 128 + signal
  return cclab::sim::cli::runCcsim(argc, argv);
}
