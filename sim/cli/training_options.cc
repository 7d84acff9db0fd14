#include "sim/cli/training_options.h"

#include <fmt/format.h>

#include "collectives/errors.h"

namespace cclab::sim::cli {

void TrainingOptions::add(CLI::App& cmd, bool layout) {
  cmd_ = &cmd;
  layout_ = layout;
  cmd.add_option("--plan", planFile_, "read the settings from a plan file (ccplan's Save plan; keys are these flags' names)");
  forEachSetting(flags_, [&](std::string_view name, auto& field, std::string_view help, SettingScope scope) {
    if (scope == SettingScope::Layout && !layout) {
      // Hidden, so that giving one says why rather than "arguments were not expected".
      cmd.add_option("--" + std::string(name), refusedLayout_[std::string(name)])->group("");
      return;
    }
    CLI::Option* option = cmd.add_option("--" + std::string(name), field, std::string(help));
    // Show the defaults of settings that have one (on/off switches, the framework allowance).
    if constexpr (std::is_same_v<std::decay_t<decltype(field)>, std::string>) {
      if (!field.empty()) option->capture_default_str();
    }
  });
  cmd.add_flag("--json", json_, "print one JSON object instead of the report");
}

TrainingSettings TrainingOptions::settings() const {
  for (const auto& [name, value] : refusedLayout_) {
    const CLI::Option* option = cmd_->get_option_no_throw("--" + name);
    if (option != nullptr && option->count() > 0) {
      throw InputError(fmt::format("ccsim plan searches the layout itself: leave out --{} (ccsim train takes it)", name));
    }
  }
  if (planFile_.empty()) return flags_;
  TrainingSettings merged = readPlanFile(planFile_, /*skipLayout=*/!layout_);
  // Flags given on the command line win over the file: apply just those, through the same JSON.
  results::Json given = results::Json::object();
  const results::Json all = toJson(flags_);
  for (const auto& [key, value] : all.items()) {
    const CLI::Option* option = cmd_->get_option_no_throw("--" + key);
    if (option != nullptr && option->count() > 0) given[key] = value;
  }
  applyJson(given, merged, "the command line");
  return merged;
}

}  // namespace cclab::sim::cli
