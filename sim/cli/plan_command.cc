// ccsim plan: the fastest layouts of a model on a cluster that fit in memory.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string_view>

#include <fmt/format.h>

#include "results/json_reader.h"
#include "collectives/errors.h"
#include "sim/cli/commands.h"
#include "sim/cli/training_options.h"
#include "sim/training/planner.h"
#include "sim/training/step_graph.h"
#include "sim/training/report.h"

namespace cclab::sim::cli {
namespace {

constexpr double kGiB = 1024.0 * 1024 * 1024;

struct PlanOptions {
  TrainingOptions training;
  PlanSearch search;
};

std::string table(const PlanResult& r) {
  // The placement column only where the search offloaded (else every row's is "-"), as wide as its
  // longest label.
  std::size_t width = std::string_view("offload").size();
  for (const TrainingEstimate& e : r.best) width = std::max(width, placementLabel(e.config).size());
  auto column = [&](const std::string& text) { return r.offloaded ? fmt::format("  {:<{}}", text, width) : std::string(); };
  auto placement = [&](const TrainConfig& c) { return column(placementLabel(c)); };
  std::string t = fmt::format("{:>4}  {:>5} {:>3} {:>3} {:>3}  {:<5}  {:>5}  {:<9}{}  {:>10}  {:>10}  {:>6}  {:>11}\n", "rank", "dp", "tp",
                              "pp", "vpp", "zero", "micro", "recompute", column("offload"), "step s",
                              "GiB/GPU", "MFU", "tokens/s");
  int rank = 0;
  for (const TrainingEstimate& e : r.best) {
    const TrainConfig& c = e.config;
    t += fmt::format("{:>4}  {:>5} {:>3} {:>3} {:>3}  {:<5}  {:>5}  {:<9}{}  {:>10.4g}  {:>10.2f}  {:>5.1f}%  {:>11.4g}\n", ++rank, c.dp, c.tp,
                     c.pp, c.vpp, c.shardingName, c.microBatch, name(c.recompute), placement(c), e.step.total, e.memory.total / kGiB,
                     100 * e.mfu, e.tokensPerSecond);
  }
  return t;
}

int run(const PlanOptions& o) {
  if (o.search.top < 1) throw InputError(fmt::format("--top must be at least 1 (got {})", o.search.top));
  if (o.search.maxMicroBatch < 1) throw InputError(fmt::format("--max-micro-batch must be at least 1 (got {})", o.search.maxMicroBatch));
  const auto [model, job, base] = planningInputs(o.training.settings());
  TrainingPricer pricer(job, base.collectives);

  const auto start = std::chrono::steady_clock::now();
  const PlanResult result = plan(model, base, pricer, o.search);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  if (o.training.json()) {
    results::Json plans = results::Json::array();
    for (const TrainingEstimate& e : result.best) plans.push_back(toJson(e, model.name, job));
    const results::Json j = {{"model", model.name},           {"cluster", job.name},          {"gpus", base.gpus},
                             {"global_batch", base.globalBatch}, {"seq", base.seq},            {"explored", result.explored},
                             {"not_dividing", result.notDividing}, {"not_fitting", result.notFitting}, {"fitting", result.fitting},
                             {"simulated", result.simulated},  {"pruned", result.pruned},     {"too_large", result.tooLarge},
                             {"offloaded", result.offloaded},  {"search_s", seconds},           {"plans", plans}};
    std::fputs((results::dumpJson(j, 2) + "\n").c_str(), stdout);
    return 0;
  }
  std::string text = fmt::format("# ccsim plan: {} on {} ({} GPUs: {} node{} x {}), global batch {}, seq {}, {} precision\n", model.name,
                                 job.name, base.gpus, job.nodes, job.nodes == 1 ? "" : "s", job.gpusPerNode, base.globalBatch, base.seq,
                                 name(base.precision));
  text += fmt::format("explored {} layouts in {:.2f} s: {} do not divide or break a rule, {} do not fit, {} simulated and fit, {} pruned by their closed form\n",
                      result.explored, seconds, result.notDividing, result.notFitting, result.fitting, result.pruned);
  if (result.tooLarge > 0) {
    text += fmt::format("{} layouts not simulated: more than {:g} tasks in a step (too many micro-batches; a larger micro-batch range helps)\n",
                        result.tooLarge, kMaxStepTasks);
  }
  if (result.offloaded) {
    text += fmt::format("nothing fit on the GPUs alone: searched again with the states offloaded to host memory{} (ZeRO-Offload, "
                        "ZeRO-Infinity), the checkpoints in host memory and tiles\n",
                        job.host.nvmeBandwidthGBps > 0 ? " and NVMe" : "");
  }
  if (result.best.empty() && result.simulated == 0 && result.tooLarge > 0) {
    text += "no layout simulated: each that divides has too many micro-batches a step; raise --max-micro-batch or lower --global-batch\n";
  } else if (result.best.empty()) {
    text += result.offloaded ? "no layout fits, on the GPUs alone or offloading: try more GPUs or a smaller micro-batch range\n"
                             : "no layout fits: try more GPUs or a smaller micro-batch range\n";
  } else {
    text += table(result);
    text += fmt::format("best: {}\n", describeLayout(result.best.front().config));
  }
  std::fputs(text.c_str(), stdout);
  return 0;
}

}  // namespace

Run addPlanCommand(CLI::App& app) {
  auto o = std::make_shared<PlanOptions>();
  CLI::App* cmd = app.add_subcommand("plan", "search data/tensor/pipeline layouts, ZeRO stage, micro-batch and recompute for the fastest that fit");
  o->training.add(*cmd, /*layout=*/false);
  cmd->add_option("--top", o->search.top, "how many plans to print")->capture_default_str();
  cmd->add_option("--max-micro-batch", o->search.maxMicroBatch, "largest micro-batch to try")->capture_default_str();
  return [o] { return run(*o); };
}

}  // namespace cclab::sim::cli
