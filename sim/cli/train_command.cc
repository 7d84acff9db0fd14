// ccsim train: memory per GPU and step time of one training layout.

#include <cstdio>

#include <fmt/format.h>

#include "collectives/errors.h"
#include "sim/cli/commands.h"
#include "sim/cli/training_options.h"
#include "sim/training/estimate.h"
#include "sim/training/report.h"

namespace cclab::sim::cli {
namespace {

int run(const TrainingOptions& o) {
  const Cluster cluster = o.loadClusterShape();
  TrainConfig config = o.config(cluster);
  TrainingEstimate estimate;
  std::string modelName;
  const Cluster job = jobCluster(cluster, config.gpus);
  if (config.statesOnly) {
    ModelCard none;
    resolve(config, none, job);
    modelName = fmt::format("{:g} parameters", *o.params);
    estimate = estimateStates(*o.params, config, job);
  } else {
    const ModelCard model = o.loadModelCard();
    modelName = model.name;
    if (model.architecture != Architecture::Given && !o.seq && config.seq == 0) config.seq = model.maxPositions;
    resolve(config, model, job);
    TrainingPricer pricer(job);
    estimate = estimateTraining(model, config, pricer);
  }
  const std::string text = o.json ? toJson(estimate, modelName, job).dump(2) + "\n" : formatReport(estimate, modelName, job);
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
