#include "sim/training/step_graph.h"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "collectives/errors.h"
#include "collectives/names.h"
#include "sim/training/compute.h"
#include "sim/training/estimate.h"
#include "sim/training/memory.h"
#include "sim/training/pipeline.h"
#include "sim/training/step_graph_tasks.h"

namespace cclab::sim {
namespace {

constexpr Named<Part> kPartNames[] = {{"compute", Part::Compute},     {"tensor_comm", Part::TensorComm}, {"pipeline_comm", Part::PipeComm},
                                      {"data_comm", Part::DataComm},  {"shard_comm", Part::ShardComm},   {"offload", Part::Offload},
                                      {"optimizer", Part::Optimizer}, {"overhead", Part::Overhead}};

constexpr Named<StreamKind> kStreamNames[] = {{"compute", StreamKind::Compute},
                                              {"gathers", StreamKind::Gather},
                                              {"reductions", StreamKind::Reduce},
                                              {"offload", StreamKind::Offload}};
constexpr Named<Pass> kPassNames[] = {
    {"forward", Pass::Forward}, {"backward", Pass::Backward}, {"recompute", Pass::Recompute}, {"step", Pass::Step}};

}  // namespace

std::string_view name(Part part) { return nameIn(kPartNames, part); }
std::string_view name(StreamKind stream) { return nameIn(kStreamNames, stream); }
std::string_view name(Pass pass) { return nameIn(kPassNames, pass); }

Placement placement(const TrainConfig& c, int gpusPerNode) {
  Placement p;
  const int dpMembersPerNode = c.tp * c.dp <= gpusPerNode ? c.dp : std::max(1, gpusPerNode / c.tp);
  p.dpNodes = std::max(1, c.dp / dpMembersPerNode);
  p.pipelineCrossesNodes = c.tp * c.dp >= gpusPerNode && c.pp > 1 && c.gpus > gpusPerNode;
  p.shardRanks = c.dp;
  p.shardNodes = p.dpNodes;
  if (c.sharding == StateSharding::EverythingWithinNode && c.dp > gpusPerNode / c.tp) {
    p.shardRanks = std::max(1, gpusPerNode / c.tp);
    p.shardNodes = 1;
    p.replicas = c.dp / p.shardRanks;
  }
  return p;
}

double estimatedStepTasks(const ModelCard& model, const TrainConfig& c) {
  // The most layers a stage has (an uneven split gives the ends fewer).
  const double layers = model.architecture != Architecture::Given ? std::max(1, (model.layers + c.pp - 1) / c.pp) : 1;
  // Per micro-batch and layer: forward, backward, recompute, and ZeRO-3's two gathers and a
  // scatter; per micro-batch and chunk two sends; then buckets, the optimizer and the rest.
  const bool gathers = c.sharding == StateSharding::Everything || c.sharding == StateSharding::EverythingWithinNode;
  const double perLayer = 2 + (c.recompute != Recompute::None ? 1 : 0) + (gathers ? 3 : 0);
  return static_cast<double>(c.pp) * (static_cast<double>(c.accumulation) * (perLayer * layers + 2 * c.vpp + 1) + layers + 64);
}

StepGraph buildStepGraph(const ModelCard& model, const TrainConfig& c, TrainingPricer& pricer) {
  const double estimatedTasks = estimatedStepTasks(model, c);
  if (estimatedTasks > kMaxStepTasks) {
    throw InputError(
        fmt::format("the step has {} micro-batches per pipeline of {} stage(s): about {:.3g} tasks to simulate, more than the "
                    "{:g} the timeline takes (a larger --micro-batch or a smaller --global-batch)",
                    c.accumulation, c.pp, estimatedTasks, kMaxStepTasks));
  }
  const Cluster& cluster = pricer.cluster();
  const int p = c.pp, m = c.accumulation, v = c.pp > 1 ? c.vpp : 1;
  const bool shaped = model.architecture != Architecture::Given;
  const Placement where = placement(c, cluster.gpusPerNode);
  const StateBytes per = stateBytesPerParameter(c.precision, c.optimizer);
  const double totalParameters = static_cast<double>(model.parameters());
  const double shard = parametersPerModelShard(model, c, totalParameters);
  const LayerTimes layer = layerTimes(model, c, cluster);

  StepGraph g;
  g.tasks.reserve(static_cast<std::size_t>(estimatedTasks));  // a deep pipeline's graph is large: grown once, not by doubling
  g.stages = p;
  // The kernels' GEMMs, shared by the tasks: the logits forward and backward, then each kind of
  // layer's forward, backward and attention alone (selective recompute).
  enum { kLogitsGemms, kLogitsBackwardGemms };
  enum { kForwardGemms, kBackwardGemms, kAttentionGemms };  // offsets from a layer kind's first set
  if (shaped) g.gemmSets = {layer.logitsGemms, backwardGemms(layer.logitsGemms)};
  g.microBatches = m;

  // Per layer, on one tensor-parallel rank: parameters and the activations one micro-batch keeps
  // for backward.
  const double layerShard = shaped ? static_cast<double>(model.layerParameters()) / c.tp : shard;  // the mean layer's
  // A layer as its tasks see it: its kernels, its GEMM sets, the activations it keeps for backward
  // and what recompute brings back for its backward, its parameters on one tensor rank. One kind
  // for a decoder or an encoder; an encoder-decoder has two, the encoder's layers (the model with
  // no cross-attention) and then the decoder's (a cross-attention in each), so the timeline holds
  // a decoder layer's larger recompute and gathers each layer's own parameters.
  struct LayerKind {
    LayerTimes times;
    int gemmSets = -1;  // its forward set in g.gemmSets; backward and attention follow
    double savedBytes = 0, recomputedBytes = 0, shard = 0;
    double gathered = 0;  // ZeRO-3: the parameters gathered at once, and the gradient held until reduced
    double backwardWorkBytes = 0;  // held while its backward runs (eager attention's gradients, tiling's input sums)
    double forwardWorkBytes = 0;   // held while its forward (or full recompute) runs: tiling's concatenations
  };
  auto kindOf = [&](const ModelCard& shape, const TrainConfig& config) {
    LayerKind k;
    k.times = layerTimes(shape, config, cluster);
    k.shard = shaped ? shape.layerParameters() / c.tp : shard;
    k.gathered = gatheredUnitParameters(shape, config, k.shard);
    if (!shaped) return k;
    k.gemmSets = static_cast<int>(g.gemmSets.size());
    const std::vector<Gemm>& forward = k.times.forwardGemms;
    g.gemmSets.push_back(forward);
    g.gemmSets.push_back(backwardGemms(forward));
    g.gemmSets.push_back(std::vector<Gemm>(forward.end() - 2, forward.end()));
    k.savedBytes = activationBytesPerLayer(shape, config);
    TrainConfig noRecompute = config;
    noRecompute.recompute = Recompute::None;
    if (config.recompute != Recompute::None) k.recomputedBytes = activationBytesPerLayer(shape, noRecompute) - k.savedBytes;
    const TilingWorkBytes tiling = tilingWorkBytes(shape, config);
    k.backwardWorkBytes = attentionGradientBytes(shape, config) + tiling.backward;
    k.forwardWorkBytes = tiling.forward;
    return k;
  };
  // With full recompute on some layers (recomputeLayers), each shape has a second kind: the
  // layers that keep their activations.
  const bool someRecompute = c.recompute == Recompute::Full && c.recomputeLayers > 0;
  TrainConfig kept = c;
  kept.recompute = Recompute::None;
  std::vector<LayerKind> kinds;  // per shape: the kind as configured, then (someRecompute) the kept one
  auto addKinds = [&](const ModelCard& shape) {
    kinds.push_back(kindOf(shape, c));
    if (someRecompute) kinds.push_back(kindOf(shape, kept));
  };
  int firstDecoderLayer = model.layers;  // layers from here on are the second shape's
  if (model.architecture == Architecture::EncoderDecoder) {
    ModelCard encoder = model, decoder = model;
    encoder.crossAttentionLayers = 0;
    decoder.crossAttentionLayers = decoder.layers;
    addKinds(encoder);
    addKinds(decoder);
    firstDecoderLayer = model.layers - model.crossAttentionLayers;  // one stage (resolve refuses --pp with it)
  } else {
    addKinds(model);
  }
  // Layer l of a stage of `stageLayerCount` layers.
  auto kindOfLayer = [&](int l, int stageLayerCount) -> const LayerKind& {
    const std::size_t perShape = someRecompute ? 2 : 1;
    const std::size_t shapeIndex = l >= firstDecoderLayer && kinds.size() > perShape ? 1 : 0;
    const bool keeps = someRecompute && !recomputesLayer(c, l, stageLayerCount);
    return kinds[shapeIndex * perShape + (keeps ? 1 : 0)];
  };
  TaskMaker make(model, c, pricer, where);
  g.tensorCollectives = make.tensorCollectives();
  // CPU checkpointing: a recomputing layer's checkpoint leaves the GPU after its forward and comes
  // back before its recompute, each a blocking copy on the compute stream (DeepSpeed's checkpoint
  // function moves it with .cpu() and .to(device)), at the host link's share of each GPU.
  // (resolve() allows it with full recompute only; a layer that keeps its activations has no recompute.)
  auto checkpointsToHost = [&](const LayerKind& kind) { return c.checkpointsOnHost && kind.times.recompute > 0; };
  auto checkpointCopy = [&](const LayerKind& kind, Pass pass, std::string label) {
    Task t;
    t.part = Part::Offload;
    t.pass = pass;
    t.seconds = kind.savedBytes / hostLinkBandwidth(cluster);
    (pass == Pass::Forward ? t.freesBytes : t.allocatesBytes) = kind.savedBytes;
    t.label = std::move(label);
    return t;
  };

  // Buffers, the framework allowance and what offload moves off the GPU, as the memory model
  // counts them on the stage that holds the most.
  const MemoryBreakdown states = trainingMemory(model, c, cluster);
  const bool gathers = c.sharding == StateSharding::Everything || c.sharding == StateSharding::EverythingWithinNode;

  // Every stage's passes in schedule order; each pass's tasks. What crosses stages (a forward's
  // input, a backward's gradient) is linked after all tasks exist.
  const auto orders = scheduleOrders(PipelineShape{c.schedule, p, m, v});
  // Per (stage, micro-batch, chunk): the task that sends a pass's output on, or that starts it (-1: none).
  const auto passIndex = [&](int stage, int mb, int chunk) { return (static_cast<std::size_t>(stage) * m + mb) * v + chunk; };
  const std::size_t passes = static_cast<std::size_t>(p) * m * v;
  std::vector<int> forwardSend(passes, -1), backwardSend(passes, -1), forwardFirst(passes, -1), backwardFirst(passes, -1);
  const bool reducesEveryMicroBatch = c.sharding == StateSharding::OptimizerGradients;  // ZeRO-2 keeps only its shard
  // A micro-batch's logits on the last stage (b x s x V/t): their values plus an fp32 copy for the
  // softmax and loss, from the logits' forward to their backward. Eager PyTorch's loss backward
  // also writes their gradient as a new fp32 tensor while those are alive (measured: the backward's
  // peak is the forward's end plus 4 bytes per logit, docs/training-validation.md "Memory of the eager loss");
  // a fused loss writes it in place.
  const double logits = static_cast<double>(c.microBatch) * c.seq * model.vocab / c.tp;
  const double savedLogitsBytes = logits * savedLogitBytes(c.precision);
  const double logitsGradientBytes = c.execution == Execution::Eager ? 4 * logits : 0.0;
  // T5's position biases: built by the first layer's forward, alive until its backward (the
  // gradient of one of them from the last layer's backward on). An encoder-decoder is one stage.
  const double biasBytes = positionBiasBytes(model, c);  // 0 without relative biases (and for a given model)
  const double biasGradientBytes = positionBiasGradientBytes(model, c);
  for (int s = 0; s < p; ++s) {
    StageBuilder stage(g, s);
    make.startStage();
    const bool last = s == p - 1;
    // The stage's layers (an uneven split gives the ends one fewer), its parameters and the part
    // of them outside the layers (embeddings, final norm, output head).
    const int layers = shaped ? stageLayers(model.layers, p, s) : 1;
    auto chunkLayers = [&](int chunk) {  // the stage's layers of one model chunk: [first, last)
      return std::pair{chunk * layers / v, (chunk + 1) * layers / v};
    };
    const double stageShard = shaped ? stageParameters(model, c, s) : shard;
    const double restShard = std::max(0.0, stageShard - layers * layerShard);
    // Model states resident all step (what modelStates counts; ZeRO-3 gathers the rest as it goes).
    const MemoryBreakdown stageStates = modelStates(stageShard, c, cluster);
    g.residentBytes.push_back(stageStates.parameters + stageStates.gradients + stageStates.optimizerStates + states.frameworkBytes +
                              (gathers ? moduleGatherReduceBucketBytes(c, stageShard) : states.bufferBytes));
    // Reductions of the gradients as DDP and ZeRO-1/2 issue them: buckets of bucketBytes filled in
    // backward order, a bucket's collective issued when its last gradient is produced.
    double bucketFill = 0;
    int bucketCount = 0;
    std::vector<int> reductions;
    int lastDataTask = -1;
    // The task the next compute task waits for: DeepSpeed's ZeRO-3 reduce-scatter without
    // overlap_comm (on the compute stream), or a gradient copy holding the host
    // (gradientOffloadHoldsTheHost), after which the host issues the next kernels.
    int computeWaitsFor = -1;
    // ZeRO-1/2 with the optimizer offloaded (DeepSpeed's ZeRO-Offload): after each bucket's
    // reduction, on its stream, the ranks owning parts of the bucket copy them to the host
    // (reduce_ipg_grads: copy_grads_in_partition). A rank owns a contiguous 1/dp of the flat
    // gradients, so a bucket no bigger than that lies in one or two ranks' parts and the step
    // waits for the owner's copy over its one link (ZeRO-Infinity's Sec. 6.1: ZeRO-Offload is
    // "limited by a single PCIe link"), the next reduction behind it; a bigger bucket spreads
    // over ceil(bucket / partition) owners, each copying its partition's part at once. What the
    // graph flushes at once (a layer's gradients, at least) is copied bucket by bucket. ZeRO-2
    // copies every micro-batch's, accumulating a 16-bit sum in host memory before the last
    // (accumulatedGradientCopyBytes); the last one's go into CPU-Adam's fp32 buffer. Each copy
    // holds the host where its host buffer is pageable (gradientOffloadHoldsTheHost).
    const double partition = stageShard / c.dp;  // parameters a rank owns
    auto offloadBucket = [&](int bucketIndex, int after, double flushed, int microBatch) {
      const double buckets = std::ceil(flushed / (c.bucketBytes / per.gradients));
      const double bucket = flushed / buckets;
      const double owners = std::ceil(bucket / partition);
      const int copying = static_cast<int>(std::min<double>(owners, cluster.gpusPerNode));
      Task t;
      t.stream = StreamKind::Reduce;
      t.part = Part::Offload;
      t.pass = Pass::Backward;
      const double linkBytes = reducesEveryMicroBatch ? accumulatedGradientCopyBytes(microBatch, m) : 4.0;
      t.seconds = buckets * gradientOffloadSeconds(cluster, c, std::min(bucket, partition), copying, linkBytes);
      t.allocatesBytes = t.freesBytes = gradientOffloadStagingBytes(model, c, std::min(bucket, partition));
      if (after >= 0) t.after.push_back(after);
      t.label = fmt::format("offload gradients bucket {}", bucketIndex);
      lastDataTask = stage.add(std::move(t));
      reductions.push_back(lastDataTask);
      // Without overlap the reductions wait for the whole backward (below); nothing waits in it.
      if (gradientOffloadHoldsTheHost(c) && c.overlapGradReduce) computeWaitsFor = lastDataTask;
    };
    auto flushBucket = [&](int producer, double bytes, Pass pass, int microBatch) {
      if (bytes <= 0) return;
      const bool offloads = gradientsOffloadedDuringBackward(c);
      if (c.dp <= 1 && !offloads) return;
      const int bucketIndex = bucketCount++;
      int reduced = producer;
      if (c.dp > 1) {
        const bool zero = zeroOneOrTwo(c.sharding);
        Task t = make.collective(StreamKind::Reduce, Part::DataComm, pass,
                                 {zero ? Collective::ReduceScatter : Collective::AllReduce, bytes, c.dp, where.dpNodes},
                                 fmt::format("{} bucket {}", zero ? "reduce-scatter" : "all-reduce", bucketIndex));
        if (producer >= 0) t.after.push_back(producer);
        reduced = lastDataTask = stage.add(std::move(t));
        reductions.push_back(lastDataTask);
      }
      if (offloads) offloadBucket(bucketIndex, reduced, bytes / per.gradients, microBatch);
    };
    // HYBRID_SHARD: each unit's gradient shard, once reduce-scattered inside the node, is
    // all-reduced across the replicas, as PyTorch FSDP issues it (_reduce_grad: per unit, on its
    // all-reduce stream, behind that unit's reduce-scatter), so it overlaps the rest of the backward.
    auto replicaAllReduce = [&](double unitShard, std::string label) {
      if (!gathers || where.replicas <= 1 || unitShard <= 0) return;
      Task t = make.collective(StreamKind::Reduce, Part::DataComm, Pass::Backward,
                               {Collective::AllReduce, unitShard * per.gradients / where.shardRanks, where.replicas, where.replicas,
                                Group::Replica},
                               std::move(label));
      t.after.push_back(lastDataTask);
      lastDataTask = stage.add(std::move(t));
    };
    std::map<int, int> gathered;  // ZeRO-3: the gather task of each layer for the pass in progress
    // ZeRO-Infinity's parameter offload: before a layer's gather, each rank brings its partition
    // of the layer back over PCIe (from host memory, or NVMe through it), on the offload stream and
    // issued as early as the gather's prefetch allows; the gather (or, unsharded, the layer's
    // compute) waits for it.
    const double offloadBandwidth = parameterFetchBandwidth(cluster, c);
    auto fetchOffloaded = [&](double unitShard, Pass pass, int after, std::string label) {
      if (c.offloadParams == OffloadTarget::None || offloadBandwidth <= 0 || unitShard <= 0) return -1;
      Task t;
      t.stream = StreamKind::Offload;
      t.part = Part::Offload;
      t.pass = pass;
      t.seconds = unitShard * per.parameters / (gathers && c.dp > 1 ? where.shardRanks : 1) / offloadBandwidth;
      if (after >= 0) t.after.push_back(after);
      t.label = std::move(label);
      return stage.add(std::move(t));
    };
    // ZeRO-3 with the optimizer offloaded: the last micro-batch's gradient partition of each layer
    // leaves the GPU after its reduce-scatter (gradientsOffloadedDuringBackward), to host memory
    // and with NVMe on to the drives. The copy of layer l is issued after the fetch of layer
    // l - 1, so that fetch, which the backward waits for, is not queued behind it.
    int pendingOffload = -1;
    double pendingOffloadShard = 0;
    auto issueGradientOffload = [&] {
      if (pendingOffload < 0) return;
      Task t;
      t.stream = StreamKind::Offload;
      t.part = Part::Offload;
      t.pass = Pass::Backward;
      t.seconds = gradientOffloadSeconds(cluster, c, pendingOffloadShard);
      t.allocatesBytes = t.freesBytes = gradientOffloadStagingBytes(model, c, pendingOffloadShard, where.shardRanks);
      t.after.push_back(pendingOffload);
      t.label = "offload gradients";
      lastDataTask = stage.add(std::move(t));
      if (gradientOffloadHoldsTheHost(c)) computeWaitsFor = lastDataTask;
      pendingOffload = -1;
    };
    auto addCompute = [&](Task t) {
      if (computeWaitsFor >= 0) t.after.push_back(computeWaitsFor), computeWaitsFor = -1;
      return stage.add(std::move(t));
    };
    int lastCompute = -1;
    for (const ScheduledPass& pass : orders[static_cast<std::size_t>(s)]) {
      const auto [first, end] = chunkLayers(pass.chunk);
      const int mb = pass.microBatch;
      const bool lastChunk = pass.chunk == v - 1;
      if (pass.forward) {
        // ZeRO-3/FSDP's root unit (embeddings, final norm): gathered once, before the first
        // forward, and kept until its gradients are reduce-scattered at the end of the step.
        int rootGather = -1;
        if (gathers && c.dp > 1 && s == 0 && restShard > 0 && mb == 0 && pass.chunk == 0) {
          const int fetch = fetchOffloaded(restShard, Pass::Forward, -1, "fetch offloaded root unit");
          Task t = make.collective(StreamKind::Gather, Part::ShardComm, Pass::Forward,
                                   {Collective::AllGather, restShard * per.parameters, where.shardRanks, where.shardNodes, Group::Shard},
                                   "all-gather root unit");
          t.allocatesBytes = restShard * per.parameters;
          if (fetch >= 0) t.after.push_back(fetch);
          rootGather = stage.add(std::move(t));
        }
        for (int l = first; l < end; ++l) {
          const LayerKind& kind = kindOfLayer(l, layers);
          int gather = -1;
          // FSDP's forward prefetch: the gather of layer l is issued once the forward of layer
          // l - 1 - prefetch has finished (at most prefetch + 1 layers gathered at once).
          const int ahead = l - 1 - c.prefetch;
          const int issue = ahead >= first && gathered.count(ahead) ? gathered[ahead] : -1;
          const int fetch = fetchOffloaded(kind.shard, Pass::Forward, issue, fmt::format("fetch offloaded L{} mb{}", l, mb));
          if (gathers && c.dp > 1) {
            Task t = make.collective(StreamKind::Gather, Part::ShardComm, Pass::Forward,
                                     {Collective::AllGather, kind.shard * per.parameters, where.shardRanks, where.shardNodes, Group::Shard},
                                     fmt::format("all-gather L{} mb{}", l, mb));
            t.allocatesBytes = kind.gathered * per.parameters;
            if (issue >= 0) t.after.push_back(issue);
            if (fetch >= 0) t.after.push_back(fetch);
            gather = stage.add(std::move(t));
          }
          Task t = make.compute(Pass::Forward, mb, l, kind.times.forward, kind.times.forwardKernels, shaped ? 2 : 0,
                                fmt::format("fwd L{} mb{}", l, mb));
          if (shaped) t.gemmSet = kind.gemmSets + kForwardGemms, t.memoryBytes = kind.times.forwardMemoryBytes;
          if (gather >= 0) t.after.push_back(gather);
          else if (fetch >= 0) t.after.push_back(fetch);
          if (l == first && rootGather >= 0) t.after.push_back(rootGather);
          t.allocatesBytes = kind.savedBytes + kind.forwardWorkBytes + (s == 0 && l == 0 ? biasBytes : 0.0);
          t.freesBytes = kind.forwardWorkBytes;
          if (gather >= 0) t.freesBytes += kind.gathered * per.parameters;  // resharded after forward
          lastCompute = addCompute(std::move(t));
          gathered[l] = lastCompute;
          if (l == first) forwardFirst[passIndex(s, mb, pass.chunk)] = lastCompute;
          if (checkpointsToHost(kind)) {
            lastCompute = addCompute(checkpointCopy(kind, Pass::Forward, fmt::format("checkpoint to host L{} mb{}", l, mb)));
          }
        }
        if (last && lastChunk && shaped) {
          Task t = make.compute(Pass::Forward, mb, -1, layer.logitsForward, 3, 0, fmt::format("logits+loss mb{}", mb));
          t.gemmSet = kLogitsGemms;
          t.memoryBytes = layer.logitsForwardBytes;
          t.allocatesBytes = savedLogitsBytes;
          lastCompute = addCompute(std::move(t));
        } else if (p > 1) {
          lastCompute = stage.add(make.pipeSend(Pass::Forward, mb, "activations"));
          forwardSend[passIndex(s, mb, pass.chunk)] = lastCompute;
        }
      } else {
        if (last && lastChunk && shaped) {
          Task t = make.compute(Pass::Backward, mb, -1, layer.logitsBackward, 3, 0, fmt::format("logits backward mb{}", mb));
          t.gemmSet = kLogitsBackwardGemms;
          t.memoryBytes = layer.logitsBackwardBytes;
          t.allocatesBytes = logitsGradientBytes;
          t.freesBytes = savedLogitsBytes + logitsGradientBytes;
          lastCompute = addCompute(std::move(t));
          backwardFirst[passIndex(s, mb, pass.chunk)] = lastCompute;
        }
        for (int l = end - 1; l >= first; --l) {
          const LayerKind& kind = kindOfLayer(l, layers);
          int gather = -1;
          const int ahead = l + 1 + c.prefetch;
          const int issue = ahead < end && gathered.count(ahead) ? gathered[ahead] : -1;
          const int fetch = fetchOffloaded(kind.shard, Pass::Backward, issue, fmt::format("fetch offloaded L{} mb{} (backward)", l, mb));
          issueGradientOffload();
          if (gathers && c.dp > 1) {
            Task t = make.collective(StreamKind::Gather, Part::ShardComm, Pass::Backward,
                                     {Collective::AllGather, kind.shard * per.parameters, where.shardRanks, where.shardNodes, Group::Shard},
                                     fmt::format("all-gather L{} mb{} (backward)", l, mb));
            t.allocatesBytes = kind.gathered * per.parameters;
            if (issue >= 0) t.after.push_back(issue);
            if (fetch >= 0) t.after.push_back(fetch);
            gather = stage.add(std::move(t));
          }
          const int needs = gather >= 0 ? gather : fetch;  // the layer's parameters, on the GPU
          if (checkpointsToHost(kind)) {
            lastCompute = addCompute(checkpointCopy(kind, Pass::Recompute, fmt::format("checkpoint from host L{} mb{}", l, mb)));
          }
          if (kind.times.recompute > 0) {
            Task t = make.compute(Pass::Recompute, mb, l, kind.times.recompute, kind.times.recomputeKernels,
                                  c.recompute == Recompute::Full ? 2 : 0, fmt::format("recompute L{} mb{}", l, mb));
            const bool full = c.recompute == Recompute::Full;
            t.gemmSet = kind.gemmSets + (full ? kForwardGemms : kAttentionGemms);
            t.memoryBytes = full ? kind.times.forwardMemoryBytes : kind.times.attentionMemoryBytes;
            if (needs >= 0) t.after.push_back(needs);
            t.allocatesBytes = kind.recomputedBytes + (full ? kind.forwardWorkBytes : 0.0);
            t.freesBytes = full ? kind.forwardWorkBytes : 0.0;
            lastCompute = addCompute(std::move(t));
          }
          Task t = make.compute(Pass::Backward, mb, l, kind.times.backward, kind.times.backwardKernels, shaped ? 2 : 0,
                                fmt::format("bwd L{} mb{}", l, mb));
          if (shaped) t.gemmSet = kind.gemmSets + kBackwardGemms, t.memoryBytes = 2 * kind.times.forwardMemoryBytes;
          if (needs >= 0) t.after.push_back(needs);
          t.allocatesBytes = kind.backwardWorkBytes + (s == 0 && l == layers - 1 ? biasGradientBytes : 0.0);
          t.freesBytes = kind.savedBytes + kind.recomputedBytes + kind.backwardWorkBytes + (gather >= 0 ? kind.gathered * per.parameters : 0.0) +
                         (s == 0 && l == 0 ? biasBytes + biasGradientBytes : 0.0);
          // ZeRO-3: the layer's full gradient until its reduce-scatter (DeepSpeed: a module's, until
          // it is copied into the reduction bucket).
          if (gathers && c.dp > 1) t.allocatesBytes += kind.gathered * per.gradients;
          lastCompute = addCompute(std::move(t));
          gathered[l] = lastCompute;
          if (l == end - 1 && backwardFirst[passIndex(s, mb, pass.chunk)] < 0) backwardFirst[passIndex(s, mb, pass.chunk)] = lastCompute;
          if (gathers && c.dp > 1) {
            Task scatter =
                make.collective(StreamKind::Reduce, Part::ShardComm, Pass::Backward,
                                {Collective::ReduceScatter, kind.shard * per.gradients, where.shardRanks, where.shardNodes, Group::Shard},
                                fmt::format("reduce-scatter L{} mb{}", l, mb));
            scatter.after.push_back(lastCompute);
            scatter.freesBytes = kind.gathered * per.gradients;
            lastDataTask = stage.add(std::move(scatter));
            reductions.push_back(lastDataTask);
            if (!c.overlapGradReduce) computeWaitsFor = lastDataTask;
            replicaAllReduce(kind.shard, fmt::format("replica all-reduce L{} mb{}", l, mb));
            if (gradientsOffloadedDuringBackward(c) && mb == m - 1) {
              pendingOffload = lastDataTask;
              pendingOffloadShard = kind.shard / where.shardRanks;
            }
          } else if (gathers && gradientsOffloadedDuringBackward(c) && mb == m - 1) {
            // ZeRO-3 on one rank: nothing to reduce-scatter; the layer's gradients leave after its backward.
            pendingOffload = lastCompute;
            pendingOffloadShard = kind.shard;
          } else if (!gathers && (reducesEveryMicroBatch || mb == m - 1)) {
            // Buckets fill as the last micro-batch's backward produces gradients (ZeRO-2: every one's).
            bucketFill += kind.shard * per.gradients;
            if (bucketFill >= c.bucketBytes) {
              flushBucket(lastCompute, bucketFill, Pass::Backward, mb);
              bucketFill = 0;
            }
          }
        }
        if (s > 0 || pass.chunk > 0) {
          lastCompute = stage.add(make.pipeSend(Pass::Backward, mb, "gradients"));
          backwardSend[passIndex(s, mb, pass.chunk)] = lastCompute;
        }
        // The rest of the stage's gradients (embeddings on the first stage) close the last bucket.
        if (!gathers && (reducesEveryMicroBatch || mb == m - 1) && pass.chunk == 0) {
          bucketFill += (s == 0 ? restShard : 0.0) * per.gradients;
          flushBucket(lastCompute, bucketFill, Pass::Backward, mb);
          bucketFill = 0;
        }
      }
    }
    // Without overlap, DDP's buckets go after the whole backward.
    if (!c.overlapGradReduce && !gathers) {
      for (int r : reductions) g.tasks[static_cast<std::size_t>(r)].after.push_back(lastCompute);
    }
    // ZeRO-3's embeddings and other unwrapped parameters: one more reduce-scatter.
    if (gathers && c.dp > 1 && restShard > 0 && s == 0) {
      Task t = make.collective(StreamKind::Reduce, Part::ShardComm, Pass::Backward,
                               {Collective::ReduceScatter, restShard * per.gradients, where.shardRanks, where.shardNodes, Group::Shard},
                               "reduce-scatter root unit");
      t.after.push_back(lastCompute);
      t.freesBytes = restShard * per.parameters;
      lastDataTask = stage.add(std::move(t));
      replicaAllReduce(restShard, "replica all-reduce root unit");
      if (gradientsOffloadedDuringBackward(c)) {
        const int rootScatter = lastDataTask;
        issueGradientOffload();
        pendingOffload = rootScatter;
        pendingOffloadShard = restShard / where.shardRanks;
      }
    } else if (gathers && restShard > 0 && s == 0 && gradientsOffloadedDuringBackward(c)) {
      issueGradientOffload();
      pendingOffload = lastCompute;
      pendingOffloadShard = restShard;
    }
    issueGradientOffload();

    addStepEnd(stage, make, model, c, cluster, where, StageEnd{layers, stageShard, lastCompute, lastDataTask});
  }

  // Across stages: a forward waits for the previous stage's activations (the first stage's chunk
  // k > 0, for the last stage's chunk k - 1), a backward for the next stage's gradients.
  for (int s = 0; s < p; ++s) {
    for (int mb = 0; mb < m; ++mb) {
      for (int chunk = 0; chunk < v; ++chunk) {
        const int forward = forwardFirst[passIndex(s, mb, chunk)];
        const int from = s > 0       ? forwardSend[passIndex(s - 1, mb, chunk)]
                         : chunk > 0 ? forwardSend[passIndex(p - 1, mb, chunk - 1)]
                                     : -1;
        if (forward >= 0 && from >= 0) g.tasks[static_cast<std::size_t>(forward)].after.push_back(from);
      }
    }
  }
  for (int s = 0; s < p; ++s) {
    for (int mb = 0; mb < m; ++mb) {
      for (int chunk = 0; chunk < v; ++chunk) {
        const int backward = backwardFirst[passIndex(s, mb, chunk)];
        const int from = s < p - 1       ? backwardSend[passIndex(s + 1, mb, chunk)]
                         : chunk < v - 1 ? backwardSend[passIndex(0, mb, chunk + 1)]
                                         : -1;
        if (backward >= 0 && from >= 0) g.tasks[static_cast<std::size_t>(backward)].after.push_back(from);
      }
    }
  }
  return g;
}

}  // namespace cclab::sim
