#include "bench/options.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <ostream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "collectives/algorithms/algorithms.h"
#include "sim/predictor.h"
#include "collectives/context.h"
#include "collectives/device.h"
#include "collectives/errors.h"
#include "collectives/sizes.h"

namespace cclab::bench {
namespace {

std::vector<std::string> splitList(const std::string& text) {
  std::vector<std::string> items;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = text.find(',', start);
    const std::string item = text.substr(start, comma - start);
    if (item.empty()) throw InputError(fmt::format("empty item in list '{}'", text));
    items.push_back(item);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return items;
}

// "all", one name, or a comma list.
template <typename T, typename Parse, typename All>
std::vector<T> parseList(const std::string& text, Parse parse, All all) {
  if (text == "all") return std::vector<T>(all().begin(), all().end());
  std::vector<T> values;
  for (const auto& item : splitList(text)) {
    try {
      values.push_back(parse(item));
    } catch (const InputError& e) {  // the table's names, and the word that takes them all
      std::string message = e.what();
      if (message.ends_with(")")) message.insert(message.size() - 1, ", or all");
      throw InputError(message);
    }
  }
  return values;
}

void requireAtLeast(long long value, long long minimum, std::string_view flag) {
  if (value < minimum) throw InputError(fmt::format("{} must be at least {} (got {})", flag, minimum, value));
}

}  // namespace

std::optional<Options> parseOptions(int argc, const char* const* argv, std::ostream& help) {
  Options o;
  o.command.assign(argv, argv + argc);
  CLI::App app{"ccbench: nccl-tests-style benchmarks of collectives (NCCL, MPI library, cclab algorithms).\n"
               "Run under a launcher: mpirun -np N ccbench <collective> [options]\n"
               "Training steps (ccsim train's step, run for real): mpirun -np N ccbench train --help",
               "ccbench"};
  app.get_formatter()->column_width(30);

  std::string collective, dtype = "float", op = "sum";
  SweepFlags sweep{"32M", "32M", "1M", 1};  // nccl-tests's defaults
  std::string backends = "mpi", chunk;
  int average = 1, threads = 1, perIter = 0;
  app.add_option("collective", collective, joinNames(allCollectives()) + ", or all")->required();
  addSweepFlags(app, sweep);
  app.add_option("-n,--iters", o.iters, "timed iterations per size")->capture_default_str();
  app.add_option("--min_time", o.minTimeS,
                 "seconds each size's timed loop lasts at least: more iterations than -n where the warm-up says -n is shorter (0: -n)")
      ->capture_default_str();
  app.add_option("-w,--warmup_iters", o.warmupIters, "untimed warm-up iterations per size")->capture_default_str();
  app.add_option("-m,--agg_iters", o.aggIters, "collectives per timed iteration")->capture_default_str();
  app.add_option("-c,--check", o.checkIters, "result-checking iterations per size (0: no check)")->capture_default_str();
  app.add_option("-d,--datatype", dtype, joinNames(allDataTypes(), " ") + ", a comma list, or all")->capture_default_str();
  app.add_option("-o,--op", op, joinNames(allReduceOps(), " ") + ", a comma list, or all")->capture_default_str();
  app.add_option("-r,--root", o.root, "root rank of broadcast/reduce/gather/scatter (-1: every root)")->capture_default_str();
  app.add_option("-a,--average", average, "combine per-rank times: 0 rank 0, 1 mean, 2 min, 3 max")->capture_default_str();
  app.add_option("-z,--blocking", o.blocking, "wait for each timed iteration's collectives to finish: 1 and then barrier, 2 without")
      ->capture_default_str();
  app.add_option("-I,--per_iter_timing", perIter, "1: time every iteration on GPUs with CUDA events (CPU: always)")->capture_default_str();
  app.add_option("-N,--run_cycles", o.repeats, "run the sweep this many times")->capture_default_str();
  app.add_option("-T,--timeout", o.timeoutS, "abort when an operation makes no progress for this many seconds (0: never)")
      ->capture_default_str();
  app.add_option("-J,--output_file", o.jsonPath, "write the results as JSON (cclab results schema)");
  app.add_option("--csv", o.csvPath, "write the results as CSV");
  app.add_option("--backend", backends, fmt::format("what runs the collectives: {}, or a comma list to compare", fmt::join(kBackends, ", ")))
      ->capture_default_str();
  app.add_flag("--interleave", o.interleave,
               "with several backends: each size on every backend in turn (the first rotating from size to size), not one "
               "backend's sweep after another's, so a side-by-side pair is measured moments apart; the tables print at the end");
  app.add_option("--algo", o.algo,
                 fmt::format("cclab algorithm (--backend cclab): {}; a comma list takes, per collective, the first that does it; "
                             "{}: per collective and size, the one the simulator predicts fastest on --cluster",
                             algorithmFamilies(), sim::kSimulatorPicks))
      ->capture_default_str();
  app.add_option("--cluster", o.cluster,
                 "--algo auto: the calibrated cluster description to tune on, a preset or file (default: the calibration "
                 "shipped for this machine, models/calibrations/, else the closest preset)");
  app.add_option("--ranks-per-node", o.ranksPerNode,
                 "nodes for cclab's hierarchical algorithms: ranks k*i..k*i+k-1 share node i (default: the processes sharing a host)");
  app.add_option("--device", o.device, fmt::format("where cclab's buffers and kernels live: {}", fmt::join(kDevices, " or ")))
      ->capture_default_str();
  app.add_option("--transport", o.transport,
                 fmt::format("how cclab's algorithms on the CPU reach the other ranks: {} (shm: the processes of one host, "
                             "through a shared memory segment; auto: shm when every rank runs on one host, else mpi)",
                             fmt::join(kTransports, ", ")))
      ->capture_default_str();
  std::string singleCopy;
  app.add_option("--shm-single-copy", singleCopy,
                 fmt::format("over shared memory: messages this large and up are read straight out of the sender's memory "
                             "(one copy, process_vm_readv) instead of through the slots; 0: never (default: what this machine's "
                             "description measured, its intra_node.single_copy_bytes; 0 where it gives none); rooted calls take "
                             "--shm-single-copy-rooted"));
  std::string singleCopyRooted;
  app.add_option("--shm-single-copy-rooted", singleCopyRooted,
                 "the same for rooted calls (broadcast, reduce, gather, scatter), whose root's next send waits for a one-copy "
                 "send's receiver (default: --shm-single-copy's value where it is given, else the description's "
                 "intra_node.single_copy_rooted_bytes)");
  std::string hostCopyPiece;
  app.add_option("--host-copy-piece", hostCopyPiece,
                 fmt::format("cclab on the CPU: its own copies of host memory (a rank's local copies) go in memcpy calls this large; "
                             "0: one call a copy (default: what this machine's description measured, its intra_node.copy_piece_bytes; "
                             "{} where it gives none)",
                             describeBytes(HostDevice::kDefaultCopyPieceBytes)));
  std::string hostBuffers = "shared";
  app.add_option("--host-buffers", hostBuffers,
                 "cclab on the CPU: the run's host buffers in shared memory the other processes map and copy from with memcpy "
                 "(shared), or in private memory they read with process_vm_readv, as a caller's own buffers are (private); both "
                 "backends measure on the same buffers")
      ->capture_default_str();
  std::string offCache;
  app.add_option("--off-cache", offCache,
                 "keep each timed call's data out of the caches the call before filled, as IMB's -off_cache does: the calls "
                 "of a size move through buffers this much larger than the largest message (K/M/G; twice the last-level "
                 "cache is enough), both backends alike; auto: twice the last cache level of this machine's description; "
                 "0: off (the default: every call on the CPU reuses one buffer, as nccl-tests does)");
  app.add_option("--chunk", chunk, fmt::format("cclab pipeline chunk size (default {}; {} with --device cuda)", describeBytes(kDefaultChunkBytes),
                                               describeBytes(kDefaultCudaChunkBytes)));
  app.add_option("-t,--nthreads", threads, "threads per process (1: ranks are processes, started by mpirun/srun)")->capture_default_str();
  app.add_option("-g,--ngpus", o.gpusPerProcess, "GPUs each process drives (NCCL)")->capture_default_str();
  app.add_option("-G,--cudagraph", o.graphLaunches, "capture the timed loop as a CUDA graph, replay it this often (NCCL)")
      ->capture_default_str();
  app.add_option("--debug-corrupt-rank", o.debugCorruptRank)->group("");
  app.add_option("--debug-stall-rank", o.debugStallRank)->group("");

  try {
    app.parse(argc, argv);
    rejectEmptyValues(app);
  } catch (const CLI::CallForHelp&) {
    help << app.help();
    return std::nullopt;
  } catch (const CLI::RequiredError& e) {
    throw InputError("missing the collective to run (e.g. 'ccbench all_reduce'; 'all' runs every one; --help lists the options)");
  } catch (const CLI::ParseError& e) {
    throw InputError(e.what());
  }

  o.collectives = parseList<Collective>(collective, parseCollective, allCollectives);
  o.dtypes = parseList<DataType>(dtype, parseDataType, allDataTypes);
  o.allDtypes = dtype == "all";
  o.ops = parseList<ReduceOp>(op, parseReduceOp, allReduceOps);
  o.backends = splitList(backends);
  auto uses = [&](const char* backend) { return std::find(o.backends.begin(), o.backends.end(), backend) != o.backends.end(); };
  for (const auto& backend : o.backends) {
    if (std::find(kBackends.begin(), kBackends.end(), backend) == kBackends.end()) {
      throw InputError(fmt::format("unknown backend '{}' (valid: {})", backend, fmt::join(kBackends, ", ")));
    }
  }
  if (uses("nccl") && !buildHasNccl()) throw InputError("--backend nccl: this ccbench was built without NCCL (the configure step found none)");
  if (std::find(kDevices.begin(), kDevices.end(), o.device) == kDevices.end()) {
    throw InputError(fmt::format("unknown device '{}' (valid: {})", o.device, fmt::join(kDevices, ", ")));
  }
  if (o.device == "cuda" && !buildHasCuda()) throw InputError("--device cuda: this ccbench was built without CUDA (the configure step found none)");
  if (o.device == "cuda" && !uses("cclab")) throw InputError("--device cuda places cclab's algorithms on the GPU: add --backend cclab");
  if (std::find(kTransports.begin(), kTransports.end(), o.transport) == kTransports.end()) {
    throw InputError(fmt::format("unknown transport '{}' (valid: {})", o.transport, fmt::join(kTransports, ", ")));
  }
  if (o.transport == "shm" && (!uses("cclab") || o.device != "cpu")) {
    throw InputError(fmt::format("--transport {}: it carries cclab's algorithms on the CPU: use --backend cclab without --device cuda", o.transport));
  }
  o.sweep = sweep.parse();
  if (app.count("--shm-single-copy") > 0) {
    if (o.transport == "mpi") throw InputError("--shm-single-copy: only with --transport shm or auto");
    o.shmSingleCopyBytes = parseSize(singleCopy, "--shm-single-copy");
  }
  if (app.count("--shm-single-copy-rooted") > 0) {
    if (o.transport == "mpi") throw InputError("--shm-single-copy-rooted: only with --transport shm or auto");
    o.shmSingleCopyRootedBytes = parseSize(singleCopyRooted, "--shm-single-copy-rooted");
  }
  if (app.count("--host-copy-piece") > 0) {
    if (!uses("cclab") || o.device != "cpu") throw InputError("--host-copy-piece: it sets cclab's copies on the CPU: use --backend cclab without --device cuda");
    o.hostCopyPieceBytes = parseSize(hostCopyPiece, "--host-copy-piece");
  }
  if (app.count("--host-buffers") > 0) {
    if (!uses("cclab") || o.device != "cpu") throw InputError("--host-buffers: it sets cclab's buffers on the CPU: use --backend cclab without --device cuda");
    if (hostBuffers != "shared" && hostBuffers != "private") throw InputError(fmt::format("--host-buffers must be shared or private (got '{}')", hostBuffers));
    o.sharedHostBuffers = hostBuffers == "shared";
  }
  if (app.count("--off-cache") > 0) {
    if (offCache == "auto") o.offCacheAuto = true;
    else o.offCacheBytes = parseSize(offCache, "--off-cache");
  }
  // On a GPU every chunk costs a stream synchronisation and a control message round trip: larger
  // chunks by default there.
  o.chunkBytes = app.count("--chunk") > 0 ? parseSize(chunk, "--chunk") : o.device == "cuda" ? kDefaultCudaChunkBytes : kDefaultChunkBytes;
  requireAtLeast(o.iters, 1, "-n");
  requireAtLeast(o.aggIters, 1, "-m");
  requireAtLeast(o.warmupIters, 0, "-w");
  if (!(std::isfinite(o.minTimeS) && o.minTimeS >= 0 && o.minTimeS <= 3600)) {
    throw InputError(fmt::format("--min_time must be 0 or more seconds, up to 3600 (got {})", o.minTimeS));
  }
  if (o.minTimeS > 0 && o.warmupIters == 0) throw InputError("--min_time sizes the loop from the warm-up: give -w 1 or more");
  if (threads != 1) throw InputError(fmt::format("-t {}: ccbench runs one thread per process; start more processes with mpirun -np", threads));
  requireAtLeast(o.gpusPerProcess, 1, "-g");
  if (app.count("--ranks-per-node") > 0) requireAtLeast(o.ranksPerNode, 1, "--ranks-per-node");  // 0 is the default's "not given"
  if (app.count("--algo") > 0 && !uses("cclab")) {
    throw InputError(fmt::format("--algo {}: it chooses cclab's algorithm; the MPI library and NCCL choose their own: add --backend cclab", o.algo));
  }
  try {
    splitList(o.algo);  // a list's names are looked up per collective later; an empty one is refused now
  } catch (const InputError& e) {
    throw InputError(fmt::format("--algo: {}", e.what()));
  }
  if (o.algo != sim::kSimulatorPicks && o.algo.find(sim::kSimulatorPicks) != std::string::npos) {
    throw InputError(fmt::format("--algo {}: '{}' picks every algorithm itself and takes no list", o.algo, sim::kSimulatorPicks));
  }
  if (!o.cluster.empty() && o.algo != sim::kSimulatorPicks) throw InputError("--cluster: only --algo auto tunes on a cluster description");
  const bool ncclOnly = o.backends.size() == 1 && uses("nccl");
  if (o.gpusPerProcess > 1 && !ncclOnly) throw InputError(fmt::format("-g {}: several GPUs per process need --backend nccl alone", o.gpusPerProcess));
  requireAtLeast(o.graphLaunches, 0, "-G");
  if (o.graphLaunches > 0 && !ncclOnly) throw InputError(fmt::format("-G {}: CUDA graphs capture NCCL's collectives: use --backend nccl alone", o.graphLaunches));
  if (o.graphLaunches > 0 && o.minTimeS > 0) throw InputError("--min_time: a captured CUDA graph (-G) replays -n iterations; set the loop with -n");
  if (perIter != 0 && perIter != 1) throw InputError(fmt::format("-I must be 0 or 1 (got {})", perIter));
  o.perIterTiming = perIter == 1;
  requireAtLeast(o.checkIters, 0, "-c");
  requireAtLeast(o.repeats, 1, "-N");
  requireAtLeast(static_cast<long long>(o.chunkBytes), 1, "--chunk");
  requireAtLeast(o.root, -1, "-r");
  if (average < 0 || average > 3) throw InputError(fmt::format("-a must be 0, 1, 2 or 3 (got {})", average));
  o.average = static_cast<Average>(average);
  if (o.blocking < 0 || o.blocking > 2) throw InputError(fmt::format("-z must be 0, 1 or 2 (got {})", o.blocking));
  if (o.blocking > 0 && o.graphLaunches > 0) throw InputError("-z waits for every collective, which a captured CUDA graph (-G) cannot: use one");
  if (!(std::isfinite(o.timeoutS) && o.timeoutS >= 0 && o.timeoutS <= 1e6)) {
    throw InputError(fmt::format("-T must be 0 or more seconds, up to 1e6 (got {})", o.timeoutS));
  }

  // An op is meaningless for collectives that do not reduce: say so rather than ignore it.
  const bool opGiven = app.count("--op") > 0;
  const bool anyReduces = std::any_of(o.collectives.begin(), o.collectives.end(), [](Collective c) { return reduces(c); });
  if (opGiven && !anyReduces && op != "sum" && op != "all") {
    throw InputError(fmt::format("-o {} is meaningless for {}, which does not reduce", op, name(o.collectives.front())));
  }
  return o;
}

bool buildHasNccl() {
#ifdef CCLAB_HAVE_NCCL
  return true;
#else
  return false;
#endif
}

bool buildHasCuda() {
#ifdef CCLAB_HAVE_CUDA
  return true;
#else
  return false;
#endif
}

void checkForRanks(const Options& options, int nranks) {
  const bool anyRooted = std::any_of(options.collectives.begin(), options.collectives.end(), [](Collective c) { return hasRoot(c); });
  if (anyRooted && options.root >= nranks) {
    throw InputError(fmt::format("-r {} is not a rank: this run has {} rank{} (0 to {})", options.root, nranks,
                                 nranks == 1 ? "" : "s", nranks - 1));
  }
  // Emulated nodes are equal, as the hierarchical algorithms need them (said before any output).
  if (options.ranksPerNode > 0 && (options.ranksPerNode > nranks || nranks % options.ranksPerNode != 0)) {
    throw InputError(fmt::format("--ranks-per-node {}: {} rank{} do not make equal nodes of {}", options.ranksPerNode, nranks,
                                 nranks == 1 ? "" : "s", options.ranksPerNode));
  }
}

std::vector<std::size_t> sweepSizes(const Options& options) { return cclab::sweepSizes(options.sweep); }

std::vector<std::optional<ReduceOp>> opsFor(const Options& options, Collective collective) {
  if (!reduces(collective)) return {std::nullopt};
  return std::vector<std::optional<ReduceOp>>(options.ops.begin(), options.ops.end());
}

}  // namespace cclab::bench
