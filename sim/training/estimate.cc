#include "sim/training/estimate.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "collectives/algorithms/algorithms.h"
#include "collectives/errors.h"
#include "sim/training/pipeline.h"
#include "sim/training/step_graph.h"
#include "sim/training/timeline.h"

namespace cclab::sim {

Cluster jobCluster(const Cluster& cluster, int gpus) {
  Cluster job = cluster;
  if (gpus <= cluster.gpusPerNode) {
    reshape(job, 1, gpus);
  } else {
    if (gpus % cluster.gpusPerNode != 0) {
      throw InputError(fmt::format("--gpus {} is not a whole number of {}-GPU nodes", gpus, cluster.gpusPerNode));
    }
    reshape(job, gpus / cluster.gpusPerNode, std::nullopt);
  }
  return job;
}

double TrainingPricer::seconds(Collective collective, double bytes, int ranks, int nodes) {
  if (ranks <= 1 || bytes <= 0) return 0;
  const Asked asked{collective, bytes, ranks, nodes};
  if (const auto known = prices_.find(asked); known != prices_.end()) return known->second;
  const Predictor& p = predictors_.forShape(Shape{ranks, nodes});
  // The library the frameworks call (NCCL on GPUs, MPI on CPUs) picks among its own algorithms,
  // priced by its calibration where the cluster has one; cclab's, its ring family (what ccbench train runs).
  const std::string_view algo = implementation_ == kOwnBackend ? "ring" : kLibraryCollective;
  const double seconds = p.predict(Query{collective, algo, bytes, ranks, nodes, false, implementation_}).timeUs * 1e-6;
  prices_.emplace(asked, seconds);
  return seconds;
}


TrainingEstimate estimateStates(double parameters, const TrainConfig& c, const Cluster& cluster) {
  TrainingEstimate e;
  e.parameters = parameters;
  e.config = c;
  e.memory = modelStates(parameters / (c.tp * c.pp), c, cluster);
  // The CUDA context and allocator take their allowance whatever the model (--framework-overhead).
  MemoryBreakdown& m = e.memory;
  m.frameworkBytes = c.frameworkBytes;
  m.other += m.frameworkBytes;
  m.total += m.frameworkBytes;
  m.settleFit();
  return e;
}

Interference interferenceOf(const Cluster& cluster, const TrainConfig& c) {
  Interference in;
  in.computeSlowdown = cluster.gpu.step.computeSlowdown;
  in.commSlowdown = cluster.gpu.step.commSlowdown;
  if (cluster.intra.kind == FabricKind::SharedMemory && cluster.intra.cores > 0) {
    // Ranks numbered as Megatron-LM numbers them (a stage's tensor and data-parallel ranks
    // adjacent), a node's placed on its cores round-robin as Open MPI's --map-by core does (how
    // cclab's scripts bind them): rank r on core (r mod ranks a node) mod cores of node r / ranks
    // a node.
    const int cores = cluster.intra.cores, perNode = std::max(1, cluster.gpusPerNode), perStage = c.tp * c.dp;
    in.oversubscription = cluster.gpu.step.oversubscriptionSlowdown;
    in.stageCores.resize(static_cast<std::size_t>(c.pp));
    for (int s = 0; s < c.pp; ++s) {
      std::vector<Interference::CoreShare>& shares = in.stageCores[static_cast<std::size_t>(s)];
      for (int r = s * perStage; r < (s + 1) * perStage; ++r) {
        const int core = r / perNode * cores + r % perNode % cores;
        auto it = std::find_if(shares.begin(), shares.end(), [&](const Interference::CoreShare& x) { return x.core == core; });
        if (it == shares.end()) shares.push_back({core, 1});
        else ++it->ranks;
      }
    }
  }
  return in;
}

StepTime stepTime(const Timeline& timeline) {
  auto part = [&](Part p) { return timeline.onPath[static_cast<std::size_t>(p)]; };
  StepTime s;
  s.compute = part(Part::Compute);
  s.tpComm = part(Part::TensorComm);
  s.ppComm = part(Part::PipeComm);
  s.dpComm = part(Part::DataComm);
  s.shardComm = part(Part::ShardComm);
  s.offload = part(Part::Offload);
  s.optimizer = part(Part::Optimizer);
  s.overhead = part(Part::Overhead);
  s.interference = timeline.interference;
  s.bubble = timeline.idle;
  s.total = timeline.makespan;
  return s;
}

TrainingEstimate estimateTraining(const ModelCard& model, const TrainConfig& c, TrainingPricer& pricer, StepGraph* graphOut,
                                  Timeline* timelineOut) {
  StepGraph graph = buildStepGraph(model, c, pricer);
  TrainingEstimate e = estimateTraining(model, c, pricer, graph, timelineOut);
  if (graphOut) *graphOut = std::move(graph);
  return e;
}

TrainingEstimate estimateTraining(const ModelCard& model, const TrainConfig& c, TrainingPricer& pricer, const StepGraph& graph,
                                  Timeline* timelineOut) {
  const Cluster& cluster = pricer.cluster();
  TrainingEstimate e;
  e.config = c;
  e.parameters = static_cast<double>(model.parameters());
  if (model.architecture != Architecture::Given) {
    for (int s = 0; s < c.pp; ++s) e.layersPerStage.push_back(stageLayers(model.layers, c.pp, s));
  }
  e.memory = trainingMemory(model, c, cluster);
  e.flops = trainingFlops(model, c);
  e.closedForm = closedFormStep(model, c, pricer);
  const PipelineShape shape{c.schedule, c.pp, c.accumulation, c.vpp};
  e.bubbleFraction = c.pp > 1 ? bubbleFraction(shape) : 0.0;
  e.bubbleOverIdeal = c.pp > 1 ? bubbleOverIdeal(shape) : 0.0;

  // The step: its graph simulated with the GPU's interference; the parts from the critical path.
  const GpuSpec::Step& knobs = cluster.gpu.step;
  Timeline timeline = simulate(graph, interferenceOf(cluster, c));
  e.step = stepTime(timeline);
  const StepTime& s = e.step;
  for (const Task& task : graph.tasks) {
    if (isCollective(task)) e.communication += task.seconds;
  }
  const double exposed = s.dpComm + s.shardComm;
  // The schedule's formula counts fill and drain; the timeline also counts stages waiting on a
  // slower one (the logits' stage), so the two differ wherever the stages are not alike.
  e.bubbleShare = c.pp > 1 && s.total > 0 ? s.bubble / s.total : 0.0;
  e.hiddenFraction = e.communication > 0 ? std::clamp(1 - exposed / e.communication, 0.0, 1.0) : 0.0;

  // Memory: what the timeline holds at its worst moment on its worst stage, on top of what stays
  // allocated all step, and the caching allocator's share on top of that.
  if (!graph.tasks.empty() && model.architecture != Architecture::Given) {
    std::size_t worst = 0;
    for (std::size_t k = 1; k < timeline.peakBytes.size(); ++k) {
      if (timeline.peakBytes[k] > timeline.peakBytes[worst]) worst = k;
    }
    MemoryBreakdown& m = e.memory;
    const bool gathers = c.sharding == StateSharding::Everything || c.sharding == StateSharding::EverythingWithinNode;
    m.activations = timeline.peakBytes[worst] - graph.residentBytes[worst];  // activations, logits, gathered layers
    // ZeRO-3's gathered layers are in the timeline's peak; DeepSpeed's reduction bucket stays.
    if (gathers) m.bufferBytes = moduleGatherReduceBucketBytes(c, parametersPerModelShard(model, c, e.parameters));
    m.allocatorBytes = knobs.allocatorOverhead * (m.parameters + m.gradients + m.optimizerStates + m.activations + m.bufferBytes);
    m.other = m.bufferBytes + m.frameworkBytes + m.allocatorBytes;
    m.total = m.parameters + m.gradients + m.optimizerStates + m.activations + m.other;
    m.settleFit();
  }

  const bool tokens = model.architecture != Architecture::Given;
  e.perSample = !tokens;
  e.samplesPerSecond = c.globalBatch / s.total;
  e.tokensPerSecond = tokens ? e.samplesPerSecond * c.seq : 0.0;
  e.peakFlopsPerGpu = peakFlops(cluster, c.precision);
  const double peak = e.peakFlopsPerGpu * c.gpus;
  e.mfu = e.flops.modelPerStep / (s.total * peak);
  e.hfu = e.flops.hardwarePerStep / (s.total * peak);
  if (tokens) {
    e.trainTokens = c.tokens.value_or(20 * e.parameters);  // Chinchilla-optimal by default
    e.trainSeconds = e.trainTokens / e.tokensPerSecond;
  } else {
    e.trainSamples = c.tokens.value_or(model.givenTrainSamples);
    e.trainSeconds = e.trainSamples / e.samplesPerSecond;
  }
  e.gpuHours = e.trainSeconds * c.gpus / 3600;
  e.costUsd = e.gpuHours * cluster.costPerGpuHourUsd;
  if (timelineOut) *timelineOut = std::move(timeline);
  return e;
}

}  // namespace cclab::sim
