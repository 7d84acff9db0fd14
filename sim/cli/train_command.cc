// ccsim train: memory per GPU and step time of one training layout.

#include <cstdio>

#include "results/json_reader.h"
#include "sim/cli/commands.h"
#include "sim/cli/training_options.h"
#include "sim/training/report.h"

namespace cclab::sim::cli {
namespace {

int run(const TrainingOptions& o) {
  const TrainingRun run = runTraining(o.settings());
  const std::string text = o.json() ? results::dumpJson(toJson(run.estimate, run.modelName, run.job), 2) + "\n"
                                    : formatReport(run.estimate, run.modelName, run.job);
  std::fputs(text.c_str(), stdout);
  return 0;
}

}  // namespace

Run addTrainCommand(CLI::App& app) {
  auto o = std::make_shared<TrainingOptions>();
  CLI::App* cmd = app.add_subcommand("train", "memory per GPU and step time of a training run (DDP, ZeRO/FSDP, TP, PP, 3D)");
  o->add(*cmd, /*layout=*/true);
  return [o] { return run(*o); };
}

}  // namespace cclab::sim::cli
