// How many collective predictions ccsim makes per second on one core (target: over a million),
// and how long `ccsim plan` takes to search GPT-3 175B on 1,024 GPUs (target: under a second).
//
//   ./build/benchmarks/sim_bench

#include <benchmark/benchmark.h>

#include <map>

#include "sim/predictor.h"
#include "sim/training/planner.h"
#include "sim/training/step_graph.h"

namespace {

using cclab::Collective;
using cclab::sim::Predictor;
using cclab::sim::Query;

Predictor& predictor(const char* preset, int nodes) {
  static std::map<std::pair<std::string, int>, Predictor> cache;
  auto key = std::make_pair(std::string(preset), nodes);
  auto it = cache.find(key);
  if (it == cache.end()) {
    cclab::sim::Cluster c = cclab::sim::loadCluster(preset);
    cclab::sim::reshape(c, nodes, std::nullopt);
    it = cache.emplace(key, Predictor(c)).first;
  }
  return it->second;
}

// One all_reduce prediction after another, sizes from 8 B to 8 GiB in turn: with one algorithm
// ("ring"), or with "auto" pricing every applicable algorithm and keeping the cheapest.
void BM_Predict(benchmark::State& state, const char* algo) {
  const Predictor& p = predictor("dgx-h100", static_cast<int>(state.range(0)));
  const int ranks = p.cluster().gpus(), nodes = p.cluster().nodes;
  double bytes = 8;
  for (auto _ : state) {
    benchmark::DoNotOptimize(p.predict(Query{Collective::AllReduce, algo, bytes, ranks, nodes, false, ""}));
    bytes = bytes > 8e9 ? 8 : bytes * 2;
  }
  state.SetItemsProcessed(state.iterations());
}

// Every collective in turn, with its own algorithm family.
void BM_PredictEveryCollective(benchmark::State& state) {
  const Predictor& p = predictor("dgx-a100", 64);
  const auto all = cclab::allCollectives();
  std::size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(p.predict(Query{all[i], "ring", 1 << 20, 512, 64, false, ""}));
    i = (i + 1) % all.size();
  }
  state.SetItemsProcessed(state.iterations());
}

// ccsim plan's whole search, as the command runs it: a fresh pricer (cold collective caches), every
// layout of GPT-3 175B on 128 DGX A100 nodes, global batch 1536, sequence 2048.
void BM_PlanGpt3On1024Gpus(benchmark::State& state) {
  const cclab::sim::ModelCard model = cclab::sim::loadModel("gpt3-175b");
  cclab::sim::Cluster cluster = cclab::sim::loadCluster("dgx-a100");
  cclab::sim::reshape(cluster, 128, std::nullopt);
  cclab::sim::TrainConfig base;
  base.gpus = 1024;
  base.globalBatch = 1536;
  base.seq = 2048;
  long layouts = 0;
  for (auto _ : state) {
    cclab::sim::TrainingPricer pricer(cluster);
    const cclab::sim::PlanResult r = cclab::sim::plan(model, base, pricer);
    benchmark::DoNotOptimize(r.best.data());
    layouts += r.explored;
  }
  state.SetItemsProcessed(layouts);  // layouts explored per second
}

// ccsim train's work for one layout, as the command does it: a fresh pricer, the step graph built
// and simulated. LLaMA-3 405B on 2048 DGX H100 nodes (16,384 GPUs), global batch 2048 x 8192
// tokens, full recompute; FSDP-style ZeRO-3 with tp 8, and 3D with tp 8 x pp 2 (126 layers divide
// by no larger power of two).
void BM_TrainLlama3_405bOn16384Gpus(benchmark::State& state, int pp, int zero) {
  const cclab::sim::ModelCard model = cclab::sim::loadModel("llama3-405b");
  const cclab::sim::Cluster cluster = cclab::sim::jobCluster(cclab::sim::loadCluster("dgx-h100"), 16384);
  cclab::sim::TrainConfig c;
  c.gpus = 16384;
  c.globalBatch = 2048;
  c.seq = 8192;
  c.tp = 8;
  c.pp = pp;
  c.recompute = cclab::sim::Recompute::Full;
  cclab::sim::setZeroStage(c, zero);
  cclab::sim::resolve(c, model, cluster);
  std::size_t tasks = 0;
  for (auto _ : state) {
    cclab::sim::TrainingPricer pricer(cluster);
    cclab::sim::StepGraph graph;
    const cclab::sim::TrainingEstimate e = cclab::sim::estimateTraining(model, c, pricer, &graph);
    benchmark::DoNotOptimize(e.step.total);
    tasks = graph.tasks.size();
  }
  state.counters["tasks"] = static_cast<double>(tasks);
}

BENCHMARK_CAPTURE(BM_TrainLlama3_405bOn16384Gpus, zero3_tp8, 1, 3)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_TrainLlama3_405bOn16384Gpus, zero1_tp8_pp2, 2, 1)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Predict, ring, "ring")->Arg(1)->Arg(2048);
BENCHMARK_CAPTURE(BM_Predict, auto, "auto")->Arg(1)->Arg(2048);
BENCHMARK(BM_PredictEveryCollective);
BENCHMARK(BM_PlanGpt3On1024Gpus)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
