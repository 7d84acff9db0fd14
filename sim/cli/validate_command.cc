// ccsim validate: measured against predicted, row by row and by size range.

#include <cstdio>

#include <fmt/format.h>

#include "results/json_reader.h"
#include "results/results.h"
#include "collectives/errors.h"
#include "collectives/sizes.h"
#include "sim/cli/commands.h"
#include "sim/validate.h"

namespace cclab::sim::cli {
namespace {

struct ValidateOptions {
  std::vector<std::string> inputs;
  std::string cluster, ranks, minBytes = "0", jsonPath;
  std::string launches = "fastest";
  bool summaryOnly = false;
};

int run(const ValidateOptions& o) {
  const Cluster cluster = loadCluster(o.cluster);
  const Launches launches = parseLaunches(o.launches, "--launches");
  const std::vector<Measurement> rows =
      selectMeasurements(loadMeasurements(o.inputs, launches), o.ranks.empty() ? std::vector<int>{} : parseRankList(o.ranks, "--ranks"),
                         static_cast<double>(parseSize(o.minBytes, "--min-bytes")));
  if (rows.empty()) throw InputError("no measured rows to validate (check the files, --ranks and --min-bytes)");
  if (!o.jsonPath.empty()) results::checkWritable(o.jsonPath);
  const ValidationReport report = validate(cluster, rows);

  std::string text = fmt::format("# ccsim validate: {} rows{} against cluster '{}'\n", report.rows.size(), repeatsNote(rows, launches), cluster.name);
  if (!o.summaryOnly) {
    text += fmt::format("# {:<6} {:<15} {:<9} {:<5} {:>5} {:>12} {:>12} {:>12} {:>9} {:>6}  {}\n", "impl", "collective", "algo",
                        "place", "ranks", "size(B)", "meas(us)", "pred(us)", "error%", "calib", "predicted as");
    for (const auto& v : report.rows) {
      const results::Row& r = v.measurement->row;
      text += fmt::format("  {:<6} {:<15} {:<9} {:<5} {:>5} {:>12} {:>12.2f} {:>12.2f} {:>+9.1f} {:>6}  {}\n", r.backend,
                          name(r.collective), r.algo, r.inPlace ? "in" : "out", r.nranks, r.sizeBytes, r.timeUs, v.predictedUs,
                          v.errorPct, v.calibrated ? "yes" : "no", v.algo);
    }
  }
  // A range without rows has no error to show ("-"), not a perfect 0.0.
  auto percent = [](int rows, double value) { return rows > 0 ? fmt::format("{:.1f}", value) : std::string("-"); };
  text += "# summary: absolute error of the predicted time, by message size\n";
  text += fmt::format("# {:<16} {:>6} {:>12} {:>12}\n", "size", "rows", "median |%|", "max |%|");
  for (const auto& s : report.ranges) {
    text += fmt::format("  {:<16} {:>6} {:>12} {:>12}\n", s.label, s.rows, percent(s.rows, s.medianAbsErrorPct), percent(s.rows, s.maxAbsErrorPct));
  }
  if (report.byAlgorithm.size() > 1) {
    text += "# summary by algorithm: median |%| (rows) below 64 KiB and from 64 KiB\n";
    text += fmt::format("# {:<6} {:<15} {:<9} {:>10} {:>6} {:>10} {:>6}\n", "impl", "collective", "algo", "< 64 KiB", "rows",
                        ">= 64 KiB", "rows");
    auto median = [&](const results::ErrorSummary& e) { return percent(e.rows, e.medianAbsErrorPct); };
    for (const auto& a : report.byAlgorithm) {
      text += fmt::format("  {:<6} {:<15} {:<9} {:>10} {:>6} {:>10} {:>6}\n", a.backend, name(a.collective), a.algo, median(a.small),
                          a.small.rows, median(a.large), a.large.rows);
    }
  }
  for (const auto& note : report.notes) text += "# note: " + note + "\n";
  std::fputs(text.c_str(), stdout);
  if (!o.jsonPath.empty()) results::writeFileAtomically(o.jsonPath, results::dumpJson(toJson(report), 1) + "\n");
  return 0;
}

}  // namespace

Run addValidateCommand(CLI::App& app) {
  auto o = std::make_shared<ValidateOptions>();
  CLI::App* cmd = app.add_subcommand("validate", "compare measurements with the cluster's predictions");
  cmd->add_option("results", o->inputs, "ccbench results (JSON/CSV), nccl-tests text logs or -J JSON")->required();
  cmd->add_option("--cluster", o->cluster, "the (calibrated) cluster: preset or file")->required();
  cmd->add_option("--ranks", o->ranks, "validate only rows with these rank counts (e.g. 3,5)");
  cmd->add_option("--min-bytes", o->minBytes, "validate only rows at least this large")->capture_default_str();
  cmd->add_option("--launches", o->launches,
                  "a size measured in several launches (files, -N passes) counts as its fastest launch or their median")
      ->capture_default_str();
  cmd->add_option("--json", o->jsonPath, "also write the comparison as JSON");
  cmd->add_flag("--summary-only", o->summaryOnly, "print only the summary by size range");
  return [o] { return run(*o); };
}

}  // namespace cclab::sim::cli
