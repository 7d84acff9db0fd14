// A plan file (ccplan's Save plan; ccsim train --plan): applyJson + check, then the run it
// describes priced as ccsim train prices it (models and clusters by name from models/).
#include "results/json_reader.h"
#include "sim/training/report.h"
#include "sim/training/settings.h"
#include "tests/fuzz/fuzz_target.h"

CCLAB_FUZZ_TARGET(plan_file) {
  using namespace cclab;
  fuzz::expectRefusalOrSuccess([&] {
    sim::TrainingSettings settings;
    sim::applyJson(results::parseJson(input, "plan.json"), settings, "plan.json");
    settings.check();
    // Only names from models/: a fuzzed path must not read the machine's files.
    for (const std::string& name : {settings.model, settings.cluster, settings.deepspeed}) {
      if (name.find('/') != std::string::npos || name.ends_with(".json")) return;
    }
    if (!settings.deepspeed.empty()) return;
    const sim::TrainingRun run = sim::runTraining(settings);
    (void)sim::formatReport(run.estimate, run.modelName, run.job);
  });
}
