#include "results/json_reader.h"
#include "bench/driver.h"

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <numeric>
#include <optional>
#include <set>

#include <fmt/format.h>

#include "bench/backend.h"
#include "bench/system_info.h"
#include "bench/test_hooks.h"
#include "bench/timing.h"
#include "bench/tuner.h"
#include "bench/watchdog.h"
#include "results/results.h"
#include "results/results_writer.h"
#include "results/text_format.h"
#include "collectives/errors.h"
#include "collectives/mpi/mpi_communicator.h"
#include "collectives/sizes.h"
#include "collectives/version.h"
#include "sim/predictor.h"

namespace cclab::bench {
namespace {

// --off-cache warms up one pass through its spans before a loop, up to this many calls (a 64 KiB
// message's pass through 64 MiB more than a 16 MiB one: 1,280 calls).
constexpr std::size_t kOffCacheWarmCalls = 2048;

// The most per-iteration times a row of the results carries (-n's usual 20 to a few hundred).
constexpr std::size_t kMaxRecordedIterations = 1000;

// "# auto picked (out-of-place/in-place): 8 B-512 B rd/rd, 4 KiB-16 MiB rhd/ring": the sizes
// --algo auto gave each algorithm, as runs of neighbouring sizes.
std::string autoPicksLine(const std::vector<std::pair<results::Row, results::Row>>& picks) {
  std::string text = "# auto picked (out-of-place/in-place):";
  for (std::size_t i = 0; i < picks.size();) {
    const std::string what = picks[i].first.algo + "/" + picks[i].second.algo;
    std::size_t j = i;
    while (j + 1 < picks.size() && picks[j + 1].first.algo + "/" + picks[j + 1].second.algo == what) ++j;
    const std::string sizes = i == j ? describeBytes(picks[i].first.sizeBytes)
                                     : describeBytes(picks[i].first.sizeBytes) + "-" + describeBytes(picks[j].first.sizeBytes);
    text += fmt::format("{} {} {}", i == 0 ? "" : ",", sizes, what);
    i = j + 1;
  }
  return text + "\n";
}

using results::Row;

// The two buffers of the largest size one local rank measures with (out of place: send a,
// receive b; in place: b alone), on its backend's device.
class Buffers {
 public:
  Buffers(Device& device, std::size_t bytes, bool touch) : device_(device) {
    a_ = device.allocate(bytes);
    b_ = device.allocate(bytes);
    if (touch) {  // host memory: fault every page in now, not inside the first timed run
      std::memset(a_, 0, bytes);
      std::memset(b_, 0, bytes);
    }
  }
  Buffers(const Buffers&) = delete;
  Buffers& operator=(const Buffers&) = delete;
  ~Buffers() {
    device_.release(a_);
    device_.release(b_);
  }
  char* a() const { return static_cast<char*>(a_); }
  char* b() const { return static_cast<char*>(b_); }

 private:
  Device& device_;
  void* a_;
  void* b_;
};

// nccl-tests's percentile: the value at rank ceil(n * p / 100) of the sorted samples.
double percentile(const std::vector<double>& sorted, int p) {
  const std::size_t n = sorted.size();
  const std::size_t index = std::min(n - 1, (n * static_cast<std::size_t>(p) + 99) / 100 - 1);
  return sorted[index];
}

int worldRank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

// One local rank's part in one measurement: its arguments at the base of its buffers, its
// checker, and the bytes its largest buffer view spans (for nccl-tests's per-iteration shift).
struct LocalCall {
  CollectiveArgs args;
  BufferLayout layout;
  char* single = nullptr;  // in place: the one buffer
  std::size_t spanBytes = 0;
  std::unique_ptr<Checker> checker;
};

// What the side-by-side table of one collective needs: per (datatype, op, root, size), in the order
// measured, each backend's out-of-place algbw summed over the repeats (-N) — as many lines as the
// sweep has points, however many repeats it makes.
class SideBySide {
 public:
  explicit SideBySide(std::size_t backends) : backends_(backends) {}
  void add(std::size_t backend, std::size_t line, const Row& outOfPlace) {
    if (line >= lines_.size()) lines_.resize(line + 1, Line{{}, std::vector<double>(backends_), std::vector<int>(backends_)});
    Line& l = lines_[line];
    if (backend == 0 && l.counts[0] == 0) {
      l.label = outOfPlace;
      l.label.iterTimesUs.clear();
    }
    l.sums[backend] += outOfPlace.algbwGBps;
    ++l.counts[backend];
  }
  struct Line {
    Row label;                 // the first backend's first row: size, type, op, root
    std::vector<double> sums;  // per backend
    std::vector<int> counts;
    double mean(std::size_t backend) const { return counts[backend] > 0 ? sums[backend] / counts[backend] : 0.0; }
  };
  const std::vector<Line>& lines() const { return lines_; }

 private:
  std::size_t backends_;
  std::vector<Line> lines_;
};

class Driver {
 public:
  explicit Driver(const Options& options);
  // The watchdog outlives the backends (it is declared first): a hang while they are destroyed
  // must not call into them, only end the process.
  ~Driver() { watchdog_.onTimeout({}); }
  int run();

 private:
  void checkHostMemory() const;
  // Each buffer's bytes: the largest message's, and with --off-cache that much more to move through.
  std::size_t bufferBytes() const { return std::max<std::size_t>(options_.sweep.maxBytes, 1) + offCacheBytes_; }
  Buffers& buffersFor(Backend& backend, int local);
  // Each local rank's arguments of one call at the base of its buffers (and its checker: `checked`).
  std::vector<LocalCall> localCalls(Backend& backend, Collective collective, DataType dtype, std::optional<ReduceOp> op, int root,
                                    std::size_t count, bool inPlace, bool checked);
  // nccl-tests's TimeTest warms up at the sweep's largest size and then its smallest before the
  // first size, so no size is timed on buffers, mappings and library state touched for the first
  // time: -w untimed, unchecked calls of each, out of place.
  void warmUp(Backend& backend, Collective collective, DataType dtype, std::optional<ReduceOp> op, int root);
  Row measure(Backend& backend, Collective collective, DataType dtype, std::optional<ReduceOp> op, int root,
              std::size_t count, bool inPlace, int repeat);
  void combine(double* values, int n) const;  // across processes, as -a says
  // The ops of `collective` that every backend can reduce `dtype` with (none: {nullopt}).
  std::vector<std::optional<ReduceOp>> opsFor(Collective collective, DataType dtype) const;
  bool everyBackendReduces(DataType dtype, ReduceOp op) const {
    return std::all_of(backends_.begin(), backends_.end(), [&](const auto& b) { return b->supports(dtype, op); });
  }
  // One measurement point of a sweep: its datatype, op, root, repeat (-N) and size (an index of
  // sizes_); group is its (datatype, op, root) in the order measured, the side-by-side table's lines.
  struct Point {
    DataType dtype;
    std::optional<ReduceOp> op;
    int root;
    int repeat;
    std::size_t size;
    std::size_t group;
  };
  // What one backend's table of one collective gathers as its points are measured.
  struct TestBlock {
    std::string lines;  // --interleave: its result lines, printed once every backend is done
    std::int64_t wrong = 0;
    std::int64_t knownWrong = 0;  // of `wrong`: what a known library defect explains
    std::set<std::string> issues;
    double busbwSum = 0;  // for the average line
    std::size_t rows = 0;
    std::vector<std::pair<Row, Row>> picks;  // under --algo auto: what each size of the first group ran
  };
  std::vector<Point> pointsOf(Collective collective) const;
  bool interleaved() const { return options_.interleave && backends_.size() > 1; }
  // Runs every backend's sweep of `collective`; returns the wrong elements they counted.
  std::int64_t runTests(Collective collective, SideBySide& table);
  void testHeader(std::size_t backendIndex, Collective collective) const;
  void measurePoint(std::size_t backendIndex, Collective collective, const Point& p, TestBlock& block, SideBySide& table);
  std::int64_t endTest(std::size_t backendIndex, Collective collective, const TestBlock& block);
  void printSideBySide(Collective collective, const SideBySide& table) const;
  // Process 0 streams the rows to the results files as they are measured; a failed write (a full
  // disk) ends the run on every process at once, with process 0's error.
  void write(const std::function<void()>& action);
  void progress(const Row& row);
  results::RunInfo runInfo();
  void out(const std::string& text) const {
    if (process_ == 0) {
      std::fputs(text.c_str(), stdout);
      std::fflush(stdout);
    }
  }

  const Options& options_;
  std::vector<DataType> dtypes_;  // -d, less what a backend cannot run when -d all asked for them
  int process_;      // this process's MPI rank
  int processes_;
  int size_ = 1;     // ranks in the collectives (processes x local ranks)
  LocalInfo local_;
  std::string mpiVersion_;
  results::RunInfo run_;  // started now; completed when the results are written
  std::vector<results::RankPlacement> placement_;  // every rank's (process 0)
  Watchdog watchdog_;
  std::vector<std::unique_ptr<Backend>> backends_;
  std::map<Device*, std::unique_ptr<Buffers>> buffers_;
  std::vector<std::size_t> sizes_;
  std::size_t offCacheBytes_ = 0;  // --off-cache, resolved (auto: twice the description's last cache)
  std::string offCacheSource_;     // for the header: where --off-cache auto took its size
  std::optional<results::ResultsWriter> writer_;  // process 0, with -J or --csv
  bool writing_ = false;                          // -J or --csv (every process knows)
  std::string writeError_;
  std::size_t totalRows_ = 0;
  std::size_t doneRows_ = 0;
  bool showProgress_ = false;
  std::int64_t knownIssueWrong_ = 0;    // the wrong elements a backend's known library defect explains
  std::set<std::string> knownIssues_;   // which defects
};

Driver::Driver(const Options& options)
    : options_(options), process_(worldRank()), watchdog_(options.timeoutS, worldRank()) {
  MPI_Comm_size(MPI_COMM_WORLD, &processes_);
  local_ = localInfo();
  mpiVersion_ = mpiLibraryVersion();
  run_ = results::startRun("ccbench", version(), gitCommit(), options.command);
  sizes_ = sweepSizes(options);
  offCacheBytes_ = options.offCacheBytes;
  if (options.offCacheAuto) {
    const LastCache cache = describedLastCache(options.cluster, sim::DeviceIdentity{local_.cpuModel, local_.cpuCores, local_.cpuFamily});
    if (cache.bytes == 0) throw InputError("--off-cache auto: no description of this machine gives its cache sizes (intra_node.caches): give a size");
    offCacheBytes_ = 2 * cache.bytes;
    offCacheSource_ = fmt::format("twice {}'s last cache level", cache.describedBy);
  }
  checkHostMemory();
  backends_ = makeBackends(options, mpiVersion_);
  // A hang inside a library call: let it give up before the watchdog ends the process.
  watchdog_.onTimeout([this](const std::function<void()>& aborted) {
    bool asked = false;
    for (auto& backend : backends_) asked = backend->requestAbort(aborted) || asked;
    return asked;
  });
  size_ = backends_.front()->communicator().size();
  for (DataType t : options.dtypes) {
    const bool everywhere = std::all_of(backends_.begin(), backends_.end(), [&](const auto& b) { return b->supports(t); });
    if (everywhere) dtypes_.push_back(t);
    else if (!options.allDtypes) throw InputError(fmt::format("-d {}: not supported here (NCCL's fp8 needs NCCL 2.24 and GPUs of compute capability 9.0 or later)", name(t)));
  }
  // A pair asked for by name that a backend cannot reduce is an error; within -d all or a list
  // of ops it is left out (opsFor below).
  for (DataType t : dtypes_) {
    for (ReduceOp op : options.ops) {
      if (!everyBackendReduces(t, op) && !options.allDtypes && options.ops.size() == 1) {
        throw InputError(fmt::format("-d {} -o {}: not supported here (NCCL does not reduce fp8 with avg)", name(t), name(op)));
      }
    }
  }
  checkForRanks(options, size_);
  for (auto& backend : backends_) backend->checkMemory(bufferBytes());
  // The header lines and results file describe the GPUs where a backend runs on them, otherwise the
  // CPU cores the ranks run on.
  const auto gpu = std::find_if(backends_.begin(), backends_.end(), [](const auto& b) { return b->onGpu(); });
  placement_ = gatherPlacement((gpu != backends_.end() ? *gpu : backends_.front())->placement());
  showProgress_ = process_ == 0 && stderrIsTerminal();
}

void Driver::checkHostMemory() const {
  // MPI counts are ints.
  if (std::find(options_.backends.begin(), options_.backends.end(), "mpi") != options_.backends.end()) {
    std::size_t smallest = 8;
    for (DataType t : options_.dtypes) smallest = std::min(smallest, sizeOf(t));  // before dtypes_ is known: all asked for
    if (options_.sweep.maxBytes / smallest > MpiCommunicator::maxCount()) {
      throw InputError(fmt::format("-e {}: {} elements exceed the MPI library's count limit ({}); use --backend cclab or a smaller -e",
                                   describeBytes(options_.sweep.maxBytes), options_.sweep.maxBytes / smallest, MpiCommunicator::maxCount()));
    }
  }
  // Host backends: two buffers of the largest size, and for cclab a scratch copy of one (in-place alltoall).
  const bool hostBackend = std::any_of(options_.backends.begin(), options_.backends.end(),
                                       [&](const std::string& b) { return b == "mpi" || (b == "cclab" && options_.device == "cpu"); });
  if (!hostBackend) return;
  const bool cclab = options_.device == "cpu" && std::find(options_.backends.begin(), options_.backends.end(), "cclab") != options_.backends.end();
  const double perRank = static_cast<double>(bufferBytes()) * 2 + (cclab ? static_cast<double>(options_.sweep.maxBytes) : 0.0);
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int localRanks = 1;
  MPI_Comm_size(node, &localRanks);
  MPI_Comm_free(&node);
  const double needed = perRank * localRanks;
  int tooBig = needed > 0.9 * static_cast<double>(local_.availableMemoryBytes) && local_.availableMemoryBytes > 0;
  MPI_Allreduce(MPI_IN_PLACE, &tooBig, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (tooBig) {
    const std::string offCache = offCacheBytes_ > 0 ? fmt::format(" with --off-cache {}", describeBytes(offCacheBytes_)) : "";
    throw InputError(fmt::format("-e {}{} does not fit in memory: it needs {} per rank x {} ranks on a node, but {} is available",
                                 describeBytes(options_.sweep.maxBytes), offCache, describeBytes(static_cast<std::size_t>(perRank)),
                                 localRanks, describeBytes(local_.availableMemoryBytes)));
  }
}

Buffers& Driver::buffersFor(Backend& backend, int local) {
  Device& device = backend.device(local);
  auto& slot = buffers_[&device];
  if (!slot) slot = std::make_unique<Buffers>(device, bufferBytes(), !backend.onGpu());
  return *slot;
}

void Driver::combine(double* values, int n) const {
  switch (options_.average) {
    case Average::Rank0:
      MPI_Bcast(values, n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
      return;
    case Average::Mean:
      MPI_Allreduce(MPI_IN_PLACE, values, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
      for (int i = 0; i < n; ++i) values[i] /= processes_;
      return;
    case Average::Min:
      MPI_Allreduce(MPI_IN_PLACE, values, n, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
      return;
    case Average::Max:
      MPI_Allreduce(MPI_IN_PLACE, values, n, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
      return;
  }
}

std::vector<LocalCall> Driver::localCalls(Backend& backend, Collective collective, DataType dtype, std::optional<ReduceOp> op, int root,
                                          std::size_t count, bool inPlace, bool checked) {
  Communicator& comm = backend.communicator();
  const int locals = backend.localRanks();
  const std::size_t elementSize = sizeOf(dtype);
  std::vector<LocalCall> calls(static_cast<std::size_t>(locals));
  for (int i = 0; i < locals; ++i) {
    LocalCall& c = calls[static_cast<std::size_t>(i)];
    const int rank = comm.rank() + i;
    const Buffers& buffers = buffersFor(backend, i);
    c.layout = bufferLayout(collective, count, size_, rank);
    c.args.count = count;
    c.args.dtype = dtype;
    c.args.op = op.value_or(ReduceOp::Sum);
    c.args.root = std::max(root, 0);
    c.single = buffers.b();
    c.args.send = inPlace ? c.single + c.layout.inPlaceSendOffset * elementSize : buffers.a();
    c.args.recv = inPlace ? c.single + c.layout.inPlaceRecvOffset * elementSize : buffers.b();
    c.spanBytes = std::max<std::size_t>((inPlace ? c.layout.inPlaceCount() : std::max(c.layout.sendCount, c.layout.recvCount)) * elementSize, 1);
    if (!checked) continue;
    const CheckSpec spec{collective, dtype, op, count, size_, rank, c.args.root};
    c.checker = withTestHooks(backend.checker(spec, i), spec, options_, process_, i, backend);
  }
  return calls;
}

void Driver::warmUp(Backend& backend, Collective collective, DataType dtype, std::optional<ReduceOp> op, int root) {
  for (std::size_t bytes : {sizes_.back(), sizes_.front()}) {
    const std::size_t count = countForBytes(collective, bytes, dtype, size_);
    const std::vector<LocalCall> calls = localCalls(backend, collective, dtype, op, root, count, false, false);
    std::vector<CollectiveArgs> args;
    for (const LocalCall& c : calls) args.push_back(c.args);
    watchdog_.describe(fmt::format("{} {} {} {} warm-up", backend.name(), name(collective), name(dtype),
                                   describeBytes(bytesForCount(collective, count, dtype, size_))));
    for (int i = 0; i < options_.warmupIters; ++i) {
      backend.communicator().runLocal(collective, args);
      watchdog_.kick();
    }
    backend.synchronize();
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

Row Driver::measure(Backend& backend, Collective collective, DataType dtype, std::optional<ReduceOp> op, int root,
                    std::size_t count, bool inPlace, int repeat) {
  Communicator& comm = backend.communicator();
  const int locals = backend.localRanks();
  std::vector<LocalCall> calls = localCalls(backend, collective, dtype, op, root, count, inPlace, true);
  // The arguments of iteration `iteration`. GPU backends move through the buffers as nccl-tests
  // does (each iteration the next span of the largest-size buffers), so caches do not flatter
  // repeated small messages; with --off-cache every backend does, through buffers that much
  // larger, a cache line at least apart (IMB's -off_cache); checks (iteration -1) use the base.
  std::vector<CollectiveArgs> args(static_cast<std::size_t>(locals));
  auto argsAt = [&](int iteration) -> std::span<const CollectiveArgs> {
    for (int i = 0; i < locals; ++i) {
      const LocalCall& c = calls[static_cast<std::size_t>(i)];
      CollectiveArgs& a = args[static_cast<std::size_t>(i)];
      a = c.args;
      const std::size_t shift = iterationOffset(c.spanBytes, bufferBytes(), offCacheBytes_, backend.onGpu(), iteration);
      a.send = static_cast<const char*>(a.send) + shift;
      a.recv = static_cast<char*>(a.recv) + shift;
    }
    return args;
  };
  watchdog_.describe(fmt::format("{} {} {} {} {}", backend.name(), name(collective), name(dtype),
                                 describeBytes(bytesForCount(collective, count, dtype, size_)), inPlace ? "in place" : "out of place"));

  // 1. Time the loop on repetition 0's data, from a common start, as the backend's timing does.
  for (LocalCall& c : calls) c.checker->fillInput(const_cast<void*>(c.args.send), 0);
  // --off-cache: one untimed pass through the spans the loop will move through (up to
  // kOffCacheWarmCalls of them), so a page's first touch through a library's or a peer's view of
  // it is not timed; the data itself is out of the caches again by the time the loop reaches it.
  if (offCacheBytes_ > 0) {
    // Every rank makes the same calls: the fewest spans any rank's buffers hold (a root's are larger).
    unsigned long spans = kOffCacheWarmCalls;
    for (const LocalCall& c : calls) spans = std::min<unsigned long>(spans, offCacheSpans(c.spanBytes, bufferBytes()));
    MPI_Allreduce(MPI_IN_PLACE, &spans, 1, MPI_UNSIGNED_LONG, MPI_MIN, MPI_COMM_WORLD);
    for (int i = 0; i < static_cast<int>(spans); ++i) {
      comm.runLocal(collective, argsAt(i));
      watchdog_.kick();
    }
  }
  backend.synchronize();
  MPI_Barrier(MPI_COMM_WORLD);
  const LoopSettings loop{options_.warmupIters,   options_.iters,         options_.aggIters, options_.blocking,
                          options_.perIterTiming, options_.graphLaunches, options_.minTimeS};
  LoopTimes times = backend.timing().run([&](int index) { comm.runLocal(collective, argsAt(index)); }, loop,
                                         [this] { watchdog_.kick(); });
  double meanUs = times.meanUs;
  combine(&meanUs, 1);
  std::vector<double>& iterUs = times.iterationUs;
  if (!iterUs.empty()) combine(iterUs.data(), static_cast<int>(iterUs.size()));
  // With a time per iteration, the row's time is their mean, so min <= time <= max holds: the
  // loop's elapsed time also holds the clock reads and the watchdog's kick between iterations
  // (~0.07 us on a CPU, the whole of a sub-microsecond call), and -a min/max combine per iteration.
  if (!iterUs.empty() && iterUs.size() == static_cast<std::size_t>(times.iterations)) {
    meanUs = std::accumulate(iterUs.begin(), iterUs.end(), 0.0) / static_cast<double>(iterUs.size());
  }

  // 2. Check: fresh inputs per repetition, outputs poisoned first so unwritten elements count.
  std::optional<std::int64_t> wrong;
  if (options_.checkIters > 0 && (!inPlace || backend.checksInPlace(collective))) {
    std::int64_t localWrong = 0;
    for (int rep = 1; rep <= options_.checkIters; ++rep) {
      for (LocalCall& c : calls) {
        if (inPlace) c.checker->poison(c.single, c.layout.inPlaceCount());
        else c.checker->poison(c.args.recv, c.layout.recvCount);
        c.checker->fillInput(const_cast<void*>(c.args.send), rep);
      }
      comm.runLocal(collective, argsAt(-1));
      backend.synchronize();
      watchdog_.kick();
      for (LocalCall& c : calls) localWrong += c.checker->countWrong(c.args.recv, rep, [this] { watchdog_.kick(); });
    }
    MPI_Allreduce(&localWrong, &wrong.emplace(), 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  }

  Row row;
  row.backend = backend.name();
  row.algo = comm.algorithmFor(collective, calls.front().args);  // under --algo auto: what this size ran
  row.collective = collective;
  row.dtype = dtype;
  row.op = op;
  row.root = root;
  row.inPlace = inPlace;
  row.sizeBytes = bytesForCount(collective, count, dtype, size_);
  row.count = count;  // nccl-tests's count column: the count passed to the collective
  row.nranks = size_;
  row.repeat = repeat;
  row.iters = times.iterations;
  results::setTime(row, meanUs);
  if (!iterUs.empty()) {
    std::vector<double> sorted = iterUs;
    std::sort(sorted.begin(), sorted.end());
    row.timeUsMin = sorted.front();
    row.timeUsMax = sorted.back();
    row.timeUsP50 = sorted[sorted.size() / 2];
    row.timeUsP99 = percentile(sorted, 99);
  }
  row.wrong = wrong;
  // Every iteration's time goes into the results up to kMaxRecordedIterations; a longer loop
  // (--min_time) keeps its percentiles above, not a file of megabytes.
  if (iterUs.size() <= kMaxRecordedIterations) row.iterTimesUs = std::move(iterUs);
  return row;
}

void Driver::progress(const Row& row) {
  ++doneRows_;
  if (!showProgress_) return;
  std::fprintf(stderr, "\r\033[K# [%zu/%zu] %s %s %s %s", doneRows_, totalRows_, row.backend.c_str(),
               std::string(name(row.collective)).c_str(), std::string(name(row.dtype)).c_str(),
               describeBytes(row.sizeBytes).c_str());
  if (doneRows_ == totalRows_) std::fputs("\r\033[K", stderr);
  std::fflush(stderr);
}

std::vector<Driver::Point> Driver::pointsOf(Collective collective) const {
  std::vector<int> roots{-1};
  if (hasRoot(collective)) {
    roots.clear();
    if (options_.root >= 0) roots.push_back(options_.root);
    else for (int r = 0; r < size_; ++r) roots.push_back(r);
  }
  std::vector<Point> points;
  std::size_t group = 0;  // (datatype, op, root) in the order measured: the side-by-side table's lines
  for (DataType dtype : dtypes_) {
    for (std::optional<ReduceOp> op : opsFor(collective, dtype)) {
      for (int root : roots) {
        for (int repeat = 0; repeat < options_.repeats; ++repeat) {
          for (std::size_t s = 0; s < sizes_.size(); ++s) points.push_back(Point{dtype, op, root, repeat, s, group});
        }
        ++group;
      }
    }
  }
  return points;
}

void Driver::measurePoint(std::size_t backendIndex, Collective collective, const Point& p, TestBlock& block, SideBySide& table) {
  Backend& backend = *backends_[backendIndex];
  const std::size_t count = countForBytes(collective, sizes_[p.size], p.dtype, size_);
  const Row outOfPlace = measure(backend, collective, p.dtype, p.op, p.root, count, false, p.repeat);
  const Row inPlace = measure(backend, collective, p.dtype, p.op, p.root, count, true, p.repeat);
  const std::string line = results::resultLine(outOfPlace, inPlace) + "\n";
  if (interleaved()) block.lines += line;  // printed as the backend's table when every backend is done
  else out(line);
  block.wrong += outOfPlace.wrong.value_or(0) + inPlace.wrong.value_or(0);
  for (const Row* r : {&outOfPlace, &inPlace}) {
    if (r->wrong.value_or(0) == 0) continue;
    const std::string issue = backend.knownIssue(collective, p.dtype, p.op, r == &inPlace);
    if (issue.empty()) continue;
    block.knownWrong += *r->wrong;
    block.issues.insert(issue);
  }
  block.busbwSum += outOfPlace.busbwGBps + inPlace.busbwGBps;
  block.rows += 2;
  progress(outOfPlace);
  const bool tuned = backend.communicator().algorithm(collective) == sim::kSimulatorPicks;
  if (tuned && p.group == 0 && p.repeat == 0) block.picks.emplace_back(outOfPlace, inPlace);
  table.add(backendIndex, p.group * sizes_.size() + p.size, outOfPlace);
  write([&] {
    writer_->add(outOfPlace);
    writer_->add(inPlace);
  });
}

std::int64_t Driver::endTest(std::size_t backendIndex, Collective collective, const TestBlock& block) {
  const bool tuned = backends_[backendIndex]->communicator().algorithm(collective) == sim::kSimulatorPicks;
  std::string known;
  for (const std::string& issue : block.issues) {
    known += fmt::format("# Known library issue behind {} of the {} wrong elements: {}\n", block.knownWrong, block.wrong, issue);
  }
  knownIssueWrong_ += block.knownWrong;
  knownIssues_.insert(block.issues.begin(), block.issues.end());
  out(block.lines + results::outOfBoundsLine(block.wrong) + known + results::averageBusBandwidthLine(block.busbwSum, block.rows) +
      (tuned ? autoPicksLine(block.picks) : "") + results::testConcluded(collective));
  return block.wrong;
}

void Driver::testHeader(std::size_t backendIndex, Collective collective) const {
  Backend& backend = *backends_[backendIndex];
  out(results::testHeader(collective, backend.name(), backend.communicator().algorithm(collective), backend.description()));
}

std::int64_t Driver::runTests(Collective collective, SideBySide& table) {
  const std::vector<Point> points = pointsOf(collective);
  const std::size_t n = backends_.size();
  // Each (datatype, op, root) starts with its first repeat's first size: warm up there (warmUp).
  auto startsGroup = [](const Point& p) { return p.size == 0 && p.repeat == 0; };
  std::int64_t wrong = 0;
  if (!interleaved()) {  // nccl-tests's order: one backend's sweep, its lines as they come, then the next's
    for (std::size_t b = 0; b < n; ++b) {
      testHeader(b, collective);
      TestBlock block;
      for (const Point& p : points) {
        if (startsGroup(p)) warmUp(*backends_[b], collective, p.dtype, p.op, p.root);
        measurePoint(b, collective, p, block, table);
      }
      wrong += endTest(b, collective, block);
    }
    return wrong;
  }
  // --interleave: every backend measures a point in turn, the first of them rotating from point to
  // point, so the pairs a side-by-side table compares are taken moments apart on the same buffers.
  std::vector<TestBlock> blocks(n);
  for (std::size_t i = 0; i < points.size(); ++i) {
    const Point& p = points[i];
    if (startsGroup(p)) {
      for (auto& backend : backends_) warmUp(*backend, collective, p.dtype, p.op, p.root);
    }
    for (std::size_t k = 0; k < n; ++k) measurePoint((i + k) % n, collective, p, blocks[(i + k) % n], table);
  }
  for (std::size_t b = 0; b < n; ++b) {
    testHeader(b, collective);
    wrong += endTest(b, collective, blocks[b]);
  }
  return wrong;
}

void Driver::write(const std::function<void()>& action) {
  if (!writing_) return;
  int failed = 0;
  if (process_ == 0) {
    try {
      action();
    } catch (const InputError& e) {
      writeError_ = e.what();
      writer_.reset();  // its temporaries go with it
      failed = 1;
    }
  }
  MPI_Bcast(&failed, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (failed) throw InputError(process_ == 0 ? writeError_ : std::string("process 0 could not write the results"));
}

void Driver::printSideBySide(Collective collective, const SideBySide& table) const {
  const std::string& first = backends_.front()->name();
  std::string header = fmt::format("# Side by side: {}, out-of-place algbw (GB/s){}; ratio = backend / {}\n#{:>11}  {:>8}  {:>6}  {:>6}",
                                   name(collective), options_.repeats > 1 ? ", mean of the repeats" : "", first, "size", "type", "redop", "root");
  for (const auto& b : backends_) header += fmt::format("  {:>9}", b->name());
  for (std::size_t i = 1; i < backends_.size(); ++i) header += fmt::format("  {:>11}", backends_[i]->name() + "/" + first);
  std::string text = header + "\n";
  for (const SideBySide::Line& l : table.lines()) {
    const Row& base = l.label;
    std::string line = fmt::format("#{:>11}  {:>8}  {:>6}  {:>6}", base.sizeBytes, name(base.dtype),
                                   base.op ? std::string(name(*base.op)) : std::string("none"), base.root);
    for (std::size_t b = 0; b < backends_.size(); ++b) line += fmt::format("  {:>9.3f}", l.mean(b));
    const double reference = l.mean(0);
    for (std::size_t b = 1; b < backends_.size(); ++b) line += fmt::format("  {:>11.3f}", reference > 0 ? l.mean(b) / reference : 0.0);
    text += line + "\n";
  }
  out(text + "#\n");
}

results::RunInfo Driver::runInfo() {
  results::RunInfo& run = run_;
  run.endTime = results::utcNow();
  run.host = local_.host;
  run.cpuModel = local_.cpuModel;
  run.cpuCores = local_.cpuCores;
  run.cpuFamily = local_.cpuFamily;
  run.memoryBytes = local_.memoryBytes;
  run.os = local_.os;
  run.mpiVersion = mpiVersion_;
  run.ranks = placement_;
  results::summarizeRanks(run);
  static constexpr const char* kAverage[] = {"rank0", "mean", "min", "max"};
  run.config = {{"min_bytes", options_.sweep.minBytes},
                {"max_bytes", options_.sweep.maxBytes},
                {"step_bytes", options_.sweep.stepBytes},
                {"step_factor", options_.sweep.stepFactor},
                {"iters", options_.iters},
                {"agg_iters", options_.aggIters},
                {"min_time_s", options_.minTimeS},
                {"warmup_iters", options_.warmupIters},
                {"check_iters", options_.checkIters},
                {"average", kAverage[static_cast<int>(options_.average)]},
                {"blocking", options_.blocking},
                {"repeats", options_.repeats},
                {"timeout_s", options_.timeoutS},
                {"backends", options_.backends},
                {"algo", options_.algo},
                {"device", options_.device},
                {"chunk_bytes", options_.chunkBytes},
                {"off_cache_bytes", offCacheBytes_},
                {"gpus_per_process", options_.gpusPerProcess},
                {"graph_launches", options_.graphLaunches},
                {"per_iter_timing", options_.perIterTiming}};
  if (options_.ranksPerNode > 0) run.config[results::kRanksPerNodeKey] = options_.ranksPerNode;
  if (interleaved()) run.config[results::kInterleaveKey] = true;  // the rows come point by point, every backend in turn
  for (const auto& backend : backends_) backend->describe(run);  // after the config: backends add to it
  return run;
}

std::vector<std::optional<ReduceOp>> Driver::opsFor(Collective collective, DataType dtype) const {
  std::vector<std::optional<ReduceOp>> ops;
  for (std::optional<ReduceOp> op : bench::opsFor(options_, collective)) {
    if (!op || everyBackendReduces(dtype, *op)) ops.push_back(op);
  }
  return ops;
}

int Driver::run() {
  for (std::size_t c = 0; c < options_.collectives.size(); ++c) {
    const Collective collective = options_.collectives[c];
    const std::size_t roots = hasRoot(collective) && options_.root < 0 ? static_cast<std::size_t>(size_) : 1;
    for (DataType dtype : dtypes_) {
      totalRows_ += backends_.size() * opsFor(collective, dtype).size() * roots * static_cast<std::size_t>(options_.repeats) * sizes_.size();
    }
  }
  out(fmt::format("# ccbench version {} (cclab commit {}); {}\n", version(), gitCommit(), mpiVersion_));
  const bool gpu = std::any_of(backends_.begin(), backends_.end(), [](const auto& b) { return b->onGpu(); });
  out(fmt::format("# nThread 1 nGpus {} minBytes {} maxBytes {} step: {} warmup iters: {} iters: {} agg iters: {} validation: {} graph: {}\n",
                  gpu ? options_.gpusPerProcess : 0, options_.sweep.minBytes, options_.sweep.maxBytes,
                  options_.sweep.stepFactor > 1 ? fmt::format("{}(factor)", options_.sweep.stepFactor) : fmt::format("{}(bytes)", options_.sweep.stepBytes),
                  options_.warmupIters, options_.iters, options_.aggIters, options_.checkIters > 0 ? 1 : 0, options_.graphLaunches));
  if (offCacheBytes_ > 0) {
    out(fmt::format("# Off cache: the calls of a size move through {} more than the largest message{}\n", describeBytes(offCacheBytes_),
                    offCacheSource_.empty() ? "" : " (" + offCacheSource_ + ")"));
  }
  if (options_.blocking > 0) {
    out(fmt::format("# Blocking Enabled: wait for completion{} after each collective \n", options_.blocking == 1 ? " and barrier" : " (no barrier)"));
  }
  std::string devices = "#\n# Using devices\n";
  for (const auto& p : placement_) devices += results::rankLine(p) + "\n";
  out(devices + "#\n");

  // The rows go to the results files as they are measured (bounded memory however long the run);
  // the files appear complete, atomically, at the end.
  writing_ = !options_.jsonPath.empty() || !options_.csvPath.empty();
  write([&] { writer_.emplace(options_.jsonPath, options_.csvPath); });
  std::int64_t wrong = 0;
  for (Collective collective : options_.collectives) {
    SideBySide table(backends_.size());
    wrong += runTests(collective, table);
    if (backends_.size() > 1) printSideBySide(collective, table);
  }

  if (process_ == 0) {
    if (writer_) {
      writer_->finish(runInfo());
      writer_.reset();
      if (!options_.jsonPath.empty()) out(fmt::format("# Wrote {}\n", options_.jsonPath));
      if (!options_.csvPath.empty()) out(fmt::format("# Wrote {}\n", options_.csvPath));
    }
    if (wrong > 0) {
      // Still an error (exit 1): the library gave wrong results. The line says when all of them,
      // or some, are a library defect known upstream (Backend::knownIssue).
      std::string why;
      if (knownIssueWrong_ > 0) {
        why = knownIssueWrong_ == wrong ? "; all of them from a known library issue: " : fmt::format("; {} of them from a known library issue: ", knownIssueWrong_);
        for (const std::string& issue : knownIssues_) why += (issue == *knownIssues_.begin() ? "" : "; ") + issue;
      }
      std::fprintf(stderr, "ccbench: %lld wrong elements: the results are incorrect%s\n", static_cast<long long>(wrong), why.c_str());
    }
  }
  return wrong > 0 ? 1 : 0;
}

}  // namespace

int runBenchmark(const Options& options) {
  Driver driver(options);
  return driver.run();
}

}  // namespace cclab::bench
