// ccsim collective: a predicted sweep, printed exactly as ccbench prints a measured one.

#include <algorithm>
#include <cstdio>
#include <optional>

#include <fmt/format.h>

#include "results/json_reader.h"
#include "results/results.h"
#include "results/results_writer.h"
#include "results/text_format.h"
#include "collectives/errors.h"
#include "collectives/sizes.h"
#include "collectives/version.h"
#include "sim/cli/commands.h"
#include "sim/algorithms/algorithms.h"
#include "sim/predictor.h"

namespace cclab::sim::cli {
namespace {

struct CollectiveOptions {
  std::string collective, cluster, algo{kSimulatorPicks}, implementation, dtype = "float", op = "sum";
  SweepFlags sweep{"8", "128M", "1M", 2};
  int root = 0;
  std::optional<int> nodes, gpusPerNode;
  std::string jsonPath, csvPath;
  std::vector<std::string> argv;
};

int run(const CollectiveOptions& o) {
  Cluster cluster = loadCluster(o.cluster);
  reshape(cluster, o.nodes, o.gpusPerNode);
  const Collective collective = parseCollective(o.collective);
  const DataType dtype = parseDataType(o.dtype);
  const std::optional<ReduceOp> op = reduces(collective) ? std::optional(parseReduceOp(o.op)) : std::nullopt;
  const int ranks = cluster.gpus();
  if (hasRoot(collective) && (o.root < 0 || o.root >= ranks)) {
    throw InputError(fmt::format("-r {} is not a rank: this cluster has {} (0 to {})", o.root, ranks, ranks - 1));
  }
  const Sweep sweep = o.sweep.parse();  // sizes as ccbench sweeps them (same flags, same rules)
  if (!o.implementation.empty() && o.implementation != "mpi" && o.implementation != "cclab" && o.implementation != "nccl") {
    throw InputError(fmt::format("unknown --impl '{}' (valid: mpi, cclab, nccl)", o.implementation));
  }

  const Predictor predictor(cluster);
  if (o.algo != kSimulatorPicks && !isLibraryChoice(o.algo)) predictor.resolve(collective, o.algo);  // fail before printing
  if (!o.jsonPath.empty()) results::checkWritable(o.jsonPath);
  if (!o.csvPath.empty()) results::checkWritable(o.csvPath);

  // Rows are printed and streamed to the results files as they are predicted, so a sweep of any
  // length runs in bounded memory; the files appear complete, atomically, at the end.
  std::optional<results::ResultsWriter> writer;
  if (!o.jsonPath.empty() || !o.csvPath.empty()) writer.emplace(o.jsonPath, o.csvPath);
  results::RunInfo run = results::startRun("ccsim", version(), gitCommit(), o.argv);
  constexpr int kListedRanks = 64;
  for (int r = 0; r < std::min(ranks, kListedRanks); ++r) {
    run.ranks.push_back(results::RankPlacement{r, fmt::format("node{}", r / cluster.gpusPerNode), 0, -1, r % cluster.gpusPerNode,
                                               cluster.gpu.name, std::string(results::kPredictedBackend)});
  }
  const bool calibrated = std::any_of(cluster.calibrations.begin(), cluster.calibrations.end(),
                                      [&](const Calibration& c) { return c.implementation == o.implementation; });
  auto header = [&](const std::string& firstAlgo) {
    const std::string algoLabel = o.algo == kSimulatorPicks ? "auto (picked per size, below)" : firstAlgo;
    std::string text = fmt::format("# ccsim version {} (cclab commit {}): predictions, not measurements\n", version(), gitCommit());
    text += fmt::format("# Cluster: {} ({}), {} node{} x {} GPUs = {} ranks{}\n#\n# Using devices\n", cluster.name,
                        cluster.description, cluster.nodes, cluster.nodes == 1 ? "" : "s", cluster.gpusPerNode, ranks,
                        o.implementation.empty() ? "" : fmt::format(", calibration of '{}'{}", o.implementation, calibrated ? "" : " (none in this cluster: its described figures)"));
    for (const results::RankPlacement& place : run.ranks) text += results::rankLine(place) + "\n";
    if (ranks > kListedRanks) text += fmt::format("#  ... {} more ranks\n", ranks - kListedRanks);
    return text + "#\n" + results::testHeader(collective, results::kPredictedBackend, algoLabel, "");
  };

  struct Run {
    std::string algo;
    std::uint64_t first, last;
  };
  std::vector<Run> picked;  // auto: runs of consecutive sizes with the same algorithm
  double busbwSum = 0;
  std::size_t rows = 0;
  for (std::size_t bytes : sweepSizes(sweep)) {
    const std::size_t count = countForBytes(collective, bytes, dtype, ranks);
    const std::uint64_t size = bytesForCount(collective, count, dtype, ranks);
    results::Row pair[2];
    for (bool inPlace : {false, true}) {
      Query q{collective, o.algo, static_cast<double>(size), ranks, cluster.nodes, inPlace, o.implementation};
      const Prediction p = predictor.predict(q);
      results::Row& row = pair[inPlace ? 1 : 0];
      row.backend = results::kPredictedBackend;
      row.algo = p.algo;
      row.collective = collective;
      row.dtype = dtype;
      row.op = op;
      row.root = hasRoot(collective) ? o.root : -1;
      row.inPlace = inPlace;
      row.sizeBytes = size;
      row.count = count;
      row.nranks = ranks;
      results::setTime(row, p.timeUs);
      if (!inPlace) {
        if (picked.empty() || picked.back().algo != p.algo) picked.push_back({p.algo, size, size});
        picked.back().last = size;
      }
    }
    if (rows == 0) std::fputs(header(pair[0].algo).c_str(), stdout);
    std::fputs((results::resultLine(pair[0], pair[1]) + "\n").c_str(), stdout);
    for (const results::Row& row : pair) {
      busbwSum += row.busbwGBps;
      ++rows;
      if (writer) writer->add(row);
    }
  }

  std::string text = results::averageBusBandwidthLine(busbwSum, rows);
  if (o.algo == kSimulatorPicks) {
    text += "# auto picked (out of place):";
    for (std::size_t i = 0; i < picked.size(); ++i) {
      const Run& r = picked[i];
      const std::string sizes = r.first == r.last ? describeBytes(r.first) : describeBytes(r.first) + " - " + describeBytes(r.last);
      text += fmt::format("{} {} for {}", i == 0 ? "" : ";", r.algo, sizes);
    }
    text += "\n";
  }
  text += results::testConcluded(collective);
  std::fputs(text.c_str(), stdout);

  run.endTime = run.startTime;
  run.gpuModel = cluster.gpu.name;
  results::summarizeRanks(run);
  run.host = cluster.name;
  run.nranks = ranks;
  run.nodes = cluster.nodes;
  run.config = results::toJson(results::PredictionConfig{cluster.name, cluster.nodes, cluster.gpusPerNode, o.algo, o.implementation});
  if (writer) writer->finish(run);
  return 0;
}

}  // namespace

Run addCollectiveCommand(CLI::App& app, const std::vector<std::string>& argv) {
  auto o = std::make_shared<CollectiveOptions>();
  o->argv = argv;
  CLI::App* cmd = app.add_subcommand("collective", "predict a collective's time, algbw and busbw, in ccbench's format");
  cmd->add_option("name", o->collective, joinNames(allCollectives()))->required();
  cmd->add_option("--cluster", o->cluster, "a preset (models/clusters/) or a cluster JSON file")->required();
  cmd->add_option("--nodes", o->nodes, "override the node count");
  cmd->add_option("--gpus-per-node", o->gpusPerNode, "override the GPUs per node");
  std::string algos;
  for (const SimAlgorithm& a : simAlgorithms()) algos += fmt::format("{}, ", a.name);
  cmd->add_option("--algo", o->algo, fmt::format("{}{}, or {} (the simulator picks)", algos, kLibraryCollective, kSimulatorPicks))
      ->capture_default_str();
  cmd->add_option("--impl", o->implementation, "use the calibration fitted for this implementation (mpi, cclab, nccl)");
  addSweepFlags(*cmd, o->sweep);
  cmd->add_option("-d,--datatype", o->dtype, "datatype (sets the element count)")->capture_default_str();
  cmd->add_option("-o,--op", o->op, "reduction op (printed; it does not change the time)")->capture_default_str();
  cmd->add_option("-r,--root", o->root, "root rank")->capture_default_str();
  cmd->add_option("-J,--output_file", o->jsonPath, "write the predictions as a results file (backend sim)");
  cmd->add_option("--csv", o->csvPath, "write the predictions as CSV");
  return [o] { return run(*o); };
}

std::vector<int> parseRankList(const std::string& text, const std::string& flag) {
  std::vector<int> ranks;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = text.find(',', start);
    const std::string item = text.substr(start, comma - start);
    try {
      std::size_t used = 0;
      const int value = std::stoi(item, &used);
      if (used != item.size() || value < 1) throw std::invalid_argument(item);
      ranks.push_back(value);
    } catch (const std::exception&) {
      throw InputError(fmt::format("{} '{}': expected rank counts like 2,4", flag, text));
    }
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return ranks;
}

}  // namespace cclab::sim::cli
