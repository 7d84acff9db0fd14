#pragma once

// The flags `ccsim train` and `ccsim plan` share: every training setting (sim/training/settings.h
// holds the one table of them) as a flag, plus --plan to read them from a plan file, where flags
// given on the command line win.

#include <map>
#include <string>

#include <CLI/CLI.hpp>

#include "sim/training/settings.h"

namespace cclab::sim::cli {

class TrainingOptions {
 public:
  // Adds the flags to a subcommand; `layout` adds the parallel layout flags (train, not plan).
  void add(CLI::App& cmd, bool layout);
  // The settings: the plan file's (if any), overridden by the flags given.
  TrainingSettings settings() const;
  bool json() const { return json_; }

 private:
  CLI::App* cmd_ = nullptr;
  bool layout_ = true;
  TrainingSettings flags_;
  std::string planFile_;
  std::map<std::string, std::string> refusedLayout_;  // plan: layout flags taken only to say why not
  bool json_ = false;
};

}  // namespace cclab::sim::cli
