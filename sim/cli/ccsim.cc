// ccsim: the analytic simulator. `ccsim collective` predicts collectives, `ccsim calibrate` fits a
// cluster to measurements, `ccsim validate` compares them, `ccsim train` predicts a training run's
// memory and step time, `ccsim plan` searches layouts. See docs/simulator.md.
//
// Exit codes: 0 success, 2 bad input (one line on stderr naming the file, field or flag), 70 an
// internal error (a bug), 128 + signal when interrupted.

#include <cstdio>
#include <iostream>

#include <CLI/CLI.hpp>

#include "collectives/errors.h"
#include "collectives/sizes.h"
#include "sim/cli/commands.h"

namespace cclab::sim::cli {

int runCcsim(int argc, const char* const* argv) {
  using cclab::kExitBadInput;
  CLI::App app{"ccsim: predict collective times on described clusters, calibrated from measurements", "ccsim"};
  app.require_subcommand(1);
  const std::vector<std::string> args(argv, argv + argc);
  std::vector<std::pair<CLI::App*, cclab::sim::cli::Run>> commands;
  try {
    auto collective = cclab::sim::cli::addCollectiveCommand(app, args);
    commands.emplace_back(app.get_subcommand("collective"), collective);
    auto calibrate = cclab::sim::cli::addCalibrateCommand(app);
    commands.emplace_back(app.get_subcommand("calibrate"), calibrate);
    auto validate = cclab::sim::cli::addValidateCommand(app);
    commands.emplace_back(app.get_subcommand("validate"), validate);
    auto train = cclab::sim::cli::addTrainCommand(app);
    commands.emplace_back(app.get_subcommand("train"), train);
    auto plan = cclab::sim::cli::addPlanCommand(app);
    commands.emplace_back(app.get_subcommand("plan"), plan);
    // Name an unknown command rather than CLI11's "A subcommand is required".
    const std::string first = argc > 1 ? argv[1] : "";
    std::string known;
    bool isCommand = false;
    for (auto& [sub, run] : commands) {
      known += (known.empty() ? "" : ", ") + sub->get_name();
      isCommand = isCommand || sub->get_name() == first;
    }
    if (!first.empty() && first[0] != '-' && !isCommand) {
      std::fprintf(stderr, "ccsim: error: unknown command '%s' (commands: %s)\n", first.c_str(), known.c_str());
      return kExitBadInput;
    }
    app.parse(argc, argv);
    cclab::rejectEmptyValues(app);
    for (auto& [sub, run] : commands) {
      if (sub->parsed()) return run();
    }
  } catch (const CLI::CallForHelp&) {
    std::cout << app.help();
    return 0;
  } catch (const CLI::CallForAllHelp&) {
    std::cout << app.help("", CLI::AppFormatMode::All);
    return 0;
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "ccsim: error: %s\n", e.what());
    return kExitBadInput;
  } catch (...) {
    return cclab::reportError("ccsim", std::current_exception());  // InputError: exit 2; a bug: exit 70
  }
  return kExitBadInput;
}

}  // namespace cclab::sim::cli
