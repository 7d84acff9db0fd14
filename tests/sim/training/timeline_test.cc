// The step as a timeline (sim/training/step_graph.h, timeline.h): with no interference it is the
// closed forms' ideal overlap; interference, link sharing, launch overhead and eager execution
// each lengthen it by a named part; the parts add up to the step; memory follows the schedule;
// the trace is Chrome trace JSON.

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <numeric>

#include "results/json_reader.h"
#include "sim/predictor.h"
#include "sim/training/estimate.h"
#include "sim/training/step_graph.h"
#include "sim/training/timeline.h"

namespace cclab::sim {
namespace {

ModelCard gpt(int hidden, int layers, int heads, int vocab = 51200) {
  results::Json j = {{"model_type", "gpt2"}, {"n_embd", hidden}, {"n_layer", layers}, {"n_head", heads},
                     {"n_positions", 2048},  {"vocab_size", vocab}};
  return modelFromJson(j, "test", "gpt");
}

Cluster nodes(const std::string& preset, int count) {
  Cluster c = loadCluster(preset);
  reshape(c, count, std::nullopt);
  return c;
}

TrainConfig config(int gpus, int globalBatch, int seq = 2048) {
  TrainConfig c;
  c.gpus = gpus;
  c.globalBatch = globalBatch;
  c.seq = seq;
  return c;
}

struct Simulated {
  TrainingEstimate estimate;
  StepGraph graph;
  Timeline timeline;
};

Simulated run(const ModelCard& m, TrainConfig c, const Cluster& cluster) {
  resolve(c, m, cluster);
  TrainingPricer pricer(cluster);
  Simulated s;
  s.estimate = estimateTraining(m, c, pricer, &s.graph, &s.timeline);
  return s;
}

double sumOfParts(const StepTime& s) {
  return s.compute + s.tpComm + s.ppComm + s.dpComm + s.shardComm + s.offload + s.bubble + s.optimizer + s.overhead + s.interference;
}

Cluster withoutStepKnobs(Cluster c) {
  c.gpu.step = {};
  return c;
}

TEST(Timeline, WithoutInterferenceOrOverheadItIsTheClosedForm) {
  // No data parallelism: nothing overlaps, so the timeline and the closed forms must agree to
  // rounding (one GPU, tensor parallelism inside a node).
  const ModelCard m = gpt(4096, 32, 32);
  const Cluster one = withoutStepKnobs(nodes("dgx-a100", 1));
  for (int tp : {1, 2, 8}) {
    TrainConfig c = config(tp, 8);
    c.tp = tp;
    const Simulated s = run(m, c, one);
    EXPECT_NEAR(s.estimate.step.total / s.estimate.closedForm.total, 1.0, 1e-9) << "tp " << tp;
    EXPECT_NEAR(s.estimate.step.compute, s.estimate.closedForm.compute, 1e-9 * s.estimate.step.total);
    EXPECT_NEAR(s.estimate.step.tpComm, s.estimate.closedForm.tpComm, 1e-9 * s.estimate.step.total);
    EXPECT_EQ(s.estimate.step.interference, 0);
    EXPECT_EQ(s.estimate.step.overhead, 0);
  }
  // DDP without overlap: every bucket after the backward pass, as the closed form adds them.
  const Cluster four = withoutStepKnobs(nodes("dgx-a100", 4));
  TrainConfig c = config(32, 256, 1024);
  c.overlapGradReduce = false;
  c.bucketBytes = 1e12;  // one bucket
  const Simulated ddp = run(gpt(2048, 24, 16), c, four);
  EXPECT_NEAR(ddp.estimate.step.total / ddp.estimate.closedForm.total, 1.0, 1e-3);
  EXPECT_NEAR(ddp.estimate.step.dpComm / ddp.estimate.closedForm.dpComm, 1.0, 1e-3);
}

TEST(Timeline, PartsAddUpToTheStep) {
  const Cluster four = nodes("dgx-a100", 4);
  const ModelCard m = gpt(4096, 32, 32);
  for (int zero : {0, 1, 2, 3}) {
    TrainConfig c = config(32, 64);
    setZeroStage(c, zero);
    const Simulated s = run(m, c, four);
    EXPECT_NEAR(sumOfParts(s.estimate.step), s.estimate.step.total, 1e-9 * s.estimate.step.total) << "zero " << zero;
    EXPECT_GT(s.estimate.communication, 0);
    EXPECT_GE(s.estimate.hiddenFraction, 0);
    EXPECT_LE(s.estimate.hiddenFraction, 1);
  }
  TrainConfig c = config(64, 64);
  c.tp = 8;
  c.pp = 4;
  c.vpp = 2;
  const Simulated s = run(gpt(8192, 48, 64), c, nodes("dgx-a100", 8));
  EXPECT_NEAR(sumOfParts(s.estimate.step), s.estimate.step.total, 1e-9 * s.estimate.step.total);
  EXPECT_GT(s.estimate.step.bubble, 0);
}

TEST(Timeline, InterferenceSlowsComputeBesideCollectivesAndIsItsOwnPart) {
  const ModelCard m = gpt(4096, 32, 32);
  Cluster four = withoutStepKnobs(nodes("dgx-a100", 4));
  TrainConfig c = config(32, 64);
  setZeroStage(c, 3);
  const Simulated ideal = run(m, c, four);
  four.gpu.step.computeSlowdown = 0.2;
  four.gpu.step.commSlowdown = 0.3;
  const Simulated slowed = run(m, c, four);
  EXPECT_EQ(ideal.estimate.step.interference, 0);
  EXPECT_GT(slowed.estimate.step.interference, 0);
  EXPECT_GT(slowed.estimate.step.total, ideal.estimate.step.total);
  // Compute runs beside a gather for most of a ZeRO-3 step: at most 20% longer.
  EXPECT_LT(slowed.estimate.step.total, 1.2 * ideal.estimate.step.total + slowed.estimate.step.shardComm);
  // The compute part is the kernels' own time either way (summed over different spans: rounding).
  EXPECT_NEAR(slowed.estimate.step.compute, ideal.estimate.step.compute, 1e-12 * ideal.estimate.step.compute);
}

TEST(Timeline, ConcurrentCollectivesShareTheLinks) {
  // GPUs that compute in no time: ZeRO-3's gathers and reduce-scatters (on two streams) can only
  // share the network, so the step is their volume, 1.5x DDP's all-reduce.
  const ModelCard m = gpt(4096, 32, 32);
  Cluster four = withoutStepKnobs(nodes("dgx-a100", 4));
  four.gpu.peakTflops["bf16"] = 1e12;
  four.gpu.memoryBandwidthGBps = 1e12;
  TrainConfig ddp = config(32, 32);
  ddp.overlapGradReduce = false;
  ddp.bucketBytes = 1e12;
  TrainConfig zero3 = ddp;
  setZeroStage(zero3, 3);
  zero3.overlapGradReduce = true;  // its reduce-scatters on their own stream, as DeepSpeed's ZeRO-3 runs by default
  const double plain = run(m, ddp, four).estimate.step.total;
  const double sharded = run(m, zero3, four).estimate.step.total;
  EXPECT_NEAR(sharded / plain, 1.5, 0.05);
}

TEST(Timeline, EagerExecutionAndLaunchesCostOverhead) {
  const ModelCard m = gpt(768, 12, 12, 50304);  // GPT-2 124M: short kernels
  Cluster one = withoutStepKnobs(nodes("dgx-h100", 1));
  TrainConfig c = config(1, 16, 1024);
  const Simulated free = run(m, c, one);
  one.gpu.step.kernelLaunchUs = 4;
  one.gpu.step.eagerDispatchUs = 20;
  const Simulated fused = run(m, c, one);
  c.execution = Execution::Eager;
  const Simulated eager = run(m, c, one);
  EXPECT_EQ(free.estimate.step.overhead, 0);
  EXPECT_GT(fused.estimate.step.overhead, 0);
  EXPECT_GT(eager.estimate.step.overhead, fused.estimate.step.overhead);
  EXPECT_GT(eager.estimate.step.total, fused.estimate.step.total);
  EXPECT_GT(eager.estimate.step.compute, fused.estimate.step.compute);  // unfused element-wise traffic
  // Launches: every kernel of every layer, forward and backward, of every micro-batch.
  const LayerTimes layer = layerTimes(m, fused.estimate.config, one);
  EXPECT_GE(fused.estimate.step.overhead, 16 * 12 * (layer.forwardKernels + layer.backwardKernels) * 4e-6 * 0.999);
}

// Eager PyTorch's CPU runs ahead of the GPU: GPT-2 at micro-batch 4 with its unaligned vocabulary
// dispatches its forward layers slower than the GPU runs them (the GPU waits), but the logits'
// long GEMMs let the CPU get ahead, so the backward layers, CPU-bound on their own too, do not
// wait at all; priced task by task (each the slower of its dispatch and its GPU time) they would.
TEST(Timeline, EagerDispatchRunsAheadDuringLongKernels) {
  const ModelCard m = gpt(768, 12, 12, 50257);
  const Cluster one = nodes("dgx-h100", 1);
  TrainConfig c = config(1, 4, 1024);
  c.microBatch = 4;  // one micro-batch
  c.precision = Precision::Mixed;
  c.execution = Execution::Eager;
  const Simulated s = run(m, c, one);
  const double launchUs = one.gpu.step.kernelLaunchUs, dispatchUs = one.gpu.step.eagerDispatchUs;
  int forwardWaits = 0, backwardWaits = 0, backwardCpuBound = 0;
  for (const Task& t : s.graph.tasks) {
    if (t.stream != StreamKind::Compute || t.layer < 0) continue;
    const double wait = t.overheadSeconds - t.kernels * launchUs * 1e-6;
    const double gpu = t.seconds - t.overheadSeconds;
    if (t.pass == Pass::Forward && wait > 1e-9) ++forwardWaits;
    if (t.pass == Pass::Backward && wait > 1e-9) ++backwardWaits;
    if (t.pass == Pass::Backward && t.kernels * dispatchUs * 1e-6 > gpu + t.kernels * launchUs * 1e-6) ++backwardCpuBound;
  }
  EXPECT_GE(forwardWaits, 10);      // the CPU is behind through the forward layers
  EXPECT_EQ(backwardCpuBound, 12);  // each backward layer alone dispatches slower than it runs ...
  EXPECT_EQ(backwardWaits, 0);      // ... yet none waits: the CPU got ahead during the logits
}

TEST(Timeline, HybridShardAllReducesEachUnitBehindTheRestOfTheBackward) {
  // HYBRID_SHARD on 4 nodes of 8: shards inside the node, 4 replicas. PyTorch FSDP all-reduces
  // each unit's gradient shard across the replicas right after that unit's reduce-scatter, so all
  // but the last layers' run while the backward goes on; one all-reduce of the whole shard after
  // the backward would leave it all on the step.
  const ModelCard m = gpt(4096, 32, 32);
  const Cluster four = withoutStepKnobs(nodes("a100-400g", 4));
  TrainConfig c = config(32, 512);
  c.microBatch = 8;  // two micro-batches a step, each long enough to hide its all-reduces
  c.sharding = parseFsdp("hybrid_shard");
  const Simulated s = run(m, c, four);
  int replicaAllReduces = 0, scatters = 0;
  double replicaSeconds = 0, lastBackwardEnd = 0, firstReplicaStart = 1e30;
  for (std::size_t i = 0; i < s.graph.tasks.size(); ++i) {
    const Task& t = s.graph.tasks[i];
    if (t.part == Part::Compute && t.pass == Pass::Backward) lastBackwardEnd = std::max(lastBackwardEnd, s.timeline.tasks[i].end);
    if (t.collectives.empty()) continue;
    if (t.collectives.front().group == Group::Shard && t.collectives.front().collective == Collective::ReduceScatter) ++scatters;
    if (t.collectives.front().group != Group::Replica) continue;
    ++replicaAllReduces;
    replicaSeconds += t.seconds;
    firstReplicaStart = std::min(firstReplicaStart, s.timeline.tasks[i].start);
    // It follows its unit's reduce-scatter.
    ASSERT_EQ(t.after.size(), 1u);
    EXPECT_EQ(s.graph.tasks[static_cast<std::size_t>(t.after[0])].collectives.front().collective, Collective::ReduceScatter);
  }
  EXPECT_EQ(replicaAllReduces, scatters);  // one per unit and micro-batch, and the root unit's
  EXPECT_EQ(replicaAllReduces, 32 * s.estimate.config.accumulation + 1);
  EXPECT_LT(firstReplicaStart, 0.5 * lastBackwardEnd);
  EXPECT_LT(s.estimate.step.dpComm, 0.25 * replicaSeconds);  // mostly hidden
  // The closed form stays a lower bound.
  EXPECT_LE(s.estimate.closedForm.total, s.estimate.step.total * (1 + 1e-9));
}

// ZeRO-3 on one DGX A100 node (8 GPUs, global batch 16), states placed as given.
TrainConfig zero3Offloading(OffloadTarget optimizer, OffloadTarget parameters) {
  TrainConfig c = config(8, 16);
  setZeroStage(c, 3);
  c.offloadOptimizer = optimizer;
  c.offloadParams = parameters;
  return c;
}

TEST(Timeline, OffloadedParametersAreFetchedBeforeEachGather) {
  // ZeRO-Infinity's parameter offload: each layer's partition comes back over PCIe before its
  // gather, forward and backward, and the gather waits for it; from NVMe (slower) the step is
  // longer and the fetches show on its critical path as offload.
  const ModelCard m = gpt(4096, 8, 32);
  const Cluster node = withoutStepKnobs(nodes("dgx-a100", 1));
  TrainConfig c = zero3Offloading(OffloadTarget::Cpu, OffloadTarget::Cpu);
  const Simulated host = run(m, c, node);
  int gathers = 0, fetches = 0;
  for (const Task& t : host.graph.tasks) {
    if (t.label.starts_with("fetch offloaded L")) {
      ++fetches;
      EXPECT_EQ(t.stream, StreamKind::Offload);
      EXPECT_NEAR(t.seconds, 12.0 * 4096 * 4096 * 2 / 8 / hostLinkBandwidth(node), 0.02 * t.seconds);  // a layer's shard
    }
    if (!t.label.starts_with("all-gather L")) continue;
    ++gathers;
    const bool waits = std::any_of(t.after.begin(), t.after.end(), [&](int i) {
      return host.graph.tasks[static_cast<std::size_t>(i)].label.starts_with("fetch offloaded L");
    });
    EXPECT_TRUE(waits) << t.label;
  }
  EXPECT_EQ(gathers, 2 * 8 * host.estimate.config.accumulation);  // each layer, forward and backward, each micro-batch
  EXPECT_EQ(fetches, gathers);
  c.offloadParams = OffloadTarget::Nvme;
  c.offloadOptimizer = OffloadTarget::Nvme;
  const Simulated nvme = run(m, c, node);
  EXPECT_GT(nvme.estimate.step.total, host.estimate.step.total);
  EXPECT_GT(nvme.estimate.step.offload, host.estimate.step.offload);
  EXPECT_NEAR(sumOfParts(nvme.estimate.step), nvme.estimate.step.total, 1e-9 * nvme.estimate.step.total);
}

TEST(Timeline, OffloadedOptimizerTakesEachLayersGradientsDuringTheBackward) {
  // ZeRO-3 with the optimizer offloaded (ZeRO-Infinity): DeepSpeed moves each layer's gradient
  // partition off the GPU after its reduce-scatter, during the backward: converted to fp32 on the
  // GPU and copied over PCIe into the host's fp32 buffer, and with the optimizer on NVMe on to the
  // drives. The step
  // then moves on NVMe 28 bytes a parameter (12 of states read and written, the gradient read)
  // and, with the parameters on NVMe too, 2 more (the updated 16-bit ones written), not 32 or 36;
  // over PCIe it sends the updated parameters up only if they live on the GPU.
  const ModelCard m = gpt(4096, 8, 32);
  const Cluster node = withoutStepKnobs(nodes("dgx-a100", 1));
  const Simulated s = run(m, zero3Offloading(OffloadTarget::Nvme, OffloadTarget::None), node);
  const double nvmePerGpu = node.host.nvmeBandwidthGBps * 1e9 / node.gpusPerNode;
  const double link = hostLinkBandwidth(node);
  EXPECT_DOUBLE_EQ(link, 16e9);  // 128 GB/s a node over 8 GPUs, below each GPU's 32
  const double layerShard = 12.0 * 4096 * 4096 / 8;
  int copies = 0;
  double lastBackwardEnd = 0, firstCopyStart = 1e30;
  for (std::size_t i = 0; i < s.graph.tasks.size(); ++i) {
    const Task& t = s.graph.tasks[i];
    if (t.part == Part::Compute && t.pass == Pass::Backward) lastBackwardEnd = std::max(lastBackwardEnd, s.timeline.tasks[i].end);
    if (t.label != "offload gradients") continue;
    ++copies;
    EXPECT_EQ(t.stream, StreamKind::Offload);
    ASSERT_EQ(t.after.size(), 1u);
    EXPECT_TRUE(s.graph.tasks[static_cast<std::size_t>(t.after[0])].label.starts_with("reduce-scatter"))
        << s.graph.tasks[static_cast<std::size_t>(t.after[0])].label;
    if (copies <= 8) {
      EXPECT_NEAR(t.seconds, layerShard * 4 / link + layerShard * 4 / nvmePerGpu, 0.02 * t.seconds);  // a layer's
    }
    firstCopyStart = std::min(firstCopyStart, s.timeline.tasks[i].start);
  }
  EXPECT_EQ(copies, 8 + 1);  // each layer's, in the last micro-batch, and the root unit's
  EXPECT_LT(firstCopyStart, lastBackwardEnd);  // while the backward runs
  const double updated = static_cast<double>(m.parameters()) / 8;
  auto stepSeconds = [&](auto change) {
    TrainConfig changed = s.estimate.config;
    change(changed);
    return offloadedOptimizerSeconds(node, changed, updated);
  };
  const double nvmeStep = stepSeconds([](TrainConfig&) {});
  const double stateSeconds = updated * 28 / nvmePerGpu;
  EXPECT_NEAR(nvmeStep - stepSeconds([](TrainConfig& x) { x.offloadOptimizer = OffloadTarget::Cpu; }), stateSeconds, 1e-9 * stateSeconds);
  // Parameters on NVMe too: their 16-bit update is written there, not sent up to the GPU.
  EXPECT_NEAR(stepSeconds([](TrainConfig& x) { x.offloadParams = OffloadTarget::Nvme; }) - nvmeStep, updated * 2 / nvmePerGpu - updated * 2 / link,
              1e-9 * stateSeconds);
  // On one GPU there is no reduce-scatter to follow: each layer's copy follows its backward.
  TrainConfig one = config(1, 2);
  setZeroStage(one, 3);
  one.offloadOptimizer = OffloadTarget::Nvme;
  EXPECT_TRUE(gradientsOffloadedDuringBackward(one));
  const Simulated alone = run(m, one, jobCluster(node, 1));
  int aloneCopies = 0;
  for (const Task& t : alone.graph.tasks) {
    if (t.label != "offload gradients") continue;
    ++aloneCopies;
    ASSERT_EQ(t.after.size(), 1u);
    const Task& before = alone.graph.tasks[static_cast<std::size_t>(t.after[0])];
    EXPECT_TRUE(before.part == Part::Compute && before.pass == Pass::Backward) << before.label;
  }
  EXPECT_EQ(aloneCopies, 8 + 1);
  EXPECT_NEAR(sumOfParts(s.estimate.step), s.estimate.step.total, 1e-9 * s.estimate.step.total);
  EXPECT_LE(s.estimate.closedForm.total, s.estimate.step.total * (1 + 1e-9));
}

TEST(Timeline, OffloadSharesTheNodesHostLinks) {
  // A DGX-2's 16 GPUs reach host memory at 12 GB/s one at a time and 3.0 GB/s each all at once
  // (ZeRO-Infinity's Fig. 2(b)): offload's transfers run at the second, a one-GPU job's at the first.
  const Cluster dgx2 = loadCluster("dgx-2h");
  EXPECT_DOUBLE_EQ(hostLinkBandwidth(dgx2), 3e9);
  EXPECT_DOUBLE_EQ(hostLinkBandwidth(jobCluster(dgx2, 1)), 12e9);
  Cluster ownLinks = dgx2;
  ownLinks.host.pcieNodeBandwidthGBps = 0;  // each GPU its own link
  ownLinks.host.pcieSwitchGpus = 0;
  EXPECT_DOUBLE_EQ(hostLinkBandwidth(ownLinks), 12e9);
  // Four GPUs behind each of the DGX-2's four uplinks: a job's GPUs fill one before the next, so
  // four GPUs copying at once get 3.0 GB/s each as sixteen do, two get 6; one GPU copying while
  // the rest wait gets its link's 12. A DGX A100's pairs: 16 each once two copy, 32 alone.
  EXPECT_DOUBLE_EQ(hostLinkBandwidth(jobCluster(dgx2, 4)), 3e9);
  EXPECT_DOUBLE_EQ(hostLinkBandwidth(jobCluster(dgx2, 2)), 6e9);
  EXPECT_DOUBLE_EQ(hostLinkBandwidth(dgx2, 1), 12e9);
  EXPECT_DOUBLE_EQ(hostLinkBandwidth(dgx2, 8), 3e9);
  const Cluster a100 = loadCluster("dgx-a100");
  EXPECT_DOUBLE_EQ(hostLinkBandwidth(a100), 16e9);
  EXPECT_DOUBLE_EQ(hostLinkBandwidth(jobCluster(a100, 2)), 16e9);
  EXPECT_DOUBLE_EQ(hostLinkBandwidth(a100, 1), 32e9);
  // Without the switches the node's uplinks are one pool: four GPUs of sixteen get 12 each.
  Cluster pooled = dgx2;
  pooled.host.pcieSwitchGpus = 0;
  EXPECT_DOUBLE_EQ(hostLinkBandwidth(jobCluster(pooled, 4)), 12e9);
  EXPECT_DOUBLE_EQ(hostLinkBandwidth(pooled), 3e9);
  // The ZeRO-2 step moves the updated parameters up (its gradients left in the backward).
  TrainConfig c = config(16, 16);
  setZeroStage(c, 2);
  c.offloadOptimizer = OffloadTarget::Cpu;
  c.dp = 16;
  const double shared = offloadedOptimizerSeconds(dgx2, c, 1e9), own = offloadedOptimizerSeconds(ownLinks, c, 1e9);
  EXPECT_NEAR(shared - own, 1e9 * 2 / 3e9 - 1e9 * 2 / 12e9, 1e-9);
}

TEST(Timeline, ZeroOffloadCopiesEachBucketOverItsOwnersLink) {
  // ZeRO-2 with the optimizer in host memory (DeepSpeed's ZeRO-Offload) on a DGX-2: after each
  // bucket's reduce-scatter, on its stream, the ranks owning the bucket's stretch of the flat
  // gradients copy it to the host as fp32. A 25 MiB bucket lies within one rank's 1/16 (a 1/16 of
  // a 4096-wide 8-layer model is 0.1 B parameters), so each copy is the whole bucket over that
  // rank's link alone (12 GB/s), one bucket after another. The host buffer is pageable
  // (DeepSpeed's default), so each copy holds the host: the next compute task waits for it.
  const ModelCard m = gpt(4096, 8, 32);
  const Cluster dgx2 = withoutStepKnobs(loadCluster("dgx-2h"));
  TrainConfig c = config(16, 16);
  setZeroStage(c, 2);
  c.offloadOptimizer = OffloadTarget::Cpu;
  const Simulated s = run(m, c, dgx2);
  ASSERT_TRUE(gradientOffloadHoldsTheHost(s.estimate.config));
  const double bucketParameters = 25.0 * (1 << 20) / 2;
  const double layer = 12.0 * 4096 * 4096 + 13 * 4096;  // a layer's parameters
  int copies = 0, waited = 0;
  double copied = 0;
  for (std::size_t i = 0; i < s.graph.tasks.size(); ++i) {
    const Task& t = s.graph.tasks[i];
    for (int before : t.after) {
      if (t.part == Part::Compute && s.graph.tasks[static_cast<std::size_t>(before)].label.starts_with("offload gradients")) ++waited;
    }
    if (!t.label.starts_with("offload gradients")) continue;
    ++copies;
    EXPECT_EQ(t.stream, StreamKind::Reduce);
    EXPECT_FALSE(isCollective(t));  // ordered on the reduction stream, run by the copy engines
    EXPECT_EQ(t.pass, Pass::Backward);
    ASSERT_EQ(t.after.size(), 1u);
    EXPECT_TRUE(s.graph.tasks[static_cast<std::size_t>(t.after[0])].label.starts_with("reduce-scatter bucket")) << t.label;
    copied += t.seconds;
    if (copies == 1) {  // the last layer's gradients: ceil(layer / bucket) buckets, each over one link
      const double buckets = std::ceil(layer / bucketParameters);
      EXPECT_NEAR(t.seconds, buckets * (layer / buckets) * 4 / 12e9, 1e-9 * t.seconds);
      // Staged on the GPU as fp32 (.float()) one parameter at a time: a bucket's piece of one
      // parameter, here smaller than the 4h^2 MLP matrix.
      EXPECT_DOUBLE_EQ(t.allocatesBytes, 4 * layer / buckets);
      EXPECT_DOUBLE_EQ(t.freesBytes, t.allocatesBytes);
    }
  }
  EXPECT_EQ(copies, 8 + 1);  // each layer's flush and the embeddings'
  // Every copy holds the next compute task but the first layer's and the embeddings' (the backward
  // has no compute left after them).
  EXPECT_EQ(waited, copies - 2);
  EXPECT_NEAR(copied, static_cast<double>(m.parameters()) * 4 / 12e9, 0.01 * copied);  // every gradient, one link at a time
  // They share no links with the collectives and count as no communication.
  double collectiveSeconds = 0;
  for (const Task& t : s.graph.tasks) collectiveSeconds += isCollective(t) ? t.seconds : 0.0;
  EXPECT_NEAR(s.estimate.communication, collectiveSeconds, 1e-12 * collectiveSeconds);
  EXPECT_LT(s.estimate.communication, copied);
  // Pinned host buffers (offload_optimizer.pin_memory): the copies run beside the backward.
  TrainConfig pinned = c;
  pinned.offloadPinned = true;
  const Simulated p = run(m, pinned, dgx2);
  EXPECT_FALSE(gradientOffloadHoldsTheHost(p.estimate.config));
  EXPECT_LT(p.estimate.step.total, s.estimate.step.total);
  for (const Task& t : p.graph.tasks) {
    for (int before : t.after) {
      EXPECT_FALSE(t.part == Part::Compute && p.graph.tasks[static_cast<std::size_t>(before)].label.starts_with("offload gradients")) << t.label;
    }
  }
  // A bucket bigger than a rank's partition spreads over its owners, which copy at once: a 4 GB
  // bucket holds all the gradients, so all sixteen ranks copy their partitions together, four
  // behind each uplink at 3 GB/s.
  TrainConfig big = c;
  big.bucketBytes = 4e9;
  const Simulated b = run(m, big, dgx2);
  const double partition = static_cast<double>(m.parameters()) / 16;
  int bigCopies = 0;
  for (const Task& t : b.graph.tasks) {
    if (!t.label.starts_with("offload gradients")) continue;
    ++bigCopies;
    EXPECT_NEAR(t.seconds, partition * 4 / 3e9, 1e-9 * t.seconds);
    EXPECT_DOUBLE_EQ(t.allocatesBytes, 4 * 4 * 4096.0 * 4096);  // the largest parameter, whole, in fp32
  }
  EXPECT_EQ(bigCopies, 1);
  // ZeRO-3 stages each parameter's partition, a tile's with tiling; fp32 runs and FSDP none.
  TrainConfig stageThree = c;
  setZeroStage(stageThree, 3);
  EXPECT_DOUBLE_EQ(gradientOffloadStagingBytes(m, stageThree, 1e12, 16), 4 * 4 * 4096.0 * 4096 / 16);
  stageThree.tiles = 4;
  EXPECT_DOUBLE_EQ(gradientOffloadStagingBytes(m, stageThree, 1e12, 16), 4 * 4096.0 * 4096 / 16);
  TrainConfig fp32 = c;
  fp32.precision = Precision::Fp32;
  EXPECT_EQ(gradientOffloadStagingBytes(m, fp32, 1e12), 0);
  TrainConfig fsdp = c;
  fsdp.sharding = parseFsdp("full_shard");
  EXPECT_EQ(gradientOffloadStagingBytes(m, fsdp, 1e12), 0);
  // One GPU (the ZeRO-Offload tutorial's run): no reduction, the copies all the same.
  TrainConfig one = config(1, 1);
  setZeroStage(one, 2);
  one.offloadOptimizer = OffloadTarget::Cpu;
  const Simulated alone = run(m, one, jobCluster(dgx2, 1));
  int aloneCopies = 0;
  for (const Task& t : alone.graph.tasks) aloneCopies += t.label.starts_with("offload gradients") ? 1 : 0;
  EXPECT_EQ(aloneCopies, 8 + 1);
  EXPECT_LE(s.estimate.closedForm.total, s.estimate.step.total * (1 + 1e-9));
  EXPECT_LE(alone.estimate.closedForm.total, alone.estimate.step.total * (1 + 1e-9));
  // Three micro-batches a step: ZeRO-2 accumulates a 16-bit sum in host memory (DeepSpeed's
  // async_accumulate_grad_in_cpu_via_gpu), 2 bytes a parameter down after the first micro-batch,
  // 2 up and 2 down after the second, 2 up and the fp32 total down after the last: 2, 4 and 6
  // bytes against the 4 without accumulation, and every copy holds the host (pageable buffers).
  EXPECT_EQ(accumulatedGradientCopyBytes(0, 1), 4);
  TrainConfig accumulating = config(16, 48);
  setZeroStage(accumulating, 2);
  accumulating.offloadOptimizer = OffloadTarget::Cpu;
  const Simulated three = run(m, accumulating, dgx2);
  ASSERT_EQ(three.estimate.config.accumulation, 3);
  std::vector<double> perMicroBatch;
  int threeWaited = 0;
  for (const Task& t : three.graph.tasks) {
    for (int before : t.after) {
      if (t.part == Part::Compute && three.graph.tasks[static_cast<std::size_t>(before)].label.starts_with("offload gradients")) ++threeWaited;
    }
    if (!t.label.starts_with("offload gradients")) continue;
    const int bucket = std::stoi(t.label.substr(std::string("offload gradients bucket ").size()));
    if (bucket % 9 == 0) perMicroBatch.push_back(0);
    perMicroBatch.back() += t.seconds;
  }
  ASSERT_EQ(perMicroBatch.size(), 3u);
  for (int mb = 0; mb < 3; ++mb) {
    EXPECT_DOUBLE_EQ(accumulatedGradientCopyBytes(mb, 3), 2.0 * (mb + 1));
    EXPECT_NEAR(perMicroBatch[static_cast<std::size_t>(mb)], copied * (mb + 1) / 2, 1e-9 * copied) << mb;
  }
  // Each micro-batch's last two copies (its first layer's and the embeddings') follow one another on
  // the stream: the next micro-batch's first forward waits for the second, and so for both; the
  // step's last two have no compute after them.
  EXPECT_EQ(threeWaited, 3 * 9 - 2 - 2);
  // A DeepSpeed config says where the buffers are, in today's keys and in DeepSpeed's older ones.
  TrainConfig fromConfig;
  applyDeepSpeedConfig({{"zero_optimization", {{"stage", 2}, {"offload_optimizer", {{"device", "cpu"}, {"pin_memory", true}}}}}},
                       "ds_config.json", fromConfig);
  EXPECT_TRUE(fromConfig.offloadPinned);
  TrainConfig older;
  applyDeepSpeedConfig({{"zero_optimization", {{"stage", 2}, {"cpu_offload", true}}}}, "ds_config.json", older);
  EXPECT_EQ(older.offloadOptimizer, OffloadTarget::Cpu);
  EXPECT_FALSE(older.offloadPinned);
  applyDeepSpeedConfig({{"zero_optimization", {{"stage", 3}, {"cpu_offload", true}, {"cpu_offload_params", true}, {"cpu_offload_use_pin_memory", true}}}},
                       "ds_config.json", older);
  EXPECT_EQ(older.offloadParams, OffloadTarget::Cpu);
  EXPECT_TRUE(older.offloadPinned);
}

TEST(Timeline, SwapperPipeliningOverlapsNvmeWithCpuAdam) {
  // With the optimizer on NVMe, DeepSpeed's swapper can read a sub-group's states ahead while
  // CPU-Adam updates the one before (pipeline_read) and write the last one's back meanwhile
  // (pipeline_write); the drives serve the reads and writes in turn. ZeRO-3 on a DGX-2, states
  // and parameters on NVMe: 16 bytes a parameter read (states, fp32 gradient), 14 written (states,
  // 16-bit parameters; the gradient was written during the backward), nothing over PCIe.
  const Cluster dgx2 = loadCluster("dgx-2h");
  TrainConfig c = config(16, 16);
  setZeroStage(c, 3);
  c.dp = 16;
  c.offloadOptimizer = c.offloadParams = OffloadTarget::Nvme;
  const double p = 1e9, drives = 25e9 / 16;  // a GPU's share of the node's drives
  const double read = p * 16 / drives, write = p * 14 / drives, cpu = cpuOptimizerSeconds(dgx2, p);
  auto step = [&](bool reads, bool writes) {
    TrainConfig x = c;
    x.swapReadsAhead = reads;
    x.swapWritesBehind = writes;
    return offloadedOptimizerSeconds(dgx2, x, p);
  };
  EXPECT_NEAR(step(false, false), cpu + read + write, 1e-9 * read);
  EXPECT_NEAR(step(true, false), std::max(cpu, read) + write, 1e-9 * read);
  EXPECT_NEAR(step(false, true), read + std::max(cpu, write), 1e-9 * read);
  EXPECT_NEAR(step(true, true), std::max(cpu, read + write), 1e-9 * read);
  EXPECT_LT(cpu, read);  // on a DGX-2 the drives, not the CPU, set the pace: CPU-Adam is what hides
  // From host memory there is nothing to swap.
  c.offloadOptimizer = c.offloadParams = OffloadTarget::Cpu;
  EXPECT_DOUBLE_EQ(step(true, true), step(false, false));
  // A DeepSpeed config says it.
  TrainConfig fromConfig;
  applyDeepSpeedConfig({{"zero_optimization", {{"stage", 3}, {"offload_optimizer", {{"device", "nvme"}, {"pipeline_read", true}, {"pipeline_write", true}}}}}},
                       "ds_config.json", fromConfig);
  EXPECT_TRUE(fromConfig.swapReadsAhead);
  EXPECT_TRUE(fromConfig.swapWritesBehind);
}

TEST(Timeline, ClosedFormBoundsEveryZeroLayoutWithOrWithoutOffload) {
  // ccsim plan prunes with the closed form as a lower bound of the simulated step, or it could drop
  // the fastest layout: ZeRO-1 to 3, one or more micro-batches, without offload and with it (host
  // or NVMe, optimizer and parameters, a DGX-2's shared host links and a DGX A100's), without
  // recompute and with full recompute's checkpoints in host memory. Written
  // 2026-12-06, it found three places where the closed form charged more than the timeline: ZeRO-3's
  // first-layer gather once per micro-batch (the timeline prefetches it in the backward before), the
  // parameter fetch of the embeddings twice per micro-batch (once a step), and the fetch's exposure
  // on top of the collectives' (the offload stream runs beside both).
  const ModelCard m = gpt(4096, 8, 32);
  int checked = 0;
  for (const char* preset : {"dgx-a100", "dgx-2h"}) {
    for (const int nodeCount : {1, 2}) {
      const Cluster cluster = withoutStepKnobs(nodes(preset, nodeCount));
      for (const int stage : {1, 2, 3}) {
        for (const OffloadTarget optimizer : {OffloadTarget::None, OffloadTarget::Cpu, OffloadTarget::Nvme}) {
          for (const OffloadTarget params : {OffloadTarget::None, OffloadTarget::Cpu, OffloadTarget::Nvme}) {
            if ((params != OffloadTarget::None || optimizer == OffloadTarget::Nvme) && stage != 3) continue;  // NVMe and parameters: ZeRO-3
            if (optimizer == OffloadTarget::None && params != OffloadTarget::None) continue;
            for (const int microBatch : {1, 4}) {
              for (const bool cpuCheckpoints : {false, true}) {
                for (const bool pinned : {false, true}) {
                  if (pinned && optimizer != OffloadTarget::Cpu) continue;
                  TrainConfig c = config(cluster.gpus(), 8 * cluster.gpus());
                  c.offloadPinned = pinned;
                  setZeroStage(c, stage);
                  c.offloadOptimizer = optimizer;
                  c.offloadParams = params;
                  c.microBatch = microBatch;
                  c.recompute = cpuCheckpoints ? Recompute::Full : Recompute::None;
                  c.checkpointsOnHost = cpuCheckpoints;
                  for (const Cluster& job : {cluster, [&] {
                         Cluster interfering = cluster;  // the shipped interference and overheads
                         interfering.gpu.step = loadCluster(preset).gpu.step;
                         return interfering;
                       }()}) {
                    const Simulated s = run(m, c, job);
                    ++checked;
                    EXPECT_LE(s.estimate.closedForm.total, s.estimate.step.total * (1 + 1e-9))
                        << preset << " x" << nodeCount << " zero" << stage << " optimizer " << static_cast<int>(optimizer) << " params "
                        << static_cast<int>(params) << " micro-batch " << microBatch << " closed: compute " << s.estimate.closedForm.compute
                        << " shard " << s.estimate.closedForm.shardComm << " offload " << s.estimate.closedForm.offload << " opt " << s.estimate.closedForm.optimizer
                        << " | timeline: compute " << s.estimate.step.compute << " shard " << s.estimate.step.shardComm << " offload " << s.estimate.step.offload
                        << " overhead " << s.estimate.step.overhead << " interference " << s.estimate.step.interference << " cpu checkpoints "
                        << cpuCheckpoints << " pinned " << pinned;
                  }
                }
              }
            }
          }
        }
      }
    }
  }
  EXPECT_EQ(checked, 2 * 2 * (3 + 3 + 10) * 2 * 2 * 2);  // ZeRO-1/2: none, host, host pinned; ZeRO-3 likewise with the NVMe layouts
}

TEST(Timeline, CpuCheckpointingCopiesEachCheckpointOutAndBack) {
  // DeepSpeed's cpu_checkpointing: full recompute's checkpoints (each layer's input, b x s x h in
  // 16-bit) wait in host memory. Each leaves the GPU after its layer's forward and comes back
  // before its recompute, blocking copies on the compute stream at the host link, so on one GPU
  // the step is longer by exactly those copies, and the GPU holds one checkpoint where it held all.
  const ModelCard m = gpt(4096, 8, 32);
  const Cluster one = withoutStepKnobs(jobCluster(loadCluster("dgx-2h"), 1));
  EXPECT_DOUBLE_EQ(hostLinkBandwidth(one), 12e9);  // one GPU alone on a DGX-2's PCIe (ZeRO-Infinity's Fig. 2(b))
  TrainConfig c = config(1, 4);
  c.recompute = Recompute::Full;
  const Simulated kept = run(m, c, one);
  c.checkpointsOnHost = true;
  const Simulated host = run(m, c, one);
  const double checkpoint = 2.0 * 2048 * 4096;  // one micro-batch's layer input in 16-bit
  int out = 0, back = 0;
  for (const Task& t : host.graph.tasks) {
    const bool copy = t.label.starts_with("checkpoint");
    if (!copy) continue;
    EXPECT_EQ(t.stream, StreamKind::Compute) << t.label;
    EXPECT_EQ(t.part, Part::Offload) << t.label;
    EXPECT_DOUBLE_EQ(t.seconds, checkpoint / 12e9) << t.label;
    (t.label.starts_with("checkpoint to host") ? out : back) += 1;
  }
  EXPECT_EQ(out, 8 * 4);  // every layer of every micro-batch
  EXPECT_EQ(back, 8 * 4);
  const double copies = 2 * 8 * 4 * checkpoint / 12e9;
  EXPECT_NEAR(host.estimate.step.total - kept.estimate.step.total, copies, 1e-9 * copies);
  EXPECT_NEAR(host.estimate.step.offload, copies, 1e-9 * copies);
  EXPECT_NEAR(host.estimate.closedForm.total - kept.estimate.closedForm.total, copies, 1e-9 * copies);
  EXPECT_LE(host.estimate.closedForm.total, host.estimate.step.total * (1 + 1e-9));
  EXPECT_NEAR(sumOfParts(host.estimate.step), host.estimate.step.total, 1e-9 * host.estimate.step.total);
  // Memory: the eight checkpoints are in host memory. The peak is at the loss (51,200 logits a
  // token), where the step that keeps them holds all eight and the other none.
  EXPECT_DOUBLE_EQ(host.estimate.memory.hostCheckpointBytes, 8 * checkpoint);
  EXPECT_DOUBLE_EQ(host.estimate.memory.hostBytes, 8 * checkpoint);
  EXPECT_DOUBLE_EQ(kept.estimate.memory.hostBytes, 0);
  EXPECT_NEAR(kept.timeline.peakBytes[0] - host.timeline.peakBytes[0], 8 * checkpoint, 1e-6 * checkpoint);
  // On a whole DGX-2 each GPU gets its share of the node's 48 GB/s, a quarter of the one-GPU rate.
  TrainConfig sixteen = config(16, 64);
  sixteen.recompute = Recompute::Full;
  sixteen.checkpointsOnHost = true;
  const Simulated node = run(m, sixteen, withoutStepKnobs(loadCluster("dgx-2h")));
  for (const Task& t : node.graph.tasks) {
    if (t.label.starts_with("checkpoint")) {
      EXPECT_DOUBLE_EQ(t.seconds, checkpoint / 3e9) << t.label;
    }
  }
  // Only full recompute keeps checkpoints; other recompute is refused by name.
  TrainConfig selective = c;
  selective.recompute = Recompute::Selective;
  try {
    run(m, selective, one);
    FAIL() << "CPU checkpointing with selective recompute was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("--recompute full"), std::string::npos) << e.what();
  }
}

TEST(Timeline, DeepSpeedZeroThreeGathersAModuleAtATime) {
  // PyTorch FSDP gathers a wrapped unit (a transformer layer) whole; DeepSpeed's ZeRO-3 (--zero 3)
  // each nn.Module's parameters in its pre-forward hook, releasing them after. For a GPT layer
  // (12h^2: fused QKV 3h^2, projection h^2, MLP 4h^2 and 4h^2) that is the MLP matrix, a third of
  // the layer, with the next one prefetched; its gradient is held at that size until it goes into
  // DeepSpeed's reduction bucket (5e8 elements, allocated all step). The collectives, and so the
  // step, are the same.
  const ModelCard m = gpt(8192, 8, 64);
  const Cluster node = withoutStepKnobs(nodes("dgx-a100", 1));
  TrainConfig c = config(8, 8);
  c.recompute = Recompute::Full;
  c.sharding = parseFsdp("full_shard");
  const Simulated fsdp = run(m, c, node);
  setZeroStage(c, 3);
  EXPECT_TRUE(c.gathersByModule);
  const Simulated deepspeed = run(m, c, node);
  const double h = 8192, layer = 12 * h * h + 13 * h, module = 4 * h * h;
  EXPECT_DOUBLE_EQ(largestModuleParameters(m), module);
  EXPECT_DOUBLE_EQ(gatheredUnitParameters(m, c, layer), module);
  EXPECT_DOUBLE_EQ(gatheredUnitParameters(m, fsdp.estimate.config, layer), layer);
  EXPECT_DOUBLE_EQ(deepspeed.estimate.step.total, fsdp.estimate.step.total);
  const double bucket = 5e8 * 2;
  EXPECT_DOUBLE_EQ(deepspeed.estimate.memory.bufferBytes, bucket);
  EXPECT_DOUBLE_EQ(fsdp.estimate.memory.bufferBytes, 0);
  // At the peak (a backward): two units gathered (the layer and the next, prefetched) and the
  // gradients of one or two (a unit's reduce-scatter runs while the next one's backward makes its
  // own), in 16-bit: 6 to 8 bytes a parameter of the layer less the module, less the bucket.
  const double saved = fsdp.estimate.memory.total - deepspeed.estimate.memory.total;
  EXPECT_GE(saved, 6 * (layer - module) - bucket);
  EXPECT_LE(saved, 8 * (layer - module) - bucket);
  // A LLaMA-family layer (separate Q, K, V, gate and up projections): the h x i MLP matrix.
  const ModelCard llama = modelFromJson({{"model_type", "llama"}, {"hidden_size", 4096}, {"num_hidden_layers", 32}, {"num_attention_heads", 32},
                                         {"num_key_value_heads", 8}, {"intermediate_size", 14336}, {"vocab_size", 128256}},
                                        "test", "llama");
  EXPECT_DOUBLE_EQ(largestModuleParameters(llama), 4096.0 * 14336);
}

TEST(Timeline, MemoryCentricTilingGathersATileAtATime) {
  // ZeRO-Infinity's memory-centric tiling (DeepSpeed's TiledLinear, out_splits N): each linear
  // layer becomes N modules of n / N outputs, so DeepSpeed's ZeRO-3 gathers a tile of the MLP
  // matrix at a time, not the matrix; the same FLOPs run as N narrower GEMMs, whose outputs are
  // concatenated (forward) and whose input gradients are summed (backward).
  const ModelCard m = gpt(8192, 8, 64);
  const Cluster node = withoutStepKnobs(nodes("dgx-a100", 1));
  TrainConfig c = config(8, 8);
  c.recompute = Recompute::Full;
  setZeroStage(c, 3);
  const Simulated whole = run(m, c, node);
  TrainConfig tiled = c;
  tiled.tiles = 4;
  const Simulated four = run(m, tiled, node);
  const double h = 8192, layer = 12 * h * h + 13 * h, module = 4 * h * h;
  EXPECT_DOUBLE_EQ(gatheredUnitParameters(m, four.estimate.config, layer), module / 4);
  // Tiling's transients: forward, the MLP's 4h tile outputs beside their concatenation; backward,
  // the sum of the down projection's 4h-wide input gradient beside a tile's own (16-bit, 2,048
  // tokens). A forward task holds its concatenation only while it runs.
  const double tokenValues = 2 * 2048.0;
  EXPECT_DOUBLE_EQ(tilingWorkBytes(m, four.estimate.config).forward, tokenValues * 4 * h);
  EXPECT_DOUBLE_EQ(tilingWorkBytes(m, four.estimate.config).backward, tokenValues * 4 * h);
  EXPECT_EQ(tilingWorkBytes(m, whole.estimate.config).forward, 0);
  auto firstForward = [](const StepGraph& g) {
    return *std::find_if(g.tasks.begin(), g.tasks.end(), [](const Task& t) { return t.pass == Pass::Forward && t.layer == 0; });
  };
  const Task tiledForward = firstForward(four.graph), wholeForward = firstForward(whole.graph);
  EXPECT_DOUBLE_EQ(tiledForward.allocatesBytes - wholeForward.allocatesBytes, tokenValues * 4 * h);
  EXPECT_DOUBLE_EQ(tiledForward.freesBytes, tokenValues * 4 * h + 2 * module / 4);  // and a tile's 16-bit parameters, resharded
  // Two units gathered at the peak and the gradients of one or two, in 16-bit: 6 to 8 bytes a
  // parameter of the three quarters of the module a tile leaves out, less the backward's transient.
  const double saved = whole.estimate.memory.total - four.estimate.memory.total + tokenValues * 4 * h;
  EXPECT_GE(saved, 6 * 0.75 * module);
  EXPECT_LE(saved, 8 * 0.75 * module);
  EXPECT_DOUBLE_EQ(four.estimate.memory.bufferBytes, whole.estimate.memory.bufferBytes);  // the reduction bucket
  // Tiles of 6,144, 2,048, 8,192 and 2,048 outputs stay on the GEMM curve's plateau: the layer is
  // slower by tiling's own traffic alone, forward 2 bytes read and 2 written an output value
  // (3h + h + 4h + h a token), backward three additions of 6 bytes an input value (h + h + h + 4h).
  const double tokens = 2048, bandwidth = node.gpu.memoryBandwidthGBps * 1e9 * node.gpu.memoryEfficiency;
  const LayerTimes plain = layerTimes(m, whole.estimate.config, node), tiles = layerTimes(m, four.estimate.config, node);
  EXPECT_NEAR(tiles.forward - plain.forward, 4 * tokens * 9 * h / bandwidth, 1e-12);
  EXPECT_NEAR(tiles.backward - plain.backward, 3 * 6 * tokens * 7 * h / bandwidth, 1e-12);
  EXPECT_EQ(tiles.forwardKernels - plain.forwardKernels, 4 * 4);       // 3 GEMMs more and a concatenation, each of 4 linears
  EXPECT_EQ(tiles.backwardKernels - plain.backwardKernels, 4 * 3 * 3);  // 6 GEMMs more and 3 additions
  auto flops = [](const std::vector<Gemm>& gemms) {
    return std::accumulate(gemms.begin(), gemms.end(), 0.0, [](double sum, const Gemm& g) { return sum + g.flops(); });
  };
  EXPECT_DOUBLE_EQ(flops(tiles.forwardGemms), flops(plain.forwardGemms));
  EXPECT_DOUBLE_EQ(tiles.forwardGemms[2].n, 4 * h / 4);
  EXPECT_DOUBLE_EQ(tiles.forwardGemms[2].count, 4);
  // 64 tiles of 128 outputs fall off the curve's plateau: the GEMMs themselves slow down.
  TrainConfig narrow = c;
  narrow.tiles = 64;
  resolve(narrow, m, node);
  const LayerTimes thin = layerTimes(m, narrow, node);
  EXPECT_GT(thin.forward - 4 * tokens * 9 * h / bandwidth, 1.5 * plain.forward);  // the GEMMs at 0.25-0.62 of peak, not 0.76
  // Only a ZeRO-3 that gathers module by module gathers tiles; no more tiles than outputs.
  for (auto [bad, what] : {std::pair{std::string("fsdp"), std::string("--zero 3")}, {std::string("wide"), std::string("narrowest")}}) {
    TrainConfig b = tiled;
    if (bad == "fsdp") b.sharding = parseFsdp("full_shard"), b.gathersByModule = false;
    else b.tiles = 8192 + 1;
    try {
      resolve(b, m, node);
      FAIL() << bad << " was accepted";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
  }
  // A LLaMA-family layer tiles its seven modules (Q, K, V, output, gate, up, down): its narrowest is
  // K's or V's, 8 key/value heads of 128 over 2 tensor ranks (512 outputs); the widest input the
  // down projection's 14,336 / 2.
  const ModelCard llama = modelFromJson({{"model_type", "llama"}, {"hidden_size", 4096}, {"num_hidden_layers", 8}, {"num_attention_heads", 32},
                                         {"num_key_value_heads", 8}, {"intermediate_size", 14336}, {"vocab_size", 128256}},
                                        "test", "llama");
  const std::vector<LinearModule> modules = linearModules(llama, 2);
  ASSERT_EQ(modules.size(), 7u);
  EXPECT_DOUBLE_EQ(modules[1].outputs, 512);
  TrainConfig gated = tiled;
  gated.tp = 2;
  gated.tiles = 512;
  resolve(gated, llama, node);
  EXPECT_DOUBLE_EQ(tilingWorkBytes(llama, gated).backward, tokenValues * 14336 / 2);
  EXPECT_DOUBLE_EQ(tilingWorkBytes(llama, gated).forward, tokenValues * 14336 / 2);  // gate and up: 7,168 outputs each
  gated.tiles = 513;
  EXPECT_THROW(resolve(gated, llama, node), InputError);
}

TEST(Timeline, DeepSpeedZeroThreeWithoutOverlapCommWaitsForEachReduceScatter) {
  // DeepSpeed's overlap_comm (on by default for ZeRO-3 only) reduce-scatters a module's gradients
  // on a stream of their own; off, on the compute stream, so the next compute waits for each. Four
  // DGX A100s: the gathers and reduce-scatters cross InfiniBand. Without overlap each reduce-scatter
  // ends before the next compute task starts, and the step is longer by about their time.
  const ModelCard m = gpt(4096, 8, 32);
  const Cluster four = withoutStepKnobs(nodes("dgx-a100", 4));
  TrainConfig c = config(32, 32);
  setZeroStage(c, 3);
  const Simulated overlapped = run(m, c, four);
  c.overlapGradReduce = false;
  const Simulated blocking = run(m, c, four);
  const StepGraph& g = blocking.graph;
  double scatterSeconds = 0;
  int scatters = 0;
  for (std::size_t k = 0; k < g.tasks.size(); ++k) {
    if (g.tasks[k].label.rfind("reduce-scatter L", 0) != 0) continue;
    ++scatters;
    scatterSeconds += blocking.timeline.tasks[k].end - blocking.timeline.tasks[k].start;
    // The next task on the compute stream starts once the reduce-scatter has ended.
    for (std::size_t n = k + 1; n < g.tasks.size(); ++n) {
      if (g.tasks[n].stream != StreamKind::Compute) continue;
      EXPECT_GE(blocking.timeline.tasks[n].start, blocking.timeline.tasks[k].end - 1e-12) << g.tasks[n].label;
      break;
    }
  }
  EXPECT_EQ(scatters, 8);
  EXPECT_GT(scatterSeconds, 0.05 * overlapped.estimate.step.total);  // enough to see
  // Longer by about the reduce-scatters' time (no interference here: withoutStepKnobs), at most
  // by all of it.
  EXPECT_GT(blocking.estimate.step.total, overlapped.estimate.step.total + 0.5 * scatterSeconds);
  EXPECT_LE(blocking.estimate.step.total, overlapped.estimate.step.total + scatterSeconds + 1e-9);
  // The closed form adds each reduce-scatter at its price alone (in the timeline they share the
  // links with the next layer's gather, prefetched beside them, and take longer) and stays below
  // the timeline.
  TrainingPricer pricer(four);
  const double layer = m.layerParameters(), rest = blocking.estimate.parameters - 8 * layer;
  const double alone = 8 * pricer.seconds(Collective::ReduceScatter, 2 * layer, 32, 4) + pricer.seconds(Collective::ReduceScatter, 2 * rest, 32, 4);
  EXPECT_GT(scatterSeconds, alone);
  EXPECT_NEAR(blocking.estimate.closedForm.shardComm - overlapped.estimate.closedForm.shardComm, alone, 1e-9);
  EXPECT_LE(blocking.estimate.closedForm.total, blocking.estimate.step.total + 1e-9);
  // FSDP has no such switch: it refuses it by name. A ds_config says it (DeepSpeed's default: on
  // for stage 3, off for 1 and 2), and stage3_prefetch_bucket_size 0 turns the prefetch off.
  TrainConfig fsdp = config(32, 32);
  fsdp.sharding = parseFsdp("full_shard");
  fsdp.overlapGradReduce = false;
  EXPECT_THROW(run(m, fsdp, four), InputError);
  TrainConfig three, two, off;
  applyDeepSpeedConfig({{"zero_optimization", {{"stage", 3}}}}, "ds", three);
  applyDeepSpeedConfig({{"zero_optimization", {{"stage", 2}}}}, "ds", two);
  applyDeepSpeedConfig({{"zero_optimization", {{"stage", 3}, {"overlap_comm", false}, {"stage3_prefetch_bucket_size", 0}}}}, "ds", off);
  EXPECT_TRUE(three.overlapGradReduce);
  EXPECT_EQ(three.prefetch, 1);
  EXPECT_FALSE(two.overlapGradReduce);
  EXPECT_FALSE(off.overlapGradReduce);
  EXPECT_EQ(off.prefetch, 0);
  // DeepSpeed's default follows a stage set after the config (--zero, the planner), unless the
  // config said overlap_comm; without a DeepSpeed config every stage overlaps.
  setZeroStage(two, 3);
  EXPECT_TRUE(two.overlapGradReduce);
  setZeroStage(three, 1);
  EXPECT_FALSE(three.overlapGradReduce);
  setZeroStage(off, 3);
  EXPECT_FALSE(off.overlapGradReduce);
  TrainConfig plain;
  setZeroStage(plain, 2);
  EXPECT_TRUE(plain.overlapGradReduce);
}

TEST(Timeline, EveryGpuOfANodeSharesItsNics) {
  // A replica group has one rank a node. On a100-400g two GPUs share a 100 Gb/s NIC: with every
  // GPU running its own group's all-reduce, each gets half the NIC, not the whole NIC a group
  // measured alone would get. On a DGX (a NIC a GPU) the two are the same.
  for (const char* preset : {"a100-400g", "dgx-a100"}) {
    const Cluster cluster = nodes(preset, 16);
    PredictorsByShape alone(cluster);
    TrainingPricer training(cluster);
    const double bytes = 256e6;
    auto aloneSeconds = [&](int ranks) {
      Query q;
      q.bytes = bytes, q.ranks = ranks, q.nodes = 16;
      return alone.forShape(Shape{ranks, 16}).predict(q).timeUs * 1e-6;
    };
    const double measuredAlone = aloneSeconds(16);
    const double inAStep = training.seconds(Collective::AllReduce, bytes, 16, 16);
    EXPECT_NEAR(inAStep / measuredAlone, std::string(preset) == "dgx-a100" ? 1.0 : 2.0, 0.05) << preset;
    // Groups with a whole NIC's GPUs a node are priced as before.
    EXPECT_NEAR(training.seconds(Collective::AllReduce, bytes, 128, 16) / aloneSeconds(128), 1.0, 0.05) << preset;
  }
}

TEST(Timeline, FullRecomputeOnSomeLayers) {
  // fms-fsdp's selective checkpointing: full recompute on a fraction of the blocks, spread evenly
  // (ac_handler.py: 1/2 -> [ac, no, ac, no, ...], 1/3 -> [no, ac, no, no, ac, no, ...],
  // 2/3 -> [ac, no, ac, ac, no, ac, ...]).
  auto pattern = [](int n, int layers) {
    TrainConfig c;
    c.recompute = Recompute::Full;
    c.recomputeLayers = n;
    std::string p;
    for (int l = 0; l < layers; ++l) p += recomputesLayer(c, l, layers) ? 'R' : '.';
    return p;
  };
  EXPECT_EQ(pattern(4, 8), "R.R.R.R.");
  EXPECT_EQ(pattern(2, 6), ".R..R.");
  EXPECT_EQ(pattern(4, 6), "R.RR.R");
  EXPECT_EQ(pattern(6, 6), "RRRRRR");

  const ModelCard m = gpt(4096, 32, 32);
  const Cluster one = nodes("dgx-a100", 1);
  TrainConfig none = config(8, 16);
  TrainConfig full = none, half = none;
  full.recompute = half.recompute = Recompute::Full;
  half.recomputeLayers = 16;
  const Simulated a = run(m, none, one), b = run(m, half, one), f = run(m, full, one);
  int recomputes = 0;
  for (const Task& t : b.graph.tasks) recomputes += t.pass == Pass::Recompute ? 1 : 0;
  EXPECT_EQ(recomputes, 16 * b.estimate.config.accumulation);
  // Time, FLOPs and memory half-way between none and full (each layer's share is the same).
  auto halfWay = [](double x, double y) { return (x + y) / 2; };
  EXPECT_NEAR(b.estimate.step.compute, halfWay(a.estimate.step.compute, f.estimate.step.compute), 1e-6 * f.estimate.step.compute);
  EXPECT_NEAR(b.estimate.flops.hardwarePerStep, halfWay(a.estimate.flops.hardwarePerStep, f.estimate.flops.hardwarePerStep), 1);
  EXPECT_LT(b.estimate.memory.activations, a.estimate.memory.activations);
  EXPECT_GT(b.estimate.memory.activations, f.estimate.memory.activations);
  EXPECT_LT(b.timeline.peakBytes[0], a.timeline.peakBytes[0]);
  EXPECT_GT(b.timeline.peakBytes[0], f.timeline.peakBytes[0]);
}

TEST(Timeline, ZeroThreePrefetchTradesMemoryForTime) {
  const ModelCard m = gpt(6144, 40, 48);
  const Cluster sixteen = withoutStepKnobs(nodes("dgx-a100", 2));
  TrainConfig c = config(16, 32);
  setZeroStage(c, 3);
  c.prefetch = 0;
  const Simulated none = run(m, c, sixteen);
  c.prefetch = 2;
  const Simulated deep = run(m, c, sixteen);
  EXPECT_LT(deep.estimate.step.total, none.estimate.step.total);
  EXPECT_GT(deep.estimate.memory.activations, none.estimate.memory.activations);  // more layers gathered at once
}

TEST(Timeline, MemoryFollowsTheSchedule) {
  // 1F1B: the first stage holds min(p, m) micro-batches' activations; GPipe all m.
  const ModelCard m = gpt(8192, 48, 64, 8);
  const Cluster four = withoutStepKnobs(nodes("dgx-a100", 4));
  TrainConfig c = config(32, 16);
  c.tp = 8;
  c.pp = 4;
  const Simulated oneF = run(m, c, four);
  c.schedule = Schedule::GPipe;
  const Simulated gpipe = run(m, c, four);
  TrainConfig plain = oneF.estimate.config;
  const double layer = activationBytesPerLayer(m, plain);
  EXPECT_NEAR(oneF.estimate.memory.activations / (4 * 12 * layer), 1.0, 0.01);
  EXPECT_NEAR(gpipe.estimate.memory.activations / (16 * 12 * layer), 1.0, 0.01);
  // The memory's parts add up.
  const MemoryBreakdown& mem = oneF.estimate.memory;
  EXPECT_DOUBLE_EQ(mem.total, mem.parameters + mem.gradients + mem.optimizerStates + mem.activations + mem.other);
}

TEST(Timeline, TraceIsChromeTraceJsonWithOneTrackPerStreamPerStage) {
  TrainConfig c = config(64, 64);
  c.tp = 8;
  c.pp = 2;
  const Simulated s = run(gpt(4096, 16, 32), c, nodes("dgx-a100", 8));
  const results::Json trace = results::parseJson(chromeTrace(s.graph, s.timeline, "test"), "trace");
  int complete = 0, onPath = 0, threads = 0;
  double last = 0;
  for (const results::Json& event : trace["traceEvents"]) {
    if (event["ph"] == "X") {
      ++complete;
      onPath += event["args"]["critical_path"].get<bool>() ? 1 : 0;
      last = std::max(last, event["ts"].get<double>() + event["dur"].get<double>());
    }
    if (event["ph"] == "M" && event["name"] == "thread_name") ++threads;
  }
  EXPECT_EQ(complete, static_cast<int>(s.graph.tasks.size()));
  EXPECT_EQ(threads, 2 * kStreamKinds);
  EXPECT_EQ(onPath, static_cast<int>(s.timeline.criticalPath.size()));
  EXPECT_NEAR(last * 1e-6, s.estimate.step.total, 1e-9);
}

// CPU ranks are pinned round-robin to their node's cores (Open MPI's --map-by core): a 4-stage
// pipeline on 2 cores puts stages 0 and 2 on core 0, 1 and 3 on core 1. Two busy stages on one
// core share it even while the other core idles (a pool of cores would give each a whole one:
// what made the CPU's 4-stage pipelines come out 17-21% fast); DDP's four ranks on the same cores
// load each core alike.
TEST(Timeline, PinnedRanksShareOnlyTheirOwnCore) {
  const Cluster cpu = nodes("cpu-2core-amd-epyc", 1);
  Cluster fourRanks = cpu;
  reshape(fourRanks, 1, 4);  // 4 ranks on the node's 2 cores, as `mpirun -np 4` runs them
  TrainConfig pipeline;
  pipeline.gpus = pipeline.pp = 4;
  pipeline.tp = pipeline.dp = 1;
  const Interference pinned = interferenceOf(fourRanks, pipeline);
  ASSERT_EQ(pinned.stageCores.size(), 4u);
  for (int s = 0; s < 4; ++s) {
    ASSERT_EQ(pinned.stageCores[static_cast<std::size_t>(s)].size(), 1u);
    EXPECT_EQ(pinned.stageCores[static_cast<std::size_t>(s)][0].core, s % 2);
  }
  TrainConfig ddp = pipeline;
  ddp.pp = 1;
  ddp.dp = 4;
  const Interference data = interferenceOf(fourRanks, ddp);
  ASSERT_EQ(data.stageCores.size(), 1u);
  ASSERT_EQ(data.stageCores[0].size(), 2u);
  EXPECT_EQ(data.stageCores[0][0].ranks + data.stageCores[0][1].ranks, 4);

  // Stages 1 and 3 each compute for 1 s, stages 0 and 2 idle: both on core 1, so 2 s.
  StepGraph g;
  g.stages = 4;
  g.residentBytes = {0, 0, 0, 0};
  g.tasks.resize(2);
  g.tasks[0].stage = 1;
  g.tasks[1].stage = 3;
  g.tasks[0].seconds = g.tasks[1].seconds = 1;
  Interference plain = pinned;
  plain.oversubscription = 0;
  EXPECT_NEAR(simulate(g, plain).makespan, 2.0, 1e-12);
  // Stages 0 and 1: one on each core, 1 s.
  g.tasks[1].stage = 0;
  EXPECT_NEAR(simulate(g, plain).makespan, 1.0, 1e-12);
  // Without cores to share (a GPU each), 1 s either way.
  g.tasks[1].stage = 3;
  EXPECT_NEAR(simulate(g, {}).makespan, 1.0, 1e-12);
}

TEST(Timeline, PeakFloorReplaysTheComputeStream) {
  // One stage, resident 100: compute A takes 10; a gather G after A takes 5, which compute B waits
  // for; a reduction R after A gives back 4; B takes 2 and gives back 17; C takes 1. The floor
  // counts G's 5 only once B waits for it and R's 4 as early as A's end allows: 100 + 10 + 5 + 2 - 4
  // = 113 at B's start. Every timing of the five tasks peaks at or above it.
  StepGraph g;
  g.stages = 1;
  g.residentBytes = {100};
  g.tasks.resize(5);
  Task &a = g.tasks[0], &gather = g.tasks[1], &b = g.tasks[2], &reduce = g.tasks[3], &c = g.tasks[4];
  a.allocatesBytes = 10;
  gather.stream = StreamKind::Gather;
  gather.after = {0};
  gather.allocatesBytes = 5;
  b.after = {1};
  b.allocatesBytes = 2;
  b.freesBytes = 17;
  reduce.stream = StreamKind::Reduce;
  reduce.after = {0};
  reduce.freesBytes = 4;
  c.allocatesBytes = 1;
  const std::vector<double> floor = peakFloorBytes(g);
  ASSERT_EQ(floor.size(), 1u);
  EXPECT_DOUBLE_EQ(floor[0], 113);
  double lowest = 1e300;
  int timings = 0;
  for (int code = 0; code < 243; ++code) {  // each task 0, 1 or 3 s
    int rest = code;
    for (Task& task : g.tasks) task.seconds = std::array{0.0, 1.0, 3.0}[static_cast<std::size_t>(rest % 3)], rest /= 3;
    const double peak = simulate(g, {}).peakBytes[0];
    EXPECT_GE(peak, floor[0]) << "timing " << code;
    lowest = std::min(lowest, peak);
    ++timings;
  }
  EXPECT_EQ(timings, 243);
  EXPECT_DOUBLE_EQ(lowest, 115);  // G starts beside R at A's end at best: the floor is 2 below
  // Without other streams the replay is the timeline's own memory: the floor is the peak.
  StepGraph alone;
  alone.stages = 1;
  alone.residentBytes = {100};
  alone.tasks = {a, c};
  alone.tasks[0].seconds = 1;
  alone.tasks[1].seconds = 2;
  alone.tasks[1].freesBytes = 11;
  EXPECT_DOUBLE_EQ(peakFloorBytes(alone)[0], 111);
  EXPECT_DOUBLE_EQ(simulate(alone, {}).peakBytes[0], 111);
}

TEST(Timeline, PeakFloorNeverExceedsTheSimulatedPeak) {
  // The planner drops a layout whose floor does not fit without simulating it, so the floor must
  // be below the simulated peak on every stage of every kind of step, with the shipped interference
  // and overheads: DDP, ZeRO-1/2/3 (FSDP's and DeepSpeed's, tiled), HYBRID_SHARD, pipelines in
  // 1F1B, GPipe and interleaved order, recompute, CPU checkpointing, offload, eager execution. And
  // close to it (what makes it worth computing): median floor / peak over the worst stages >= 0.9.
  const ModelCard m = gpt(4096, 8, 32);
  const Cluster two = nodes("dgx-2h", 2);
  struct Layout {
    const char* name;
    void (*set)(TrainConfig&);
  };
  const Layout layouts[] = {
      {"ddp", [](TrainConfig&) {}},
      {"zero1", [](TrainConfig& c) { setZeroStage(c, 1); }},
      {"zero2 offload", [](TrainConfig& c) { setZeroStage(c, 2), c.offloadOptimizer = OffloadTarget::Cpu; }},
      {"zero3", [](TrainConfig& c) { setZeroStage(c, 3); }},
      {"zero3 deepspeed tiled", [](TrainConfig& c) { setZeroStage(c, 3), c.gathersByModule = true, c.tiles = 4; }},
      {"zero3 nvme", [](TrainConfig& c) { setZeroStage(c, 3), c.offloadOptimizer = c.offloadParams = OffloadTarget::Nvme; }},
      {"hybrid", [](TrainConfig& c) { c.sharding = StateSharding::EverythingWithinNode, c.shardingName = "fsdp-hybrid_shard"; }},
      {"tp4 pp2 1f1b", [](TrainConfig& c) { c.tp = 4, c.pp = 2; }},
      {"pp4 gpipe", [](TrainConfig& c) { c.pp = 4, c.schedule = Schedule::GPipe; }},
      {"pp2 interleaved", [](TrainConfig& c) { c.pp = 2, c.vpp = 2, c.schedule = Schedule::Interleaved; }},
      {"pp4 zero1", [](TrainConfig& c) { c.pp = 4, setZeroStage(c, 1); }},
  };
  std::vector<double> ratios;
  for (const Layout& layout : layouts) {
    for (const Recompute recompute : {Recompute::None, Recompute::Selective, Recompute::Full}) {
      for (const bool cpuCheckpoints : {false, true}) {
        if (cpuCheckpoints && recompute != Recompute::Full) continue;
        for (const Execution execution : {Execution::Fused, Execution::Eager}) {
          for (const int microBatch : {1, 4}) {
            TrainConfig c = config(two.gpus(), 8 * two.gpus());
            c.flashAttention = false;
            layout.set(c);
            c.recompute = recompute;
            c.checkpointsOnHost = cpuCheckpoints;
            c.execution = execution;
            c.microBatch = microBatch;
            const Simulated s = run(m, c, two);
            const std::vector<double> floor = peakFloorBytes(s.graph);
            ASSERT_EQ(floor.size(), s.timeline.peakBytes.size());
            std::size_t worst = 0;
            for (std::size_t k = 0; k < floor.size(); ++k) {
              EXPECT_LE(floor[k], s.timeline.peakBytes[k] * (1 + 1e-12))
                  << layout.name << " recompute " << static_cast<int>(recompute) << " cpu checkpoints " << cpuCheckpoints << " eager "
                  << (execution == Execution::Eager) << " micro-batch " << microBatch << " stage " << k;
              if (s.timeline.peakBytes[k] > s.timeline.peakBytes[worst]) worst = k;
            }
            ratios.push_back(*std::max_element(floor.begin(), floor.end()) / s.timeline.peakBytes[worst]);
          }
        }
      }
    }
  }
  EXPECT_EQ(ratios.size(), 11u * 4 * 2 * 2);
  std::sort(ratios.begin(), ratios.end());
  const double median = ratios[ratios.size() / 2];
  std::printf("peak floor / simulated peak over %zu steps: min %.3f, median %.3f\n", ratios.size(), ratios.front(), median);
  EXPECT_GE(median, 0.9);
}

TEST(Timeline, ACycleIsAnInternalErrorNotAHang) {
  StepGraph g;
  g.stages = 1;
  g.residentBytes = {0};
  g.tasks.resize(2);
  g.tasks[0].seconds = g.tasks[1].seconds = 1;
  g.tasks[0].after = {1};
  g.tasks[1].stream = StreamKind::Gather;
  g.tasks[1].after = {0};
  EXPECT_THROW(simulate(g, {}), std::logic_error);
}

}  // namespace
}  // namespace cclab::sim
