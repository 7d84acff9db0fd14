// ccsim train: memory per GPU and step time of one training layout.

#include <cstdio>

#include <fmt/format.h>

#include "collectives/errors.h"
#include "results/results.h"

#include "results/json_reader.h"
#include "sim/cli/commands.h"
#include "sim/cli/training_options.h"
#include "sim/training/report.h"

namespace cclab::sim::cli {
namespace {

struct TrainOptions {
  TrainingOptions training;
  std::string trace;  // --trace: the step's timeline as Chrome trace JSON
};

int run(const TrainOptions& options) {
  const TrainingOptions& o = options.training;
  const TrainingRun run = runTraining(o.settings());
  if (!options.trace.empty()) {
    if (run.graph.tasks.empty()) throw InputError("--trace needs a model's shape (--model), not --params");
    const std::string title = fmt::format("ccsim train: {} on {} ({})", run.modelName, run.job.name, describeLayout(run.estimate.config));
    results::writeFileAtomically(options.trace, chromeTrace(run.graph, run.timeline, title));
  }
  const std::string text = o.json() ? results::dumpJson(toJson(run.estimate, run.modelName, run.job), 2) + "\n"
                                    : formatReport(run.estimate, run.modelName, run.job);
  std::fputs(text.c_str(), stdout);
  return 0;
}

}  // namespace

Run addTrainCommand(CLI::App& app) {
  auto o = std::make_shared<TrainOptions>();
  CLI::App* cmd = app.add_subcommand("train", "memory per GPU and step time of a training run (DDP, ZeRO/FSDP, TP, PP, 3D)");
  o->training.add(*cmd, /*layout=*/true);
  cmd->add_option("--trace", o->trace,
                  "write the step's simulated timeline as Chrome trace JSON (Perfetto, chrome://tracing)")
      ->type_name("FILE");
  return [o] { return run(*o); };
}

}  // namespace cclab::sim::cli
