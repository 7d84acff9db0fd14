// ccsim train: memory per GPU and step time of one training layout.

#include <cstdio>

#include <fmt/format.h>

#include "collectives/errors.h"
#include "results/results.h"

#include "results/json_reader.h"
#include "sim/cli/commands.h"
#include "sim/cli/training_options.h"
#include "results/training_record.h"
#include "sim/training/measured.h"
#include "sim/training/report.h"

namespace cclab::sim::cli {
namespace {

struct TrainOptions {
  TrainingOptions training;
  std::string trace;    // --trace: the step's timeline as Chrome trace JSON
  std::string compare;  // --compare: a training measurement to put beside the prediction
  int warmup = 1;       // --warmup: measured steps left out of the comparison
};

// The prediction beside the measurement, one row per quantity both have.
std::string comparisonText(const std::vector<MeasuredRow>& rows, const results::TrainingMeasurement& m) {
  std::string text = fmt::format("# measured: {} ({}, {} step{})\n", m.source, m.format, m.steps.size(), m.steps.size() == 1 ? "" : "s");
  text += fmt::format("{:<24} {:>14} {:>14} {:>9}\n", "", "predicted", "measured", "error");
  for (const MeasuredRow& r : rows) {
    auto value = [&](double v) {
      if (r.unit == "bytes") return fmt::format("{:.2f} GiB", v / (1024.0 * 1024 * 1024));
      if (r.unit == "fraction") return fmt::format("{:.1f}%", 100 * v);
      return fmt::format("{:.4g} {}", v, r.unit);
    };
    text += fmt::format("{:<24} {:>14} {:>14} {:>+8.1f}%\n", r.what, value(r.predicted), value(r.measured), r.errorPct());
  }
  return text;
}

int run(const TrainOptions& options) {
  const TrainingOptions& o = options.training;
  const TrainingRun run = runTraining(o.settings());
  if (!options.trace.empty()) {
    if (run.graph.tasks.empty()) throw InputError("--trace needs a model's shape (--model), not --params");
    const std::string title = fmt::format("ccsim train: {} on {} ({})", run.modelName, run.job.name, describeLayout(run.estimate.config));
    results::writeFileAtomically(options.trace, chromeTrace(run.graph, run.timeline, title));
  }
  std::vector<MeasuredRow> rows;
  results::TrainingMeasurement measured;
  if (!options.compare.empty()) {
    if (run.graph.tasks.empty()) throw InputError("--compare needs a model's shape (--model), not --params");
    measured = results::readTraining(options.compare);
    // A run of other settings is no check of these: where the file says what it ran, it must match.
    const TrainConfig& c = run.estimate.config;
    if (measured.globalBatch > 0 && measured.globalBatch != c.globalBatch) {
      throw InputError(fmt::format("--compare {}: it ran a global batch of {}, the prediction {} (give --global-batch {})", measured.source,
                                   measured.globalBatch, c.globalBatch, measured.globalBatch));
    }
    if (measured.ranks > 0 && measured.ranks != c.gpus) {
      throw InputError(fmt::format("--compare {}: it ran on {} GPUs, the prediction on {} (give --gpus {})", measured.source, measured.ranks,
                                   c.gpus, measured.ranks));
    }
    rows = compareWithMeasurement(run.estimate, measured, options.warmup);
  }
  std::string text;
  if (o.json()) {
    results::Json j = toJson(run.estimate, run.modelName, run.job);
    if (!rows.empty()) {
      results::Json compared = results::Json::array();
      for (const MeasuredRow& r : rows) {
        compared.push_back({{"what", r.what}, {"unit", r.unit}, {"predicted", r.predicted}, {"measured", r.measured}, {"error_pct", r.errorPct()}});
      }
      j["measured"] = {{"file", measured.source}, {"format", measured.format}, {"warmup_steps", options.warmup}, {"rows", compared}};
    }
    text = results::dumpJson(j, 2) + "\n";
  } else {
    text = formatReport(run.estimate, run.modelName, run.job);
    if (!rows.empty()) text += comparisonText(rows, measured);
  }
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
  cmd->add_option("--compare", o->compare,
                  "a measured run of the same settings to put beside the prediction: a cclab training record, a "
                  "Megatron-LM or DeepSpeed log, a PyTorch profiler trace, torch.cuda.memory_stats() JSON")
      ->type_name("FILE");
  cmd->add_option("--warmup", o->warmup, "--compare: measured steps left out as warm-up (default 1)")->check(CLI::Range(0, 1000000));
  return [o] { return run(*o); };
}

}  // namespace cclab::sim::cli
