// The step timeline against published training runs with overlap (tests/data/training/published/:
// PyTorch FSDP 2023 (GPT-175B, T5-11B), MosaicML's FSDP tables, Megatron-LM 2019 and 2021,
// Korthikanti 2022, llm.c, BLOOM, MT-NLG), each row predicted with the one preset of its machine
// (clusterFor) and no per-row constant. The table docs/training-validation.md shows is printed as it is checked.
//
// Compared: the step time. A row gives it directly (step_s), or as tokens/s per GPU (step = global
// batch x seq / (value x GPUs)), or as TFLOP/s per GPU (step = the FLOPs the source counts /
// (value x GPUs): Megatron-LM's eq. 3 for the Megatron papers, the hardware FLOPs, recompute
// included, for the others). The error is predicted throughput over measured, minus one.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "collectives/errors.h"
#include "results/error_summary.h"
#include "sim/training/estimate.h"
#include "sim/training/step_graph.h"
#include "sim/training/timeline.h"

namespace cclab::sim {
namespace {

using Record = std::map<std::string, std::string>;

// RFC 4180: fields in double quotes may hold commas and doubled quotes.
std::vector<Record> readCsv(const std::string& path) {
  std::ifstream in(path);
  std::stringstream buffer;
  buffer << in.rdbuf();
  const std::string text = buffer.str();
  std::vector<std::vector<std::string>> lines(1);
  std::string field;
  bool quoted = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char ch = text[i];
    if (quoted) {
      if (ch == '"' && i + 1 < text.size() && text[i + 1] == '"') field += '"', ++i;
      else if (ch == '"') quoted = false;
      else field += ch;
    } else if (ch == '"') {
      quoted = true;
    } else if (ch == ',') {
      lines.back().push_back(field), field.clear();
    } else if (ch == '\n') {
      lines.back().push_back(field), field.clear();
      lines.emplace_back();
    } else if (ch != '\r') {
      field += ch;
    }
  }
  if (!field.empty() || !lines.back().empty()) lines.back().push_back(field);
  std::vector<Record> records;
  for (std::size_t k = 1; k < lines.size(); ++k) {
    if (lines[k].size() != lines[0].size()) continue;
    Record r;
    for (std::size_t f = 0; f < lines[0].size(); ++f) r[lines[0][f]] = lines[k][f];
    records.push_back(std::move(r));
  }
  return records;
}

bool startsWith(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }
bool has(const std::string& s, const char* part) { return s.find(part) != std::string::npos; }
int whole(const std::string& s, int fallback) { return s.empty() ? fallback : std::stoi(s); }

// Rows run with software older than the GPU, from the CSV's `software` column: MosaicML's H100
// table was measured before PyTorch 2.0 (its README: "TODO: Update tables with torch 2.0"): PyTorch 1.13's CUDA 11.6/11.7 builds carry no Hopper (sm_90) kernels, so cuBLAS and
// the attention kernels ran as Ampere code JIT-compiled for the H100, without its wgmma tensor-core
// instructions. The H100 description holds kernel timings of 2026 software (PyTorch 2.11, CUDA 13);
// these 17 rows are predicted with it and reported, and guarded apart from the rest.
bool preHopperSoftwareOnH100(const Record& r) { return has(r.at("gpu"), "h100") && has(r.at("software"), "PyTorch before 2.0"); }

// The FSDP paper's T5-11B rows (Fig. 7c step times, Fig. 8c peak memory).
bool fsdpPaperT5(const std::string& id) { return startsWith(id, "fsdp23-fig7c-t5-11b-"); }

// Rows within the 15% today (the rest are named in docs/training-validation.md): outside the H100
// table above 62 of 71 A100 and H100 rows, as before the eager step was measured on an H100 (74
// of 88 then, 12 of them in that table), the 3 PTD-P rows of GPT-3 175B in Megatron-LM 2021's
// Table 2, the 5 one-layer rows of Korthikanti 2022's Table 4 and 12 of the 14 V100 rows of
// Megatron-LM 2019 (these three priced since 2026-11-28); that table's rows, 5 of 17. Of the
// rows priced since: 6 of the 14 T5-11B rows of the FSDP paper (the other 8 predicted 15-17% slow),
// MLPerf's two FP8 rows, none of MT-NLG's three and BLOOM's three (2021-22 Megatron-DeepSpeed),
// and llm.c's fp32 build (TF32, one A100: -1.3%, priced since fp32 activations are sized as fp32):
// docs/training-validation.md. Since 2026-12-02, 11 of the 12 LLaMA-2 FSDP/HSDP rows of the PyTorch/IBM FSDP
// blog and the fms-fsdp README (the H100's 7B is predicted 18.5% fast), and 3 of the 14 T5-11B
// rows, not 6, since eager RMSNorm is priced as the operators it runs (the other 11 predicted
// 15.4-17.8% slow). Since 2026-12-06, 5 of ZeRO-Infinity's 9 rows (Fig. 5(a) and 5(c)) and 2
// of the ZeRO-Offload tutorial's 3 (since the DGX-2's host links are the paper's measured ones).
// Since 2026-12-07 all 14 T5-11B rows (-0.2% to +6.8%), priced as the T5 v1.1 XXL the FSDP team's
// code trains as its 11B, where the original t5-11b's shape left 11 of them 15-18% slow.
constexpr int kOtherRowsWithinFifteenPercent = 117;
constexpr int kPreHopperRowsWithinFifteenPercent = 5;

struct Prediction {
  std::string id, split, metric;
  double measuredStep = 0, predictedStep = 0;
  double measuredMemoryGB = 0, predictedMemoryGB = 0;  // peak memory where the source gives it (0: not given)
  bool preHopperSoftware = false;                      // preHopperSoftwareOnH100 (above)
  double error() const { return measuredStep / predictedStep - 1; }  // throughput: predicted / measured - 1
};

// Megatron-LM 2021's Table 2 prints PTD-P's model-parallel size (96 for GPT-3 175B) but not its
// split: Megatron-LM keeps tensor parallelism inside a node (the paper's first takeaway: tensor
// parallelism up to the GPUs of a server, pipeline parallelism across servers; every row of its
// Table 1), so t is the node's GPUs and p the rest.
bool megatronModelParallelOnly(const Record& r) {
  return startsWith(r.at("framework"), "megatron") && r.at("tp").empty() && r.at("pp").empty() && !r.at("dp").empty() &&
         !r.at("gpus_per_node").empty();
}

// The rows this check can price: a step time, a throughput, TFLOP/s or a scaling figure relative
// to its source's one-GPU row, with a complete layout, on a GPU with a preset, in 16-bit mixed
// precision, FP8 (MLPerf's) or TF32 (llm.c's fp32 build). A pipeline interleaved to a depth the source
// does not state (Llama 3's "modified" interleaved schedule, `vpp` "not stated") has a bubble
// known only within a factor of several, so it is not priced.
bool priced(const Record& r) {
  const std::string& metric = r.at("metric");
  static const std::set<std::string> kPricedMetrics = {"step_s",           "tokens_per_s_per_gpu", "tflops_per_gpu",  "weak_scaling_eff",
                                                       "speedup_vs_1gpu", "pflops_aggregate",     "layer_fwd_bwd_ms"};
  if (!kPricedMetrics.count(metric)) return false;
  if (r.at("split") == "reference") return false;
  // A relative figure on one GPU restates the row it is relative to (meg19-fig5-mp-g1: 1.0 of 39
  // TFLOP/s, the fit row itself).
  if ((metric == "weak_scaling_eff" || metric == "speedup_vs_1gpu") && r.at("gpus") == "1") return false;
  if (r.at("layers").empty() || r.at("hidden").empty() || r.at("vocab").empty()) return false;
  if (has(r.at("vpp"), "not stated")) return false;
  if (!has(r.at("gpu"), "a100") && !has(r.at("gpu"), "h100") && !has(r.at("gpu"), "v100")) return false;
  return (!r.at("tp").empty() && !r.at("pp").empty()) || megatronModelParallelOnly(r);
}

// The preset of the machine a row ran on: by its GPU, for BLOOM's Jean Zay (A100s on Omni-Path,
// not a DGX's InfiniBand) by its interconnect, and for the PyTorch/IBM FSDP blog's two clusters
// (400 and 800 Gb/s between nodes; the fms-fsdp README's rows ran on the A100 one) by source.
std::string clusterFor(const Record& r) {
  if (has(r.at("interconnect"), "Omni-Path")) return "jean-zay-a100";
  if (startsWith(r.at("id"), "fsdpblog24-") || startsWith(r.at("id"), "fmsfsdp-")) return has(r.at("gpu"), "h100") ? "h100-800g" : "a100-400g";
  if (has(r.at("gpu"), "h100")) return "dgx-h100";
  if (has(r.at("gpu"), "v100")) return "dgx-2h";
  if (has(r.at("gpu"), "40gb")) return "dgx-a100-40gb";
  return "dgx-a100";
}

ModelCard modelFor(const Record& r, int layersOverride = 0) {
  // The FSDP paper's "HF T5-11B": the model card of the checkpoint its team's code trains as 11B,
  // T5 v1.1 XXL (24 + 24 layers, d_model 4096, 64 heads of d_kv 64, gated-GELU d_ff 10240, untied
  // output layer; the CSV's row gives the shape but not d_kv, the gating or the untied head).
  if (has(r.at("model"), "t5-v1_1-xxl")) return loadModel("t5-v1_1-xxl");
  const int layers = layersOverride > 0 ? layersOverride : std::stoi(r.at("layers"));
  const int hidden = std::stoi(r.at("hidden")), heads = std::stoi(r.at("heads"));
  int vocab = std::stoi(r.at("vocab"));
  const int seq = std::stoi(r.at("seq"));
  // llm.c pads the vocabulary to a multiple of 128 (train_gpt2.cu's padded_vocab_size: 50,304 for
  // GPT-2's 50,257), so its GEMMs run aligned: what ccsim's --vocab-multiple 128 does.
  if (r.at("framework") == "llm.c") vocab = paddedVocabulary(vocab, 128);
  const int ffn = whole(r.at("ffn_hidden"), 4 * hidden);
  results::Json j;
  if (has(r.at("model"), "Llama")) {
    j = {{"model_type", "llama"},        {"hidden_size", hidden},      {"num_hidden_layers", layers},
         {"num_attention_heads", heads}, {"num_key_value_heads", whole(r.at("kv_heads"), heads)},
         {"intermediate_size", ffn},     {"vocab_size", vocab},        {"max_position_embeddings", seq}};
  } else {
    j = {{"model_type", "gpt2"}, {"n_embd", hidden}, {"n_layer", layers}, {"n_head", heads}, {"n_inner", ffn},
         {"n_positions", seq},   {"vocab_size", vocab}};
  }
  return modelFromJson(j, r.at("id"), r.at("model"));
}

TrainConfig configFor(const Record& r, const ModelCard& model) {
  TrainConfig c;
  c.gpus = std::stoi(r.at("gpus"));
  c.seq = std::stoi(r.at("seq"));
  if (megatronModelParallelOnly(r)) {
    c.tp = std::stoi(r.at("gpus_per_node"));
    c.pp = c.gpus / (std::stoi(r.at("dp")) * c.tp);
  } else {
    c.tp = std::stoi(r.at("tp"));
    c.pp = std::stoi(r.at("pp"));
  }
  c.vpp = whole(r.at("vpp"), 1);
  if (c.vpp > 1) c.schedule = Schedule::Interleaved;
  c.microBatch = whole(r.at("micro_batch"), 1);
  const int dp = c.gpus / (c.tp * c.pp);
  const std::string& batch = r.at("global_batch");
  if (batch.empty()) c.globalBatch = c.microBatch * dp;  // FSDP's batch per GPU, no accumulation
  else if (has(batch, "M tokens")) c.globalBatch = static_cast<int>(std::stod(batch) * (1 << 20) / c.seq);
  else c.globalBatch = std::stoi(batch);
  const std::string& sharding = r.at("sharding");
  // FSDP gathers a wrapped unit (a layer) at a time, DeepSpeed's ZeRO-3 a module at a time.
  if (startsWith(sharding, "fsdp_full")) c.sharding = parseFsdp("full_shard");
  else if (startsWith(sharding, "zero3")) setZeroStage(c, 3);
  else if (startsWith(sharding, "fsdp_hybrid")) c.sharding = parseFsdp("hybrid_shard");
  else if (startsWith(sharding, "zero1") || (startsWith(sharding, "fsdp") && c.pp > 1)) setZeroStage(c, 1);
  else if (startsWith(sharding, "zero2")) setZeroStage(c, 2);
  if (has(sharding, "offload_optimizer cpu")) c.offloadOptimizer = OffloadTarget::Cpu;  // ZeRO-Offload
  // ZeRO-Infinity's Table 1: "fp16 params on NVMe, optimizer states on CPU" and the like.
  auto placedOn = [&](const char* what) {
    const auto at = sharding.find(what);
    if (at == std::string::npos) return OffloadTarget::None;
    const std::string device = sharding.substr(at + std::string(what).size(), 4);
    return startsWith(device, "NVMe") ? OffloadTarget::Nvme : startsWith(device, "CPU") ? OffloadTarget::Cpu : OffloadTarget::None;
  };
  if (has(sharding, "ZeRO-Infinity")) {
    c.offloadParams = placedOn("params on ");
    c.offloadOptimizer = placedOn("optimizer states on ");
  }
  const std::string& recompute = r.at("recompute");
  c.recompute = has(recompute, "full") ? Recompute::Full : has(recompute, "selective") ? Recompute::Selective : Recompute::None;
  // "full on 20 of 40 layers": full recompute on some of the layers (fms-fsdp's selective checkpointing).
  if (const auto on = recompute.find("full on "); on != std::string::npos) c.recomputeLayers = std::stoi(recompute.substr(on + 8));
  c.sequenceParallel = has(recompute, "sequence") || has(r.at("id"), "-sp");
  c.flashAttention = startsWith(r.at("flash_attention"), "yes");
  if (has(r.at("id"), "noprefetch")) c.prefetch = 0;  // FSDP's backward prefetch off (Fig. 6b)
  c.execution = startsWith(r.at("execution"), "eager") ? Execution::Eager : Execution::Fused;
  if (has(r.at("precision"), "fp8")) c.precision = Precision::Fp8;  // Transformer Engine's (MLPerf)
  if (startsWith(r.at("precision"), "tf32")) c.precision = Precision::Tf32;  // llm.c's fp32 build
  // Megatron-LM and DeepSpeed of 2019-2022 reduced gradients after the backward pass.
  c.overlapGradReduce = !startsWith(r.at("framework"), "megatron");
  (void)model;
  return c;
}

// The TFLOP/s per GPU a source's relative figures are relative to: its one-GPU row (Megatron-LM
// 2019: "39 TeraFLOPs", meg19-1p2b-1gpu-tflops; weak-scaling efficiency and strong-scaling speedup
// are printed against it).
double oneGpuTflops(const std::vector<Record>& all, const Record& r) {
  auto sourceOf = [](const Record& row) { return row.at("id").substr(0, row.at("id").find('-')); };  // meg19-..., fsdp23-...
  for (const Record& other : all) {
    if (sourceOf(other) == sourceOf(r) && other.at("metric") == "tflops_per_gpu" && other.at("gpus") == "1") {
      return std::stod(other.at("value"));
    }
  }
  ADD_FAILURE() << r.at("id") << ": no one-GPU row of its source to be relative to";
  return 0;
}

double measuredStepSeconds(const std::vector<Record>& all, const Record& r, const TrainConfig& c, const ModelCard& m,
                           const TrainingEstimate& e) {
  const double value = std::stod(r.at("value"));
  const std::string& metric = r.at("metric");
  if (metric == "step_s") return value;
  if (metric == "layer_fwd_bwd_ms") return value / 1e3;
  if (metric == "tokens_per_s_per_gpu") return static_cast<double>(c.globalBatch) * c.seq / (value * c.gpus);
  // ZeRO-Infinity counts 2 x 4 x 12 x bsz x seq x nl x hd^2 a step (its Sec. 4.1: forward,
  // backward twice the forward, and the recompute; the layers' GEMMs only).
  const double zeroInfinityFlops = 2.0 * 4 * 12 * c.globalBatch * c.seq * m.layers * double(m.hidden) * m.hidden;
  const double flops = startsWith(r.at("id"), "meg")    ? megatronFlopsPerStep(c.globalBatch, c.seq, m.layers, m.hidden, m.vocab)
                       : startsWith(r.at("id"), "zinf") ? zeroInfinityFlops
                                                        : e.flops.hardwarePerStep;
  if (metric == "pflops_aggregate") return flops / (value * 1e15);
  // Weak scaling: per GPU, the efficiency times the one-GPU rate. Strong scaling: the one-GPU
  // step of the same model and batch (the same FLOPs at the one-GPU rate), divided by the speedup.
  if (metric == "weak_scaling_eff") return flops / (value * oneGpuTflops(all, r) * 1e12 * c.gpus);
  if (metric == "speedup_vs_1gpu") return flops / (oneGpuTflops(all, r) * 1e12) / value;
  return flops / (value * 1e12 * c.gpus);
}

// One transformer layer's forward and backward (Korthikanti et al. 2022, Table 4: measured with a
// one-layer model): the step of the model with two layers less the step with one, each without its
// optimizer step, so the embedding, the logits and the loss fall out.
double oneLayerSeconds(const Record& r, const Cluster& job) {
  auto withoutOptimizer = [&](int layers) {
    const ModelCard model = modelFor(r, layers);
    TrainConfig c = configFor(r, model);
    resolve(c, model, job);
    TrainingPricer pricer(job);
    const TrainingEstimate e = estimateTraining(model, c, pricer);
    return e.step.total - e.step.optimizer;
  };
  return withoutOptimizer(2) - withoutOptimizer(1);
}

// Every priced row whose id starts with `idPrefix` (all of them by default).
std::vector<Prediction> predictAll(const std::string& idPrefix = "") {
  std::vector<Prediction> out;
  const std::vector<Record> all = readCsv(std::string(CCLAB_TEST_DATA) + "/training/published/overlap_runs.csv");
  for (const Record& r : all) {
    if (!priced(r) || !startsWith(r.at("id"), idPrefix.c_str())) continue;
    const ModelCard model = modelFor(r);
    TrainConfig c = configFor(r, model);
    const Cluster job = jobCluster(loadCluster(clusterFor(r)), c.gpus);
    try {
      resolve(c, model, job);
    } catch (const InputError& e) {  // a layout cclab does not build
      std::printf("not priced: %s: %s\n", r.at("id").c_str(), e.what());
      continue;
    }
    TrainingPricer pricer(job);
    const TrainingEstimate e = estimateTraining(model, c, pricer);
    const double predicted = r.at("metric") == "layer_fwd_bwd_ms" ? oneLayerSeconds(r, job) : e.step.total;
    Prediction p{r.at("id"), r.at("split"), r.at("metric"), measuredStepSeconds(all, r, c, model, e), predicted, 0, 0,
                 preHopperSoftwareOnH100(r)};
    // "47 GB alloc / 63 GB active / 78 GB reserved": PyTorch's peak allocated memory, the closest
    // to what ccsim predicts (memory in use, with the framework allowance for the CUDA context's
    // workspaces). GB read as 10^9 bytes (the source does not say; as GiB the measured would be 7%
    // higher).
    if (const std::string& memory = r.at("peak_memory_as_published"); has(memory, "GB alloc")) {
      p.measuredMemoryGB = std::stod(memory);
      p.predictedMemoryGB = e.memory.total / 1e9;
    }
    out.push_back(p);
  }
  return out;
}

TEST(PublishedRuns, StepTimeAgainstEveryPricedRow) {
  const std::vector<Prediction> rows = predictAll();
  ASSERT_GE(rows.size(), 80u);
  std::map<std::string, std::vector<double>> bySplit;
  std::printf("| row | split | measured step s | predicted s | throughput error |\n");
  for (const Prediction& p : rows) {
    ASSERT_TRUE(std::isfinite(p.predictedStep) && p.predictedStep > 0) << p.id;
    std::printf("| %s | %s | %.4g | %.4g | %+.1f%% |\n", p.id.c_str(), p.split.c_str(), p.measuredStep, p.predictedStep, 100 * p.error());
    bySplit[p.split].push_back(std::abs(100 * p.error()));
    bySplit["all"].push_back(std::abs(100 * p.error()));
  }
  int withinFifteen = 0, preHopperWithinFifteen = 0, preHopperRows = 0;
  for (const Prediction& p : rows) {
    preHopperRows += p.preHopperSoftware ? 1 : 0;
    const bool within = std::abs(p.error()) <= 0.15;
    withinFifteen += within ? 1 : 0;
    preHopperWithinFifteen += within && p.preHopperSoftware ? 1 : 0;
  }
  std::printf("within 15%%: %d of %zu rows (%d of them in MosaicML's pre-PyTorch-2.0 H100 table)\n", withinFifteen, rows.size(),
              preHopperWithinFifteen);
  for (auto& [split, errors] : bySplit) {
    std::printf("%s: %zu rows, median |error| %.1f%%, max %.1f%%\n", split.c_str(), errors.size(), results::median(errors),
                *std::max_element(errors.begin(), errors.end()));
  }
  // Peak memory: the PyTorch FSDP paper's Fig. 8b (GPT-175B, FULL_SHARD, 128-512 GPUs) and 8c
  // (T5-11B, 8-512 GPUs).
  std::map<std::string, std::vector<double>> memoryErrors;  // by figure
  std::printf("| row | measured peak allocated GB | predicted GB | error |\n");
  for (const Prediction& p : rows) {
    if (p.measuredMemoryGB <= 0) continue;
    const double error = p.predictedMemoryGB / p.measuredMemoryGB - 1;
    memoryErrors[fsdpPaperT5(p.id) ? "T5-11B" : "GPT-175B"].push_back(std::abs(100 * error));
    std::printf("| %s | %.0f | %.1f | %+.1f%% |\n", p.id.c_str(), p.measuredMemoryGB, p.predictedMemoryGB, 100 * error);
  }
  for (const auto& [model, errors] : memoryErrors) {
    std::printf("peak memory, %s: %zu rows, median |error| %.1f%%, max %.1f%%\n", model.c_str(), errors.size(), results::median(errors),
                *std::max_element(errors.begin(), errors.end()));
  }
  ASSERT_EQ(memoryErrors["GPT-175B"].size(), 10u);
  EXPECT_LE(results::median(memoryErrors["GPT-175B"]), 5.0);  // the target
  // T5-11B's figure is not met (median 38.3%, docs/training-validation.md): its measured peak grows 2.4 GB a
  // sample at every GPU count, the model's T5 v1.1 XXL keeps 0.94 GB (16.4% with the original
  // t5-11b's shape until 2026-12-07, 1.6 GB a sample, whose step times were 11-18% slow), and at 8
  // GPUs the figure leaves less for the model states than Adam's sharded states take. Today's
  // median is kept as a ceiling.
  ASSERT_EQ(memoryErrors["T5-11B"].size(), 14u);
  EXPECT_LE(results::median(memoryErrors["T5-11B"]), 38.5);

  // The targets: median |error| 8% and max 15% on the fit and held-out rows alike. The
  // median is met on both; the max is not (docs/training-validation.md, "Checked against published runs",
  // lists the misses: DeepSpeed ZeRO-3 of 2021 at 384-2240 GPUs, FSDP's fragmentation outlier,
  // MPT-13B on H100). These bounds are today's, so the model cannot silently get worse.
  EXPECT_EQ(preHopperRows, 17);  // the whole H100 table, read from its software column
  EXPECT_GE(withinFifteen - preHopperWithinFifteen, kOtherRowsWithinFifteenPercent);
  EXPECT_GE(preHopperWithinFifteen, kPreHopperRowsWithinFifteenPercent);
  EXPECT_LE(results::median(bySplit["fit"]), 9.0);
  EXPECT_LE(results::median(bySplit["holdout"]), 8.0);  // 6.8% (7.6% before T5 v1.1 XXL, 7.7% before the offloaded gradients left in the backward, 7.6% before ZeRO-Infinity's nine rows, 7.4% before ZeRO-Offload's three, 6.7% before T5, MT-NLG and BLOOM)
  // Outside that table the held-out median is 6.3% (7.1% before T5 v1.1 XXL, 7.2% before the offloaded gradients left in the backward, 7.1% before ZeRO-Infinity's nine rows, 7.0% before ZeRO-Offload's 10 B on one V100,
  // predicted 19-24% fast: PublishedRuns.ZeroOffloadTenBillionOnOneV100), 6.9% before the FSDP blog's rows, 5.7% before
  // the T5, MT-NLG and BLOOM rows were priced, 5.4% before the V100, PTD-P 175B and one-layer rows,
  // 6.0% before the eager step was measured.
  std::vector<double> otherHeldOut, v100HeldOut;
  for (const Prediction& p : rows) {
    if (p.split == "holdout" && !p.preHopperSoftware) otherHeldOut.push_back(std::abs(100 * p.error()));
    if (p.split == "holdout" && startsWith(p.id, "meg19")) v100HeldOut.push_back(std::abs(100 * p.error()));
  }
  std::printf("held out outside that table: %zu rows, median |error| %.1f%%\n", otherHeldOut.size(), results::median(otherHeldOut));
  EXPECT_LE(results::median(otherHeldOut), 6.5);  // 6.3% (7.1% before T5 v1.1 XXL)
  // The FSDP paper's T5-11B (Fig. 7c, batch 8 and 16 a GPU on 8-512 A100s), priced as T5 v1.1
  // XXL: -0.2% to +6.8%, median 1.4%. Priced as the original t5-11b (d_model 1024, 128 heads of
  // 128, d_ff 65536) the same rows are 11-18% slow: the check can fail.
  std::vector<double> t5;
  for (const Prediction& p : rows) {
    if (fsdpPaperT5(p.id)) t5.push_back(std::abs(100 * p.error()));
  }
  ASSERT_EQ(t5.size(), 14u);
  EXPECT_LE(results::median(t5), 2.0);
  EXPECT_LE(*std::max_element(t5.begin(), t5.end()), 7.5);
  // ZeRO-Infinity on DGX-2s (Rajbhandari et al. SC'21, Fig. 5(a) and 5(c) with Table 1's layouts):
  // ZeRO-3 with the parameters and optimizer states on the GPUs, in host memory or on NVMe, 10 B
  // to 10 T parameters on 16 and 512 V100s. Median 12.6% (5 of 9 within 15%), the NVMe rows
  // predicted 13-31% slow; 31-60% slow before the DGX-2's NVMe was the paper's measured 25 GB/s
  // a node (it was an estimate, 10) and the optimizer step moved what DeepSpeed moves there (the
  // gradients leave during the backward): docs/training-validation.md, "ZeRO-Infinity on DGX-2s".
  std::vector<double> zeroInfinity;
  for (const Prediction& p : rows) {
    if (startsWith(p.id, "zinf21-")) zeroInfinity.push_back(std::abs(100 * p.error()));
  }
  ASSERT_EQ(zeroInfinity.size(), 9u);
  EXPECT_LE(results::median(zeroInfinity), 13.5);
  // LLaMA-2 7B-70B under PyTorch FSDP (HYBRID_SHARD for 7B and 13B, FULL_SHARD with activation
  // checkpointing for 34B and 70B), eager, on 128 A100s with 400 Gb/s between nodes and 96 H100s
  // with 800 Gb/s (the PyTorch/IBM blog, 2024; the fms-fsdp README's A100 rows), priced with
  // presets written from what the blog states (a100-400g, h100-800g) and nothing fitted on them:
  // the A100 rows within 15% (median 7.7%), the H100's median 10.6% (its 7B +18.5%: the blog's own
  // profiles show the network exposed, its "10% gap", which the model hides behind compute).
  // Without eager RMSNorm and rotary priced as their operators, the A100 median is 8.3% and the
  // H100's 22.7%: the check can fail.
  std::vector<double> fsdpBlogA100, fsdpBlogH100;
  for (const Prediction& p : rows) {
    if (!startsWith(p.id, "fsdpblog24-") && !startsWith(p.id, "fmsfsdp-")) continue;
    (has(p.id, "h100") ? fsdpBlogH100 : fsdpBlogA100).push_back(std::abs(100 * p.error()));
  }
  ASSERT_EQ(fsdpBlogA100.size(), 8u);
  ASSERT_EQ(fsdpBlogH100.size(), 4u);
  EXPECT_LE(*std::max_element(fsdpBlogA100.begin(), fsdpBlogA100.end()), 15.0);
  EXPECT_LE(results::median(fsdpBlogA100), 8.0);
  EXPECT_LE(results::median(fsdpBlogH100), 11.0);
  // Megatron-LM 2019 on DGX-2H V100s: the one-GPU row sets the V100's GEMM plateau (fit); the
  // tensor- and data-parallel scaling rows are held out: median 7.2% over 13, the 8.3B model on
  // 512 GPUs within 6%; the 1.2B model's strong scaling to 4 and 8 GPUs misses (+35%, +60%).
  ASSERT_EQ(v100HeldOut.size(), 13u);
  EXPECT_LE(results::median(v100HeldOut), 8.0);
  // Without the interference the fit row asks for, the FSDP rows come out too fast again: the
  // check can fail.
  int fsdpWithinTen = 0;
  for (const Prediction& p : rows) fsdpWithinTen += startsWith(p.id, "fsdp23-fig7b-gpt175b-b1") && std::abs(p.error()) < 0.10 ? 1 : 0;
  EXPECT_EQ(fsdpWithinTen, 5);
}

// ZeRO-Offload's CPU-Adam (Ren et al. 2021, Table 4: 1-10 billion parameters on a DGX-2's two
// Xeon 8168 sockets) against cpuOptimizerSeconds: 28 bytes a parameter at the host's memory
// bandwidth times host.memory_efficiency, the one constant these five rows fit (0.425, their
// median). The 1 B row takes 17% longer a parameter than the model says, the 8 B row 15% less.
TEST(PublishedRuns, CpuOptimizerAgainstZeroOffloadTable4) {
  const Cluster host = jobCluster(loadCluster("dgx-2h"), 1);  // one process on the whole host, as the table's
  std::vector<double> errors;
  std::printf("| row | measured s | predicted s | error |\n");
  for (const Record& r : readCsv(std::string(CCLAB_TEST_DATA) + "/training/published/overlap_runs.csv")) {
    if (r.at("metric") != "cpu_adam_s") continue;
    const double measured = std::stod(r.at("value")), predicted = cpuOptimizerSeconds(host, std::stod(r.at("params_b")) * 1e9);
    errors.push_back(std::abs(100 * (predicted / measured - 1)));
    std::printf("| %s | %.2f | %.3f | %+.1f%% |\n", r.at("id").c_str(), measured, predicted, 100 * (predicted / measured - 1));
  }
  ASSERT_EQ(errors.size(), 5u);
  EXPECT_LE(results::median(errors), 1.0);
  EXPECT_LE(*std::max_element(errors.begin(), errors.end()), 17.0);
  // At the full 256 GB/s (the model before this fit) every row comes out 2-3x too fast.
  Cluster peak = host;
  peak.host.memoryEfficiency = 1;
  EXPECT_LT(cpuOptimizerSeconds(peak, 10e9), 0.5 * 2.57);
}

// The span of a simulated step's tasks of the given passes: from the first one's start to the last
// one's end. The backward, as DeepSpeed's backward timer takes it: the backward and recompute tasks,
// the reductions and gradient copies issued in it included (engine.backward waits for them).
double passSeconds(const StepGraph& graph, const Timeline& timeline, std::initializer_list<Pass> passes) {
  double start = 1e300, end = 0;
  for (std::size_t i = 0; i < graph.tasks.size(); ++i) {
    if (std::find(passes.begin(), passes.end(), graph.tasks[i].pass) == passes.end()) continue;
    start = std::min(start, timeline.tasks[i].start);
    end = std::max(end, timeline.tasks[i].end);
  }
  return end - start;
}

// ZeRO-Offload's headline run, the 10 B GPT-2 on one 32 GB V100 (DeepSpeed's tutorial log: three
// steps of 25.7-26.8 s at micro-batch 10, forward 6.38 s, backward 11.77 s, optimizer 7.61 s of
// which CPU-Adam 6.48 s): it fits (31.7 of 32 GiB; 50.9 GiB while the model kept ZeRO-2's
// gradients on the GPU), and the step is predicted 4-10% short (24.2 s; throughput +6 to +10.5%;
// +14 to +19% while the gradients went down as 16-bit in the optimizer step, +19 to +24% while
// the DGX-2's PCIe was its 16 GB/s line rate). The forward and backward, its gradients' fp32
// copies (3.3 s over the GPU's 12 GB/s link, each holding the host) included, are within 10% of
// the log's; the offloaded optimizer step is short because the log's CPU-Adam took 2.5 times
// what the paper's Table 4 gives for the same 10 B (6.48 s against 2.57 s), which the description
// follows.
TEST(PublishedRuns, ZeroOffloadTenBillionOnOneV100) {
  int rows = 0;
  for (const Prediction& p : predictAll("zoff21-tut-")) {
    ++rows;
    EXPECT_GT(p.error(), 0.04) << p.id;  // predicted too fast, as above: the check shows it
    EXPECT_LT(p.error(), 0.12) << p.id;
  }
  EXPECT_EQ(rows, 3);
  const std::vector<Record> all = readCsv(std::string(CCLAB_TEST_DATA) + "/training/published/overlap_runs.csv");
  const auto row = std::find_if(all.begin(), all.end(), [](const Record& r) { return r.at("id") == "zoff21-tut-10b-1gpu-iter8"; });
  ASSERT_NE(row, all.end());
  const ModelCard model = modelFor(*row);
  TrainConfig c = configFor(*row, model);
  const Cluster job = jobCluster(loadCluster("dgx-2h"), 1);
  resolve(c, model, job);
  TrainingPricer pricer(job);
  StepGraph graph;
  Timeline timeline;
  const TrainingEstimate e = estimateTraining(model, c, pricer, &graph, &timeline);
  EXPECT_TRUE(e.memory.fits) << e.memory.total / (1 << 30) << " GiB";
  EXPECT_EQ(e.memory.gradients, 0);
  const double forwardBackward = passSeconds(graph, timeline, {Pass::Forward, Pass::Backward, Pass::Recompute});
  EXPECT_NEAR(forwardBackward, 6.38 + 11.77, 0.1 * (6.38 + 11.77));
  EXPECT_GT(forwardBackward, e.step.compute + 0.9 * 10e9 * 4 / 12e9);  // the copies hold the compute
}

// A ZeRO-Infinity layout on DGX-2s, its activation checkpoints in host memory or on the GPU.
TrainingEstimate onDgx2(const ModelCard& model, TrainConfig c, bool checkpointsOnHost) {
  const Cluster job = jobCluster(loadCluster("dgx-2h"), c.gpus);
  c.checkpointsOnHost = checkpointsOnHost;
  resolve(c, model, job);
  TrainingPricer pricer(job);
  return estimateTraining(model, c, pricer);
}

// A figure of step ratios (one setting on against off): each `metric` row of the paper's, its
// vocabulary GPT-2's (not given), priced by `ratio` (row, model, its config); prints the table and
// returns the predicted ratios and the |errors| in %. The ratios must all be above 1 and fall row
// by row (the gain or cost shrinks as the rows' compute grows).
struct Ratios {
  std::vector<double> predicted, errors;
};
template <class Ratio>
Ratios priceRatioRows(const std::string& metric, Ratio&& ratio) {
  Ratios out;
  std::printf("| row | hidden | batch a GPU | GPUs | measured | predicted | error of the ratio |\n");
  for (const Record& r : readCsv(std::string(CCLAB_TEST_DATA) + "/training/published/overlap_runs.csv")) {
    if (r.at("metric") != metric) continue;
    Record row = r;
    row.at("vocab") = "50257";  // not given: GPT-2's, as for the rest of the paper's rows
    const ModelCard model = modelFor(row);
    const TrainConfig c = configFor(row, model);
    const double predicted = ratio(row, model, c), measured = std::stod(r.at("value"));
    out.predicted.push_back(predicted);
    out.errors.push_back(std::abs(100 * (predicted / measured - 1)));
    std::printf("| %s | %s | %d | %d | %.3f | %.3f | %+.1f%% |\n", r.at("id").c_str(), r.at("hidden").c_str(), c.microBatch, c.gpus,
                measured, predicted, 100 * (predicted / measured - 1));
  }
  for (std::size_t i = 0; i < out.predicted.size(); ++i) {
    EXPECT_GT(out.predicted[i], 1.0);
    if (i > 0) {
      EXPECT_LT(out.predicted[i], out.predicted[i - 1]);
    }
  }
  if (!out.errors.empty()) std::printf("median |error| of the ratio: %.1f%%\n", results::median(out.errors));
  return out;
}

// ZeRO-Infinity's Fig. 6(e): the step with activation checkpoints offloaded to host memory over
// the step with them on the GPU, for 5-layer models of hidden 2K to 64K (Table 8: batch 4 a GPU,
// 16 heads, ZeRO-3 with the optimizer on the CPU, or NVMe at 64K, on 32 or 64 V100s). Each
// checkpoint (b x s x h in 16-bit) goes out after its layer's forward and back before its
// recompute, blocking the compute stream at the 3.0 GB/s a DGX-2's GPUs get from host memory at
// once. The figure's overheads do not fall with h as the copies' share of the step must (a
// layer's copies grow with h, its FLOPs with h^2): at 8K and 16K it measures 22% and 19% where
// the copies come to a few percent. The test prints the table and holds the predicted ratios where
// they stand, so a change to the model shows.
TEST(PublishedRuns, CpuCheckpointingAgainstZeroInfinityFig6e) {
  const Ratios r = priceRatioRows("act_ckpt_offload_overhead", [](const Record& row, const ModelCard& model, TrainConfig c) {
    c.globalBatch = c.microBatch * c.gpus;  // batch 4 a GPU, no accumulation (Table 8's 128 at 32 GPUs)
    c.offloadOptimizer = has(row.at("sharding"), "optimizer on NVMe") ? OffloadTarget::Nvme : OffloadTarget::Cpu;
    return onDgx2(model, c, true).step.total / onDgx2(model, c, false).step.total;
  });
  ASSERT_EQ(r.predicted.size(), 5u);
  // Where it stands (docs/training-validation.md, "ZeRO-Infinity on DGX-2s"): median 3.3%, max 13.6%.
  EXPECT_LE(results::median(r.errors), 4.0);
  EXPECT_LE(*std::max_element(r.errors.begin(), r.errors.end()), 14.0);
}

// ZeRO-Infinity's Fig. 6(d): the speed-up of communication overlap and prefetching, on against off,
// for an 8 B model (10 layers of hidden 8192, 16 heads) on 64 V100s (four DGX-2s), batch 2 to 16 a
// GPU (Table 7). Off is DeepSpeed's ZeRO-3 with overlap_comm false (each reduce-scatter on the
// compute stream) and no prefetch (stage3_prefetch_bucket_size 0: each layer's gather when its
// compute wants it). The paper names neither the offload (the 8 B model's states fit on the GPUs:
// none) nor the recompute of these runs (every other run of the paper checkpoints, and batch 16
// needs 69 GiB of a 32 GB V100 without it: full). Nothing fitted on them.
TEST(PublishedRuns, OverlapAndPrefetchAgainstZeroInfinityFig6d) {
  const Ratios r = priceRatioRows("speedup_overlap_prefetch", [](const Record& row, const ModelCard& model, TrainConfig on) {
    EXPECT_TRUE(on.gathersByModule && on.overlapGradReduce && on.prefetch == 1) << row.at("id");
    on.recompute = Recompute::Full;
    TrainConfig off = on;
    off.overlapGradReduce = false;
    off.prefetch = 0;
    const TrainingEstimate fast = onDgx2(model, on, false), slow = onDgx2(model, off, false);
    EXPECT_TRUE(fast.memory.fits) << row.at("id") << ": " << fast.memory.total / (1 << 30) << " GiB";
    return slow.step.total / fast.step.total;
  });
  ASSERT_EQ(r.predicted.size(), 6u);
  // Where it stands (docs/training-validation.md, "ZeRO-Infinity on DGX-2s"): median 3.8%, max 12.4% (batch
  // 2: 1.13 predicted against 1.29).
  EXPECT_LE(results::median(r.errors), 4.0);
  EXPECT_LE(*std::max_element(r.errors.begin(), r.errors.end()), 13.0);
}

// ZeRO-Infinity's Fig. 6(c): the backward of an 8 B model (10 layers of hidden 8192, 16 heads,
// batch 2 a GPU, Table 6) on 4 to 64 V100s with the optimizer in host memory, ZeRO-Infinity
// (ZeRO-3: every GPU copies its partition of each layer's gradients over its own link at once)
// against ZeRO-Offload (ZeRO-2: a bucket's gradients belong to the rank owning that stretch of
// the flat buffer, so its copy goes over that one GPU's link, the next bucket's reduction behind
// it). Both as DeepSpeed defaults them (overlap_comm on for stage 3 only, the host buffers
// pageable: each copy holds the host). Not stated and assumed: full recompute, as the paper's other
// runs; GPT-2's vocabulary. Nothing fitted on these rows.
TEST(PublishedRuns, GradientOffloadAgainstZeroInfinityFig6c) {
  std::map<int, double> infinity, offload;  // predicted backward by GPUs
  std::map<int, double> infinityMeasured, offloadMeasured;
  std::vector<double> errors;
  std::printf("| row | GPUs | measured backward s | predicted s | error |\n");
  for (const Record& r : readCsv(std::string(CCLAB_TEST_DATA) + "/training/published/overlap_runs.csv")) {
    if (r.at("metric") != "backward_s") continue;
    Record row = r;
    row.at("vocab") = "50257";
    const ModelCard model = modelFor(row);
    TrainConfig c = configFor(row, model);
    const bool zeroInfinity = has(r.at("sharding"), "ZeRO-Infinity");
    c.deepSpeedDefaults = true;
    c.overlapRequested.reset();
    setZeroStage(c, zeroInfinity ? 3 : 2);
    c.offloadOptimizer = OffloadTarget::Cpu;
    c.offloadParams = OffloadTarget::None;
    c.recompute = Recompute::Full;
    c.bucketBytes = 5e7 * 2;  // reduce_bucket_size 5e7, as DeepSpeedExamples' ZeRO-Offload configs of the time
    const Cluster job = jobCluster(loadCluster("dgx-2h"), c.gpus);
    resolve(c, model, job);
    TrainingPricer pricer(job);
    StepGraph graph;
    Timeline timeline;
    estimateTraining(model, c, pricer, &graph, &timeline);
    const double predicted = passSeconds(graph, timeline, {Pass::Backward, Pass::Recompute}), measured = std::stod(r.at("value"));
    (zeroInfinity ? infinity : offload)[c.gpus] = predicted;
    (zeroInfinity ? infinityMeasured : offloadMeasured)[c.gpus] = measured;
    errors.push_back(std::abs(100 * (predicted / measured - 1)));
    std::printf("| %s | %d | %.2f | %.2f | %+.1f%% |\n", r.at("id").c_str(), c.gpus, measured, predicted, 100 * (predicted / measured - 1));
  }
  ASSERT_EQ(infinity.size(), 4u);
  ASSERT_EQ(offload.size(), 4u);
  std::printf("| GPUs | ZeRO-Offload over ZeRO-Infinity, measured | predicted |\n");
  for (const auto& [gpus, seconds] : infinity) {
    std::printf("| %d | %.2f | %.2f |\n", gpus, offloadMeasured[gpus] / infinityMeasured[gpus], offload[gpus] / seconds);
  }
  std::printf("median |error| %.1f%%\n", results::median(errors));
  // Where it stands (docs/training-validation.md, "ZeRO-Infinity on DGX-2s"): median 7.2%, max 16.4% (the
  // 4-GPU rows, both predicted short).
  EXPECT_LE(results::median(errors), 8.0);
  EXPECT_LE(*std::max_element(errors.begin(), errors.end()), 17.0);
  // The paper's point: ZeRO-Offload's copies go over one link at a time and do not speed up with
  // more GPUs, ZeRO-Infinity's over every GPU's at once and do; "nearly 2x" at 64 GPUs (1.84).
  double previous = 0;
  for (const auto& [gpus, seconds] : infinity) {
    EXPECT_GT(offload[gpus] / seconds, previous) << gpus;
    previous = offload[gpus] / seconds;
  }
  EXPECT_NEAR(offload[64] / infinity[64], 1.84, 0.15 * 1.84);
  EXPECT_NEAR(offload[4] / infinity[4], 0.97, 0.05);
}

// ZeRO-Infinity ran every Table 1 layout on 32 GB V100s. With the activation checkpoints in host
// memory (which its Sec. 8.2 says its largest runs did; Table 1 does not say which) and DeepSpeed's
// ZeRO-3 gathering a module at a time, ccsim fits six of the nine held-out rows in 32 GB; without
// the checkpoints in host memory only the 10 B. The 1 T on 16 GPUs and the 10 T stay over
// untiled: their 4h^2 MLP matrices (2.6 B and 4.3 B / 4 parameters) are what the paper's
// memory-centric tiling splits (--tiles; the paper does not give the tile counts), and with 4 and
// 2 tiles they fit, at a step 0.3% and 0.03% longer. The 1 T on 512 GPUs keeps its model states on the
// GPUs as Table 1 prints it: 16 bytes x 1 T / 512 = 29.3 GiB of the 32 before anything else, which
// no tiling fits.
TEST(PublishedRuns, ZeroInfinityRunsFitWithCheckpointsInHostMemory) {
  const std::map<std::string, int> tilesToFit = {{"zinf21-fig5c-zinf-1000b-g16", 4}, {"zinf21-fig5a-zinf-1000b-g512", 0}, {"zinf21-fig5a-zinf-10000b-g512", 2}};
  int rows = 0;
  for (const Record& r : readCsv(std::string(CCLAB_TEST_DATA) + "/training/published/overlap_runs.csv")) {
    if (!startsWith(r.at("id"), "zinf21-fig5") || r.at("split") != "holdout") continue;
    ++rows;
    const ModelCard model = modelFor(r);
    TrainConfig c = configFor(r, model);
    EXPECT_TRUE(c.gathersByModule) << r.at("id");
    const MemoryBreakdown host = onDgx2(model, c, true).memory, kept = onDgx2(model, c, false).memory;
    std::printf("%s: %.1f GiB with the checkpoints in host memory, %.1f without\n", r.at("id").c_str(), host.total / (1 << 30),
                kept.total / (1 << 30));
    EXPECT_EQ(host.fits, !tilesToFit.count(r.at("id"))) << r.at("id");
    EXPECT_EQ(kept.fits, r.at("id") == "zinf21-fig5c-zinf-10b-g16") << r.at("id");
    if (!tilesToFit.count(r.at("id"))) continue;
    // The fewest tiles (a power of two up to 1,024) that fit, and what they cost in step time.
    int fewest = 0;
    for (int tiles = 2; tiles <= 1024 && fewest == 0; tiles *= 2) {
      TrainConfig tiled = c;
      tiled.tiles = tiles;
      const TrainingEstimate e = onDgx2(model, tiled, true);
      if (!e.memory.fits) continue;
      fewest = tiles;
      const double untiled = onDgx2(model, c, true).step.total;
      std::printf("%s: fits with %d tiles (%.1f GiB), step %.1f s against %.1f untiled\n", r.at("id").c_str(), tiles,
                  e.memory.total / (1 << 30), e.step.total, untiled);
      EXPECT_GT(e.step.total, untiled);
      EXPECT_LT(e.step.total, 1.005 * untiled);
    }
    EXPECT_EQ(fewest, tilesToFit.at(r.at("id"))) << r.at("id");
  }
  EXPECT_EQ(rows, 9);
}

}  // namespace
}  // namespace cclab::sim
