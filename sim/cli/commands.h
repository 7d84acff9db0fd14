#pragma once

// The ccsim subcommands. Each registers its options on the CLI11 app and returns the function
// that runs it (after parsing), which returns the exit code.

#include <functional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace cclab::sim::cli {

using Run = std::function<int()>;

Run addCollectiveCommand(CLI::App& app, const std::vector<std::string>& argv);
Run addCalibrateCommand(CLI::App& app);
Run addValidateCommand(CLI::App& app);
Run addTrainCommand(CLI::App& app);
Run addPlanCommand(CLI::App& app);

// ccsim itself: parses argv, runs the command, returns the exit code (never throws). ccsim's main
// calls it; so does the fuzz target of ccsim's command line.
int runCcsim(int argc, const char* const* argv);

// "2,4" -> {2, 4}; throws InputError naming the flag.
std::vector<int> parseRankList(const std::string& text, const std::string& flag);

}  // namespace cclab::sim::cli
