// ccsim calibrate: fit a cluster description to measurements and say how well it fits.

#include <cstdio>

#include <fmt/format.h>

#include "results/json_reader.h"
#include "collectives/errors.h"
#include "collectives/sizes.h"
#include "results/training_record.h"
#include "sim/calibrate.h"
#include "sim/training/calibrate_step.h"
#include "sim/cli/commands.h"

namespace cclab::sim::cli {
namespace {

struct CalibrateOptions {
  std::vector<std::string> inputs;
  std::vector<std::string> training;  // --training: measured steps that carry their settings
  int warmup = 1;
  std::string cluster, output, ranks, minBytes = "0";
  std::string launches = "fastest";
  std::string cacheCapacity = "fit";
};

// The step model's interference fitted to the training records, as text.
std::string stepFitText(const StepFit& fit) {
  std::string text = fmt::format("# step model: compute_slowdown = comm_slowdown = {:.2f}, oversubscription_slowdown = {:.2f} fitted to {} training record{}\n",
                                 fit.slowdown, fit.oversubscription, fit.rows.size(), fit.rows.size() == 1 ? "" : "s");
  text += fmt::format("# {:<40} {:>12} {:>12} {:>12}\n", "record", "measured s", "before s", "fitted s");
  for (const StepFitRow& r : fit.rows) text += fmt::format("  {:<40} {:>12.4g} {:>12.4g} {:>12.4g}\n", r.source, r.measured, r.before, r.after);
  text += fmt::format("# step time median |error|: {:.1f}% before, {:.1f}% fitted\n", fit.medianErrorBeforePct, fit.medianErrorAfterPct);
  return text;
}

// Only training records: the cluster as given, with the fitted step model.
int runTrainingOnly(const CalibrateOptions& o) {
  if (o.cluster.empty()) throw InputError("--training without results files needs --cluster (the cluster to write the fit into)");
  results::checkWritable(o.output);
  std::vector<results::TrainingMeasurement> records;
  for (const std::string& path : o.training) records.push_back(results::readTraining(path));
  const StepFit fit = fitStepInterference(records, o.warmup);
  Cluster fitted = loadCluster(o.cluster);
  fitted.gpu.step.computeSlowdown = fitted.gpu.step.commSlowdown = fit.slowdown;
  fitted.gpu.step.oversubscriptionSlowdown = fit.oversubscription;
  results::writeFileAtomically(o.output, results::dumpJson(toJson(fitted), 2) + "\n");
  std::fputs((stepFitText(fit) + fmt::format("# wrote {}\n", o.output)).c_str(), stdout);
  return 0;
}

// The preset a results file was measured on, when --cluster is not given: the one whose `matches`
// strings appear in the device name the file records (longest match wins; sim/cluster.h).
std::string matchPreset(const std::vector<Measurement>& rows) {
  const results::Import first = results::readResults(rows.front().source);
  const std::string device = !first.file.run.gpuModel.empty() ? first.file.run.gpuModel : first.file.run.cpuModel;
  const std::string best = presetForDevice({device, first.file.run.cpuCores, first.file.run.cpuFamily});
  if (best.empty()) {
    // A CPU machine can be described where it runs (docs/ccbench.md, "--algo auto").
    const std::string describe = first.file.run.gpuModel.empty() ? ", or describe that machine there: scripts/describe_cpu_host.sh <name>" : "";
    throw InputError(fmt::format("{}: no cluster preset matches its device '{}': name the cluster it was measured on with --cluster{}",
                                 rows.front().source, device, describe));
  }
  return best;
}

int run(const CalibrateOptions& o) {
  if (o.inputs.empty() && o.training.empty()) throw InputError("give results files to fit the collectives, --training records to fit the step model, or both");
  if (o.inputs.empty()) return runTrainingOnly(o);
  const Launches launches = parseLaunches(o.launches, "--launches");
  if (o.cacheCapacity != "fit" && o.cacheCapacity != "described") {
    throw InputError("--cache-capacity: '" + o.cacheCapacity + "' is neither 'fit' nor 'described'");
  }
  const std::vector<Measurement> all = loadMeasurements(o.inputs, launches);
  const std::vector<Measurement> rows =
      selectMeasurements(all, o.ranks.empty() ? std::vector<int>{} : parseRankList(o.ranks, "--ranks"),
                         static_cast<double>(parseSize(o.minBytes, "--min-bytes")));
  if (rows.empty()) throw InputError("no measured rows to fit (check the files, --ranks and --min-bytes)");
  results::checkWritable(o.output);
  const std::string clusterName = o.cluster.empty() ? matchPreset(rows) : o.cluster;
  const Cluster base = loadCluster(clusterName);
  const CalibrationReport report = calibrate(base, rows, o.cacheCapacity == "fit");
  if (report.groups.empty()) throw InputError("none of the rows could be fitted: " + (report.notes.empty() ? std::string() : report.notes.front()));

  std::string text = fmt::format("# ccsim calibrate: {} rows{} from {} file{} on cluster '{}'\n", rows.size(), repeatsNote(rows, launches),
                                 o.inputs.size(), o.inputs.size() == 1 ? "" : "s", base.name);
  text += fmt::format("# {:<6} {:<15} {:<9} {:<5} {:<5} {:>5} {:>9} {:>9} {:>9} {:>9} {:>9} {:>10} {:>18} {:>11} {:>6} {:>8} {:>8}\n", "impl",
                      "collective", "algo", "place", "link", "rows", "lat(us)", "over(us)", "pack(us)", "rdv(us)", "call(us)", "bw(GB/s)", "L2/L3 bw (GB/s)",
                      "fresh(GB/s)", "R2", "med|%|", "max|%|");
  for (const Calibration& g : report.groups) {
    std::string caches;
    for (double b : g.cacheBandwidthGBps) caches += fmt::format("{}{:.3g}", caches.empty() ? "" : "/", b);
    const std::string fresh = g.freshBandwidthGBps > 0 ? fmt::format("{:.4g}", g.freshBandwidthGBps) : "-";
    text += fmt::format("  {:<6} {:<15} {:<9} {:<5} {:<5} {:>5} {:>9.3f} {:>9.3f} {:>9.3f} {:>9.3f} {:>9.3f} {:>10.4g} {:>18} {:>11} {:>6.3f} {:>8.1f} {:>8.1f}\n",
                        g.implementation, name(g.collective), g.algo, g.inPlace ? "in" : "out", name(g.link), g.fit.rows,
                        g.latencyUs, g.oversubscribedLatencyUs, g.packedOversubscribedLatencyUs, g.rendezvousLatencyUs, g.callOverheadUs, g.bandwidthGBps, caches.empty() ? "-" : caches, fresh,
                        g.fit.r2, g.fit.medianAbsErrorPct, g.fit.maxAbsErrorPct);
  }
  for (const auto& link : report.linkFits) {
    text += fmt::format("# {} link refit from all its rows (used where no group above applies): {} rows, R2 {:.3f}, median |error| {:.1f}%, max {:.1f}%\n", name(link.link),
                        link.quality.rows, link.quality.r2, link.quality.medianAbsErrorPct, link.quality.maxAbsErrorPct);
  }
  if (report.copyFit.pairs > 0) {
    text += fmt::format("# device copies fitted from {} pairs of rows in and out of place: {:.2f} us each, {:.4g} GB/s copied (gpu.copy_latency_us, "
                        "gpu.copy_gbps)\n",
                        report.copyFit.pairs, report.copyFit.latencyUs, report.copyFit.copyGBps);
  }
  if (!report.cacheFits.empty()) {
    std::string levels;
    for (std::size_t l = 0; l < report.cacheFits.size(); ++l) {
      levels += fmt::format("{}caches[{}] {} of {}", levels.empty() ? "" : ", ", l, describeBytes(static_cast<std::size_t>(report.cacheFits[l].fittedBytes)),
                            describeBytes(static_cast<std::size_t>(report.cacheFits[l].describedBytes)));
    }
    text += fmt::format("# cache capacities fitted to these rows (intra_node.caches[].bytes): {} described (relative squared error {:.3g}, {:.3g} at the "
                        "described sizes)\n",
                        levels, report.relativeSquaredError, report.describedCachesError);
  }
  for (const auto& note : report.notes) text += "# note: " + note + "\n";
  text += fmt::format("# fit quality over {} rows (each with its group's fit): R2 {:.4f}, median |error| {:.1f}%, max |error| {:.1f}%\n",
                      report.overall.rows, report.overall.r2, report.overall.medianAbsErrorPct, report.overall.maxAbsErrorPct);
  Cluster fitted = report.fitted;
  if (!o.training.empty()) {
    std::vector<results::TrainingMeasurement> records;
    for (const std::string& path : o.training) records.push_back(results::readTraining(path));
    const StepFit fit = fitStepInterference(records, o.warmup);
    fitted.gpu.step.computeSlowdown = fitted.gpu.step.commSlowdown = fit.slowdown;
    fitted.gpu.step.oversubscriptionSlowdown = fit.oversubscription;
    text += stepFitText(fit);
  }
  results::writeFileAtomically(o.output, results::dumpJson(toJson(fitted), 2) + "\n");
  text += fmt::format("# wrote {}\n", o.output);
  std::fputs(text.c_str(), stdout);
  return 0;
}

}  // namespace

Run addCalibrateCommand(CLI::App& app) {
  auto o = std::make_shared<CalibrateOptions>();
  CLI::App* cmd = app.add_subcommand("calibrate", "fit a cluster's latency and bandwidth terms to measurements (least squares)");
  cmd->add_option("results", o->inputs, "ccbench results (JSON/CSV), nccl-tests text logs or -J JSON");
  cmd->add_option("--training", o->training,
                  "training records (schema cclab.training) that carry their settings: fit the step model's interference "
                  "(compute_slowdown = comm_slowdown) to their step times")
      ->type_name("FILE ...");
  cmd->add_option("--warmup", o->warmup, "--training: steps of each record left out as warm-up")->capture_default_str()->check(CLI::Range(0, 1000000));
  cmd->add_option("-o,--output", o->output, "the fitted cluster description to write")->required();
  cmd->add_option("--cluster", o->cluster, "the cluster measured (preset or file); default: the preset matching the results' device");
  cmd->add_option("--ranks", o->ranks, "fit only rows with these rank counts (e.g. 2,4)");
  cmd->add_option("--min-bytes", o->minBytes, "fit only rows at least this large")->capture_default_str();
  cmd->add_option("--launches", o->launches,
                  "a size measured in several launches (files, -N passes) counts as its fastest launch or their median")
      ->capture_default_str();
  cmd->add_option("--cache-capacity", o->cacheCapacity,
                  "shared memory: fit each cache level's capacity to the rows (fit) or keep the description's (described)")
      ->capture_default_str();
  return [o] { return run(*o); };
}

}  // namespace cclab::sim::cli
