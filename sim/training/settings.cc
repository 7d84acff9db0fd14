#include "sim/training/settings.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <type_traits>

#include <fmt/format.h>

#include "collectives/errors.h"
#include "collectives/sizes.h"
#include "results/json_reader.h"
#include "sim/training/estimate.h"

namespace cclab::sim {
namespace {

bool onOff(const std::string& value, const char* flag) {
  if (auto on = findIn(switches(), value)) return *on;
  throw InputError(fmt::format("{} must be {} (got '{}')", flag, namesOf(switches(), " or "), value));
}

template <class T>
inline constexpr bool kIsOptional = false;
template <class T>
inline constexpr bool kIsOptional<std::optional<T>> = true;

std::string settingNames() {
  std::string names;
  const TrainingSettings none;
  forEachSetting(none, [&](std::string_view name, const auto&, std::string_view, SettingScope) {
    names += (names.empty() ? "" : ", ") + std::string(name);
  });
  return names;
}

// A transformer trains on its full context unless told otherwise.
void defaultSequence(TrainConfig& config, const ModelCard& model, const TrainingSettings& settings) {
  if (model.architecture != Architecture::Given && !settings.seq && config.seq == 0) config.seq = model.maxPositions;
}

}  // namespace

namespace {

// The card shrunk `scale` times: the widths shrink, the depth and the head count stay, so a layer
// keeps its shape (FFN/hidden, heads, GQA groups) and the step its tasks and their proportions
// (docs/training.md).
ModelCard scaled(ModelCard card, const std::optional<int>& scale) {
  if (!scale || *scale == 1 || card.architecture == Architecture::Given) return card;
  const int s = *scale;
  if (card.headDimension > 0) {  // a head dimension of its own (T5's d_kv) shrinks with the widths
    card.headDimension = std::max(1, card.headDimension / s);
  } else if (card.hidden / s < card.heads || (card.hidden / s) % card.heads != 0) {
    throw InputError(fmt::format("--scale {} leaves model '{}' a hidden size of {} that its {} heads do not divide", s, card.name,
                                 card.hidden / s, card.heads));
  }
  card.hidden /= s;
  card.intermediate = std::max(1, card.intermediate / s);
  card.vocab = std::max(1, card.vocab / s);
  if (card.maxPositions > 0) card.maxPositions = std::max(1, card.maxPositions / s);
  card.name += fmt::format(" (scale 1/{})", s);
  return card;
}

}  // namespace

ModelCard TrainingSettings::loadModelCard() const {
  ModelCard card = scaled(loadModel(model), scale);
  if (vocabMultiple && card.architecture != Architecture::Given) card.vocab = paddedVocabulary(card.vocab, *vocabMultiple);
  return card;
}

Cluster TrainingSettings::loadClusterShape() const {
  if (cluster.empty()) throw InputError("give the cluster: --cluster <preset|cluster.json>");
  check();
  Cluster c = loadCluster(cluster);
  reshape(c, nodes, gpusPerNode);
  return c;
}

void TrainingSettings::check() const {
  // Every number given must be one a run can have: the same limits for flags, plan files and the
  // GUI (a value is never clamped or read as "unset").
  auto whole = [](const std::optional<int>& value, const char* flag, int min, int max) {
    if (value && (*value < min || *value > max)) throw InputError(fmt::format("--{} must be from {} to {} (got {})", flag, min, max, *value));
  };
  constexpr int kGpus = 16384;
  whole(nodes, "nodes", 1, kGpus);
  whole(gpusPerNode, "gpus-per-node", 1, kGpus);
  whole(gpus, "gpus", 1, kGpus);
  whole(dp, "dp", 1, kGpus);
  whole(tp, "tp", 1, kGpus);
  whole(pp, "pp", 1, kGpus);
  whole(vpp, "vpp", 1, 1024);
  whole(globalBatch, "global-batch", 1, 1 << 30);
  whole(microBatch, "micro-batch", 1, 1 << 24);
  whole(seq, "seq", 1, 1 << 24);
  whole(prefetch, "prefetch", 0, 64);
  whole(tiles, "tiles", 1, 4096);
  whole(recomputeLayers, "recompute-layers", 1, 1 << 16);
  whole(scale, "scale", 1, 4096);
  whole(vocabMultiple, "vocab-multiple", 1, 1 << 16);
  auto positive = [](const std::optional<double>& value, const char* flag, double max) {
    if (value && !(std::isfinite(*value) && *value >= 1 && *value <= max)) {
      throw InputError(fmt::format("--{} must be a number from 1 to {:g} (got {:g})", flag, max, *value));
    }
  };
  positive(params, "params", 1e15);
  positive(tokens, "tokens", 1e18);
}

TrainConfig TrainingSettings::config(const Cluster& cluster) const {
  if (!model.empty() && params) throw InputError("give one of --model and --params, not both");
  if (model.empty() && !params) throw InputError("give the model: --model <card|config.json>, or --params <count> for model states only");
  check();
  if (params) {  // model states only: what shapes a step has nothing to act on
    for (auto [given, flag] : {std::pair{seq.has_value(), "--seq"}, {microBatch.has_value(), "--micro-batch"},
                               {globalBatch.has_value(), "--global-batch"}, {vpp.has_value(), "--vpp"}, {!schedule.empty(), "--schedule"},
                               {!recompute.empty(), "--recompute"}, {recomputeLayers.has_value(), "--recompute-layers"},
                               {prefetch.has_value(), "--prefetch"}, {tiles.has_value(), "--tiles"}, {scale.has_value(), "--scale"},
                               {!cpuCheckpointing.empty(), "--cpu-checkpointing"}, {!pinMemory.empty(), "--pin-memory"},
                               {!swapPipeline.empty(), "--swap-pipeline"}}) {
      if (given) throw InputError(fmt::format("--params prices the model states alone: {} has nothing to act on (give --model for a step)", flag));
    }
  }
  TrainConfig c;
  if (!deepspeed.empty()) applyDeepSpeedConfig(deepspeed, c);
  c.gpus = gpus.value_or(cluster.gpus());
  if (dp) c.dp = *dp;
  if (tp) c.tp = *tp;
  if (pp) c.pp = *pp;
  if (vpp) c.vpp = *vpp;
  if (zero && !fsdp.empty()) throw InputError("--zero and --fsdp choose the same thing: give one");
  if (zero) setZeroStage(c, *zero);
  if (!fsdp.empty()) {
    c.sharding = parseFsdp(fsdp);
    c.shardingName = "fsdp-" + fsdp;
    c.gathersByModule = false;  // FSDP gathers a wrapped unit (a layer) whole
    if (!c.overlapRequested) c.overlapGradReduce = true;  // its reduce-scatters have their own stream
  }
  if (!precision.empty()) c.precision = parsePrecision(precision);
  if (!optimizer.empty()) c.optimizer = parseOptimizer(optimizer);
  if (globalBatch) c.globalBatch = *globalBatch;
  if (microBatch) c.microBatch = *microBatch;
  if (seq) c.seq = *seq;
  if (!collectives.empty() && collectives != "mpi" && collectives != "cclab" && collectives != "nccl") {
    throw InputError(fmt::format("unknown --collectives '{}' (valid: mpi, cclab, nccl)", collectives));
  }
  c.collectives = collectives;
  if (seq && scale) {
    if (*seq / *scale < 1) throw InputError(fmt::format("--scale {} leaves --seq {} no token", *scale, *seq));
    c.seq = *seq / *scale;
  }
  if (!recompute.empty()) c.recompute = parseRecompute(recompute);
  if (recomputeLayers) c.recomputeLayers = *recomputeLayers;
  if (!schedule.empty()) c.schedule = parseSchedule(schedule);
  c.flashAttention = onOff(flash, "--flash-attention");
  c.sequenceParallel = onOff(sequenceParallel, "--sequence-parallel");
  if (!overlap.empty()) c.overlapGradReduce = *(c.overlapRequested = onOff(overlap, "--overlap-grad-reduce"));
  if (!cpuCheckpointing.empty()) c.checkpointsOnHost = onOff(cpuCheckpointing, "--cpu-checkpointing");
  if (auto e = findIn(executions(), execution)) c.execution = *e;
  else throw InputError(fmt::format("unknown --execution '{}' (valid: {})", execution, namesOf(executions())));
  if (prefetch) c.prefetch = *prefetch;
  if (tiles) c.tiles = *tiles;
  c.frameworkBytes = static_cast<double>(parseSize(framework, "--framework-overhead"));
  const std::optional<OffloadTarget> device = findIn(offloadDevices(), offloadDevice);
  if (!device) throw InputError(fmt::format("unknown --offload-device '{}' (valid: {})", offloadDevice, namesOf(offloadDevices())));
  const std::optional<OffloadStates> states = findIn(offloadStates(), offload);
  if (!states) throw InputError(fmt::format("unknown --offload '{}' (valid: {})", offload, namesOf(offloadStates())));
  if (*states != OffloadStates::None) c.offloadOptimizer = *device;
  if (*states == OffloadStates::OptimizerAndParameters) c.offloadParams = *device;
  if (*device == OffloadTarget::Nvme && *states == OffloadStates::None) {
    throw InputError("--offload-device nvme says where offloaded states go: give --offload optimizer (or optimizer+params) too");
  }
  if (!pinMemory.empty()) c.offloadPinned = onOff(pinMemory, "--pin-memory");
  if (c.offloadPinned && c.offloadOptimizer != OffloadTarget::Cpu) {
    throw InputError("--pin-memory on pins the host buffers of an optimizer offloaded to host memory: give --offload optimizer (cpu) too");
  }
  if (!swapPipeline.empty()) {
    c.swapReadsAhead = c.swapWritesBehind = onOff(swapPipeline, "--swap-pipeline");
    if (c.swapReadsAhead && c.offloadOptimizer != OffloadTarget::Nvme) {
      throw InputError(
          "--swap-pipeline on pipelines the NVMe swapper of an optimizer offloaded to NVMe: give --offload optimizer --offload-device nvme too");
    }
  }
  if (!schedule.empty() && c.vpp > 1 && c.schedule != Schedule::Interleaved) {
    throw InputError(fmt::format("--schedule {} runs one model chunk per stage: --vpp {} needs --schedule interleaved (or leave it out)", schedule, c.vpp));
  }
  if (tokens) c.tokens = *tokens;
  c.statesOnly = params.has_value();
  return c;
}

void setLayout(TrainingSettings& s, const TrainConfig& c) {
  s.dp = c.dp, s.tp = c.tp, s.pp = c.pp, s.vpp = c.vpp, s.microBatch = c.microBatch;
  s.fsdp.clear();
  s.zero = static_cast<int>(c.sharding);  // the planner searches ZeRO stages 0..3
  s.recompute = std::string(name(c.recompute));
  s.schedule = std::string(name(c.schedule));
  s.offload = std::string(name(offloadedStates(c)));
  s.offloadDevice = c.offloadOptimizer == OffloadTarget::None ? "cpu" : std::string(name(c.offloadOptimizer));
  s.cpuCheckpointing = c.checkpointsOnHost ? "on" : "";
  s.pinMemory = c.offloadPinned ? "on" : "";
  s.swapPipeline = swapperPipelined(c) ? "on" : "";
  s.tiles = c.tiles > 1 ? std::optional<int>(c.tiles) : std::nullopt;
}

results::Json toJson(const TrainingSettings& settings) {
  results::Json plan = results::Json::object();
  forEachSetting(settings, [&](std::string_view name, const auto& field, std::string_view, SettingScope) {
    using Field = std::decay_t<decltype(field)>;
    if constexpr (kIsOptional<Field>) {
      if (field) plan[std::string(name)] = *field;
    } else {
      if (!field.empty()) plan[std::string(name)] = field;
    }
  });
  return plan;
}

void applyJson(const results::Json& plan, TrainingSettings& settings, const std::string& source, bool skipLayout) {
  if (!plan.is_object()) throw InputError(fmt::format("{}: a plan file is a JSON object of ccsim train's settings", source));
  for (auto item = plan.begin(); item != plan.end(); ++item) {
    const std::string key = item.key();  // not structured bindings: clang 14 cannot capture those
    const results::Json& value = item.value();
    bool known = false;
    forEachSetting(settings, [&](std::string_view name, auto& field, std::string_view, SettingScope scope) {
      if (name != key) return;
      known = true;
      if (skipLayout && scope == SettingScope::Layout) return;
      using Field = std::decay_t<decltype(field)>;
      if constexpr (std::is_same_v<Field, std::string>) {
        if (!value.is_string()) throw InputError(fmt::format("{}: '{}' must be a string (got {})", source, key, results::quoted(value)));
        field = value.get<std::string>();
      } else if constexpr (std::is_same_v<Field, std::optional<int>>) {
        if (!value.is_number_integer()) throw InputError(fmt::format("{}: '{}' must be an integer (got {})", source, key, results::quoted(value)));
        if (value.is_number_unsigned() && value.get<std::uint64_t>() >= (1ULL << 31)) {
          throw InputError(fmt::format("{}: '{}' is out of range ({})", source, key, results::quoted(value)));
        }
        const auto v = value.get<long long>();
        if (v < -(1LL << 31) || v >= (1LL << 31)) throw InputError(fmt::format("{}: '{}' is out of range ({})", source, key, v));
        field = static_cast<int>(v);
      } else {
        if (!value.is_number()) throw InputError(fmt::format("{}: '{}' must be a number (got {})", source, key, results::quoted(value)));
        field = value.get<double>();
      }
    });
    if (!known) throw InputError(fmt::format("{}: unknown setting '{}' (settings: {})", source, key, settingNames()));
  }
}

TrainingSettings readPlanFile(const std::string& path, bool skipLayout) {
  const results::Json doc = results::readJsonFile(path, "plan file");
  TrainingSettings settings;
  applyJson(doc, settings, path, skipLayout);
  try {
    settings.check();
  } catch (const InputError& e) {
    throw InputError(fmt::format("{}: {}", path, e.what()));
  }
  return settings;
}

TrainingRun runTraining(const TrainingSettings& settings) {
  const Cluster cluster = settings.loadClusterShape();
  TrainConfig config = settings.config(cluster);
  TrainingRun run{.modelName = "", .job = jobCluster(cluster, config.gpus), .estimate = {}, .graph = {}, .timeline = {}};
  if (config.statesOnly) {
    ModelCard none;
    resolve(config, none, run.job);
    run.modelName = fmt::format("{:g} parameters", *settings.params);
    run.estimate = estimateStates(*settings.params, config, run.job);
    return run;
  }
  const ModelCard model = settings.loadModelCard();
  run.modelName = model.name;
  defaultSequence(config, model, settings);
  resolve(config, model, run.job);
  if (settings.prefetch && config.sharding != StateSharding::Everything && config.sharding != StateSharding::EverythingWithinNode) {
    throw InputError("--prefetch is the parameter gathers' depth of ZeRO-3 and FSDP: give --zero 3 or --fsdp full_shard|hybrid_shard");
  }
  TrainingPricer pricer(run.job, config.collectives);
  run.estimate = estimateTraining(model, config, pricer, &run.graph, &run.timeline);
  return run;
}

PlanningInputs planningInputs(const TrainingSettings& settings) {
  if (settings.params) throw InputError("ccsim plan needs the model's shape: give --model, not --params");
  if (!settings.globalBatch) throw InputError("ccsim plan needs --global-batch");
  const Cluster cluster = settings.loadClusterShape();
  PlanningInputs in{.model = {}, .job = {}, .base = settings.config(cluster)};
  in.model = settings.loadModelCard();
  defaultSequence(in.base, in.model, settings);
  in.job = jobCluster(cluster, in.base.gpus);
  return in;
}

}  // namespace cclab::sim
