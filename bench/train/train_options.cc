#include "bench/train/train_options.h"

#include <algorithm>
#include <ostream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "bench/options.h"
#include "collectives/algorithms/algorithms.h"
#include "collectives/errors.h"
#include "collectives/names.h"
#include "sim/cli/training_options.h"

namespace cclab::bench {
namespace {

constexpr Named<ComputeMode> kComputeModes[] = {{"gemm", ComputeMode::Gemm}, {"sleep", ComputeMode::Sleep}, {"none", ComputeMode::None}};

void requireAtLeast(long long value, long long minimum, std::string_view flag) {
  if (value < minimum) throw InputError(fmt::format("{} must be at least {} (got {})", flag, minimum, value));
}

}  // namespace

std::string_view name(ComputeMode mode) { return nameIn(kComputeModes, mode); }

std::optional<TrainOptions> parseTrainOptions(int argc, const char* const* argv, std::ostream& help) {
  TrainOptions o;
  o.command.assign(argv, argv + argc);
  CLI::App app{"ccbench train: run one training step's graph (ccsim train's) with real collectives and compute, and time it.\n"
               "Run under a launcher: mpirun -np N ccbench train --model M --cluster C [layout] [options]",
               "ccbench train"};
  app.get_formatter()->column_width(30);
  sim::cli::TrainingOptions training;
  training.add(app, /*layout=*/true);
  std::string compute = "gemm";
  app.add_option("--backend", o.backend, "what runs the collectives: mpi (the MPI library's), cclab (cclab's algorithms) or nccl (GPUs)")
      ->capture_default_str();
  app.add_option("--algo", o.algo, fmt::format("cclab algorithm family (--backend cclab): {}", algorithmFamilies()))->capture_default_str();
  app.add_option("--device", o.device, "where the step runs: cpu (Eigen) or cuda (cuBLAS; --backend nccl or cclab)")->capture_default_str();
  app.add_option("--compute", compute, "compute tasks run: gemm (their GEMMs and element-wise passes), sleep (their predicted time), none")
      ->capture_default_str();
  app.add_option("-w,--warmup_iters", o.warmup, "steps run before the measured ones")->capture_default_str();
  app.add_option("-n,--iters", o.iters, "measured steps")->capture_default_str();
  app.add_option("-c,--check", o.check, "1: check every collective of every step exactly (slows the step)")->capture_default_str();
  app.add_option("-T,--timeout", o.timeoutS, "abort when a rank makes no progress for this many seconds (0: never)")->capture_default_str();
  app.add_option("-J,--output_file", o.jsonPath, "write the training-measurement record (docs/results-schema.md)");
  app.add_option("--trace", o.tracePath, "write the last measured step as Chrome trace JSON (a process per rank, a thread per stream)");
  app.add_option("--debug-stall-rank", o.debugStallRank)->group("");
  app.add_option("--debug-corrupt-rank", o.debugCorruptRank)->group("");
  try {
    // argv[0] is ccbench, argv[1] "train": CLI11 sees "ccbench train" as the program.
    std::vector<std::string> args(argv + 2, argv + argc);
    std::reverse(args.begin(), args.end());
    app.parse(args);
  } catch (const CLI::CallForHelp&) {
    help << app.help();
    return std::nullopt;
  } catch (const CLI::ParseError& e) {
    throw InputError(e.what());
  }
  o.settings = training.settings();
  o.settings.check();
  o.compute = parseIn(kComputeModes, compute, "--compute mode");
  if (o.backend != "mpi" && o.backend != "cclab" && o.backend != "nccl") {
    throw InputError(fmt::format("unknown backend '{}' (valid: mpi, cclab, nccl)", o.backend));
  }
  if (o.backend == "cclab") {  // an algorithm that does not do a collective of the step fails here
    for (Collective c : {Collective::AllReduce, Collective::ReduceScatter, Collective::AllGather}) findAlgorithm(c, o.algo);
  }
  if (o.device != "cpu" && o.device != "cuda") throw InputError(fmt::format("unknown device '{}' (valid: cpu, cuda)", o.device));
  if (o.backend == "nccl" && app.count("--device") == 0) o.device = "cuda";  // NCCL's collectives run on GPUs
  if (o.backend == "nccl" && o.device != "cuda") throw InputError("--backend nccl runs on GPUs: use --device cuda");
  if (o.backend == "mpi" && o.device == "cuda") {
    throw InputError("--device cuda: the MPI library's collectives run on host memory here; use --backend nccl or cclab");
  }
  if (o.backend == "nccl" && !buildHasNccl()) throw InputError("--backend nccl: this ccbench was built without NCCL (the configure step found none)");
  if (o.device == "cuda" && !buildHasCuda()) throw InputError("--device cuda: this ccbench was built without CUDA (the configure step found none)");
  requireAtLeast(o.warmup, 0, "-w");
  requireAtLeast(o.iters, 1, "-n");
  if (o.check != 0 && o.check != 1) throw InputError(fmt::format("-c must be 0 or 1 (got {})", o.check));
  if (!(o.timeoutS >= 0)) throw InputError(fmt::format("-T must be at least 0 (got {:g})", o.timeoutS));
  if (o.settings.params) throw InputError("ccbench train runs the model's layers: give --model, not --params");
  return o;
}

}  // namespace cclab::bench
