// ccreport: CI reports from results files. `ccreport compare` judges current results against a
// baseline (exit 1 on a regression), `ccreport accuracy` the simulator's predictions against
// measurements (exit 1 past the error limits). See docs/ci.md.
//
// Exit codes: 0 pass, 1 a regression or a failed gate, 2 bad input (one line on stderr), 128 + the
// signal on SIGINT/SIGTERM.

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>

#include <CLI/CLI.hpp>

#include "results/json_reader.h"
#include "collectives/errors.h"
#include "collectives/sizes.h"
#include "report/accuracy.h"
#include "report/compare.h"
#include "report/training_compare.h"
#include "report/formats.h"
#include "results/interrupts.h"

namespace {

using namespace cclab;
using namespace cclab::report;

struct Outputs {
  std::string markdown, junit, json, html, ccplan;
  bool quiet = false;
};

void addOutputs(CLI::App* cmd, Outputs& o) {
  cmd->add_option("--markdown", o.markdown, "also write GitHub-flavoured Markdown (e.g. $GITHUB_STEP_SUMMARY)");
  cmd->add_option("--junit", o.junit, "also write JUnit XML: a test case per row, a failure per regression");
  cmd->add_option("--json", o.json, "also write the report as JSON");
  cmd->add_option("--html", o.html, "also write a self-contained HTML page with bandwidth charts");
  cmd->add_option("--ccplan", o.ccplan, "the ccplan that draws the HTML charts (default: $CCLAB_CCPLAN, beside ccreport, PATH)");
  cmd->add_flag("-q,--quiet", o.quiet, "print only the summary line");
}

// Writes every output asked for; the terminal gets the summary line first.
int publish(const Document& doc, const Outputs& o) {
  const bool colour = isatty(STDOUT_FILENO) && std::getenv("NO_COLOR") == nullptr;
  const std::string terminal = o.quiet ? doc.summary + "\n" : toTerminal(doc, colour);
  std::fputs(terminal.c_str(), stdout);
  if (!o.markdown.empty()) results::writeFileAtomically(o.markdown, toMarkdown(doc));
  if (!o.junit.empty()) results::writeFileAtomically(o.junit, toJUnit(doc));
  if (!o.json.empty()) results::writeFileAtomically(o.json, results::dumpJson(toJson(doc), 1) + "\n");
  if (!o.html.empty()) results::writeFileAtomically(o.html, toHtml(doc, renderCharts(doc.charts, findCcplan(o.ccplan))));
  return doc.failed ? 1 : 0;
}

// Fails before reading anything when an output could not be written.
void checkOutputs(const Outputs& o) {
  for (const std::string* path : {&o.markdown, &o.junit, &o.json, &o.html}) {
    if (!path->empty()) results::checkWritable(*path);
  }
}

}  // namespace

int main(int argc, char** argv) {
  results::installInterruptHandlers();  // SIGINT, SIGTERM: no temporary file or chart folder left, exit 128 + signal
  CLI::App app{"ccreport: CI regression and simulator-accuracy reports from cclab results and nccl-tests output", "ccreport"};
  app.require_subcommand(1);

  std::vector<std::string> baseline, current, predicted, measured;
  std::string latencyBytes = "64K", ignore, minBytes = "0";
  CompareSettings compareSettings;
  AccuracySettings accuracySettings;
  Outputs outputs;
  double maxMedian = -1, maxError = -1;
  int warmup = 1;  // training measurements: steps of each file left out

  CLI::App* cmp = app.add_subcommand("compare", "judge current results against a baseline (exit 1 on a regression)");
  cmp->add_option("--baseline", baseline,
                  "results files: ccbench/ccsim JSON or CSV, nccl-tests text logs or -J JSON; or training measurements (Megatron-LM or "
                  "DeepSpeed logs, PyTorch profiler traces, cclab training records), compared step by step")
      ->required();
  cmp->add_option("--current", current, "results files of the run to judge")->required();
  cmp->add_option("--threshold", compareSettings.thresholdPct, "a regression is a change worse than this (%)")
      ->capture_default_str()->check(finiteNumber(0, 1e6));
  cmp->add_option("--alpha", compareSettings.alpha, "significance level of the Mann-Whitney U test")->capture_default_str()->check(finiteNumber(0, 1));
  cmp->add_option("--min-samples", compareSettings.minSamples, "samples per side for the U test (fewer: threshold only)")
      ->capture_default_str()->check(finiteNumber(1, 1e6));
  cmp->add_option("--latency-bytes", latencyBytes, "rows smaller than this are judged on time, not bandwidth")->capture_default_str();
  cmp->add_option("--time-slack", compareSettings.timeSlackUs, "a time change of at most this many us is no change, whatever its percentage")
      ->capture_default_str()->check(finiteNumber(0, 1e12));
  cmp->add_flag("--either-way", compareSettings.eitherWay, "an improvement past the limits fails too (do two tools measure the same?)");
  cmp->add_option("--ignore", ignore, "fields not to match on, e.g. backend,algo or machine");
  cmp->add_flag("--allow-missing", compareSettings.allowMissing, "a baseline row missing from current is not a failure");
  cmp->add_option("--warmup", warmup, "training measurements: steps of each file left out as warm-up")->capture_default_str()->check(CLI::Range(0, 1000000));
  addOutputs(cmp, outputs);

  CLI::App* acc = app.add_subcommand("accuracy", "judge ccsim's predictions against measurements (exit 1 past the limits)");
  acc->add_option("--predicted", predicted, "results files of predictions (ccsim collective -J); not with training records");
  acc->add_option("--measured", measured,
                  "results files of measurements (ccbench, nccl-tests); or training records that carry their settings, "
                  "which the simulator predicts")
      ->required();
  acc->add_option("--warmup", warmup, "training records: steps left out as warm-up")->capture_default_str()->check(CLI::Range(0, 1000000));
  acc->add_option("--max-median-error", maxMedian, "fail when the median absolute error passes this (%)")->check(finiteNumber(0, 1e12));
  acc->add_option("--max-error", maxError, "fail when any row's absolute error passes this (%)")->check(finiteNumber(0, 1e12));
  acc->add_option("--min-bytes", minBytes, "judge only rows at least this large")->capture_default_str();
  acc->add_flag("--allow-missing", accuracySettings.allowMissing, "a measured row without a prediction is not a failure");
  addOutputs(acc, outputs);

  try {
    app.parse(argc, argv);
    rejectEmptyValues(app);
    checkOutputs(outputs);
    if (cmp->parsed()) {
      compareSettings.latencyBytes = parseSize(latencyBytes, "--latency-bytes");
      if (!ignore.empty()) compareSettings.ignore = parseFields(ignore, "--ignore");
      const std::vector<InputFile> baselineFiles = readInputs(baseline, "--baseline"), currentFiles = readInputs(current, "--current");
      const auto before = trainingMeasurements(baselineFiles, "--baseline"), after = trainingMeasurements(currentFiles, "--current");
      if (before && after) return publish(compareTraining(*before, *after, compareSettings, warmup), outputs);
      if (before || after) {
        throw InputError(fmt::format("{}: training measurements, and {} collective results: compare like with like",
                                     before ? "--baseline" : "--current", before ? "--current" : "--baseline"));
      }
      return publish(compareDocument(compare(loadSide(baselineFiles), loadSide(currentFiles), compareSettings), compareSettings), outputs);
    }
    if (maxMedian >= 0) accuracySettings.maxMedianErrorPct = maxMedian;
    if (maxError >= 0) accuracySettings.maxErrorPct = maxError;
    accuracySettings.minBytes = parseSize(minBytes, "--min-bytes");
    const std::vector<InputFile> measuredFiles = readInputs(measured, "--measured");
    if (const auto records = trainingMeasurements(measuredFiles, "--measured")) {
      if (!predicted.empty()) throw InputError("--predicted: training records are predicted from their settings; give --measured alone");
      return publish(trainingAccuracy(*records, accuracySettings, warmup), outputs);
    }
    if (predicted.empty()) throw InputError("--predicted: the predictions to judge (ccsim collective -J)");
    Side predictions = loadSide(predicted, "--predicted"), measurements = loadSide(measuredFiles);
    for (const LoadedRow& row : predictions.rows) {  // a measurement given as the predictions would judge itself
      if (row.row.backend != results::kPredictedBackend) {
        throw InputError(fmt::format("--predicted {}: its rows are measurements (backend '{}'), not ccsim collective -J's predictions",
                                     row.source, row.row.backend));
      }
    }
    if (!measurements.rows.empty() &&
        std::all_of(measurements.rows.begin(), measurements.rows.end(), [](const LoadedRow& r) { return r.row.backend == results::kPredictedBackend; })) {
      throw InputError(fmt::format("--measured {}: its rows are predictions (backend 'sim'), not measurements", measurements.rows.front().source));
    }
    return publish(accuracyDocument(accuracy(std::move(predictions), std::move(measurements), accuracySettings), accuracySettings), outputs);
  } catch (const CLI::Success& e) {
    return app.exit(e);  // --help: the help of the command asked about, exit 0
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "ccreport: error: %s\n", e.what());
    return kExitBadInput;
  } catch (...) {
    return reportError("ccreport", std::current_exception());  // InputError: exit 2; a bug: exit 70
  }
}
