#pragma once

// The flags `ccsim train` and `ccsim plan` share: the model, the cluster, the GPUs and the training
// settings, collected as strings/values and turned into a ModelCard, Cluster and TrainConfig.

#include <memory>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "sim/cluster.h"
#include "sim/training/model_card.h"
#include "sim/training/train_config.h"

namespace cclab::sim::cli {

struct TrainingOptions {
  std::string model, cluster, deepspeed;
  std::optional<double> params;
  std::optional<int> nodes, gpusPerNode, gpus, dp, tp, pp, vpp, zero, globalBatch, microBatch, seq;
  std::string fsdp, precision, optimizer, recompute, flash = "on", sequenceParallel = "off", schedule, offload = "none", offloadDevice = "cpu";
  std::string overlap = "on", framework = "2G";
  std::optional<double> tokens;
  bool json = false;

  // Adds the flags to a subcommand; `layout` adds the parallel layout flags (train, not plan).
  void add(CLI::App& cmd, bool layout);
  // The pieces, validated; the config is not resolved yet.
  ModelCard loadModelCard() const;
  Cluster loadClusterShape() const;
  TrainConfig config(const Cluster& cluster) const;
};

}  // namespace cclab::sim::cli
