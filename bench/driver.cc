#include "bench/driver.h"

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <optional>
#include <map>
#include <memory>
#include <thread>

#include <fmt/format.h>

#include "bench/results/text_format.h"
#include "bench/results/results.h"
#include "bench/system_info.h"
#include "bench/verify.h"
#include "bench/watchdog.h"
#include "collectives/errors.h"
#include "collectives/mpi/mpi_communicator.h"
#include "collectives/mpi/mpi_transport.h"
#include "collectives/version.h"

namespace cclab::bench {
namespace {

using results::Row;
using Clock = std::chrono::steady_clock;

double seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

// One backend under test: a communicator and, for cclab's algorithms, the transport under it.
struct Backend {
  std::string name;
  std::string description;
  std::unique_ptr<MpiTransport> transport;
  std::unique_ptr<Communicator> communicator;
};

// The host buffers every measurement uses: two of the largest size (out of place: send, recv; in
// place: the second alone).
class Buffers {
 public:
  Buffers(Device& device, std::size_t bytes) : device_(device) {
    a_ = device.allocate(bytes);
    b_ = device.allocate(bytes);
    std::memset(a_, 0, bytes);  // touch every page now, not inside the first timed run
    std::memset(b_, 0, bytes);
  }
  Buffers(const Buffers&) = delete;
  Buffers& operator=(const Buffers&) = delete;
  ~Buffers() {
    device_.release(a_);
    device_.release(b_);
  }
  void* a() const { return a_; }
  void* b() const { return b_; }

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

class Driver {
 public:
  explicit Driver(const Options& options);
  int run();

 private:
  void checkMemory() const;
  void gatherPlacement();
  Row measure(Backend& backend, Collective collective, DataType dtype, std::optional<ReduceOp> op, int root,
              std::size_t count, bool inPlace, int repeat);
  void combine(double* values, int n) const;  // across ranks, as -a says
  void runTest(Backend& backend, Collective collective, std::vector<Row>& rows);
  void printSideBySide(Collective collective, const std::vector<std::vector<Row>>& perBackend) const;
  void progress(const Row& row);
  results::RunInfo runInfo() const;
  void out(const std::string& text) const {
    if (rank_ == 0) {
      std::fputs(text.c_str(), stdout);
      std::fflush(stdout);
    }
  }

  const Options& options_;
  int rank_;
  int size_;
  LocalInfo local_;
  std::string mpiVersion_;
  std::string startTime_;
  std::vector<results::RankPlacement> placement_;
  HostDevice host_;
  Watchdog watchdog_;
  std::optional<Buffers> buffers_;
  std::vector<Backend> backends_;
  std::vector<std::size_t> sizes_;
  std::size_t totalRows_ = 0;
  std::size_t doneRows_ = 0;
  bool showProgress_ = false;
};

int worldRank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

int worldSize() {
  int n = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  return n;
}

Driver::Driver(const Options& options)
    : options_(options), rank_(worldRank()), size_(worldSize()), watchdog_(options.timeoutS, rank_) {
  local_ = localInfo();
  mpiVersion_ = mpiLibraryVersion();
  startTime_ = utcNow();
  sizes_ = sweepSizes(options);
  checkForRanks(options, size_);
  checkMemory();
  buffers_.emplace(host_, std::max<std::size_t>(options.sweep.maxBytes, 1));
  for (const auto& name : options.backends) {
    Backend backend;
    backend.name = name;
    if (name == "mpi") {
      backend.communicator = std::make_unique<MpiCommunicator>(MPI_COMM_WORLD);
      backend.description = mpiVersion_;
    } else {
      for (Collective c : options.collectives) findAlgorithm(c, options.algo);  // unknown --algo: fail before running
      backend.transport = std::make_unique<MpiTransport>(MPI_COMM_WORLD);
      backend.communicator = std::make_unique<AlgorithmCommunicator>(*backend.transport, host_, options.algo, options.chunkBytes);
      backend.description = fmt::format("cclab {} over MPI point-to-point, {} chunks", options.algo, describeBytes(options.chunkBytes));
    }
    backends_.push_back(std::move(backend));
  }
  gatherPlacement();
  showProgress_ = rank_ == 0 && stderrIsTerminal();
}

void Driver::checkMemory() const {
  // MPI counts are ints.
  if (std::find(options_.backends.begin(), options_.backends.end(), "mpi") != options_.backends.end()) {
    std::size_t smallest = 8;
    for (DataType t : options_.dtypes) smallest = std::min(smallest, sizeOf(t));
    if (options_.sweep.maxBytes / smallest > MpiCommunicator::maxCount()) {
      throw InputError(fmt::format("-e {}: {} elements exceed the MPI library's count limit ({}); use --backend cclab or a smaller -e",
                                   describeBytes(options_.sweep.maxBytes), options_.sweep.maxBytes / smallest, MpiCommunicator::maxCount()));
    }
  }
  // Two buffers of the largest size, and for cclab a scratch copy of one (in-place alltoall).
  const bool cclab = std::find(options_.backends.begin(), options_.backends.end(), "cclab") != options_.backends.end();
  const double perRank = static_cast<double>(options_.sweep.maxBytes) * (cclab ? 3 : 2);
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int localRanks = 1;
  MPI_Comm_size(node, &localRanks);
  MPI_Comm_free(&node);
  const double needed = perRank * localRanks;
  int tooBig = needed > 0.9 * static_cast<double>(local_.availableMemoryBytes) && local_.availableMemoryBytes > 0;
  MPI_Allreduce(MPI_IN_PLACE, &tooBig, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (tooBig) {
    throw InputError(fmt::format("-e {} does not fit in memory: it needs {} per rank x {} ranks on a node, but {} is available",
                                 describeBytes(options_.sweep.maxBytes), describeBytes(static_cast<std::size_t>(perRank)), localRanks,
                                 describeBytes(local_.availableMemoryBytes)));
  }
}

void Driver::gatherPlacement() {
  // Each rank describes itself in a fixed-size record; rank 0 collects them for the header.
  constexpr int kRecord = 512;
  char mine[kRecord] = {};
  fmt::format_to_n(mine, kRecord - 1, "{}\t{}\t{}\t{}", local_.host, local_.pid, local_.core, local_.cpuModel);
  std::vector<char> all(static_cast<std::size_t>(kRecord * size_));
  MPI_Gather(mine, kRecord, MPI_CHAR, all.data(), kRecord, MPI_CHAR, 0, MPI_COMM_WORLD);
  if (rank_ != 0) return;
  for (int r = 0; r < size_; ++r) {
    std::string record(&all[static_cast<std::size_t>(r * kRecord)]);
    std::vector<std::string> fields;
    for (std::size_t start = 0;;) {
      const std::size_t tab = record.find('\t', start);
      fields.push_back(record.substr(start, tab - start));
      if (tab == std::string::npos) break;
      start = tab + 1;
    }
    fields.resize(4);
    results::RankPlacement p;
    p.rank = r;
    p.host = fields[0];
    p.pid = std::atoi(fields[1].c_str());
    p.core = std::atoi(fields[2].c_str());
    p.deviceName = fields[3];
    placement_.push_back(p);
  }
}

void Driver::combine(double* values, int n) const {
  switch (options_.average) {
    case Average::Rank0:
      MPI_Bcast(values, n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
      return;
    case Average::Mean:
      MPI_Allreduce(MPI_IN_PLACE, values, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
      for (int i = 0; i < n; ++i) values[i] /= size_;
      return;
    case Average::Min:
      MPI_Allreduce(MPI_IN_PLACE, values, n, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
      return;
    case Average::Max:
      MPI_Allreduce(MPI_IN_PLACE, values, n, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
      return;
  }
}

Row Driver::measure(Backend& backend, Collective collective, DataType dtype, std::optional<ReduceOp> op, int root,
                    std::size_t count, bool inPlace, int repeat) {
  const Buffers& buffers = *buffers_;
  Communicator& comm = *backend.communicator;
  const BufferLayout layout = bufferLayout(collective, count, size_, rank_);
  const std::size_t elementSize = sizeOf(dtype);

  CollectiveArgs args;
  args.count = count;
  args.dtype = dtype;
  args.op = op.value_or(ReduceOp::Sum);
  args.root = std::max(root, 0);
  char* single = static_cast<char*>(buffers.b());
  args.send = inPlace ? single + layout.inPlaceSendOffset * elementSize : buffers.a();
  args.recv = inPlace ? single + layout.inPlaceRecvOffset * elementSize : buffers.b();
  const Verifier verifier(collective, dtype, op, count, size_, rank_, args.root);

  watchdog_.describe(fmt::format("{} {} {} {} {}", backend.name, name(collective), name(dtype),
                                 describeBytes(bytesForCount(collective, count, dtype, size_)), inPlace ? "in place" : "out of place"));
  if (rank_ == options_.debugStallRank) {
    for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));  // test hook: a rank that never arrives
  }

  // 1. Warm up on repetition 0's data, then time `iters` runs from a common start.
  verifier.fillInput(const_cast<void*>(args.send), 0);
  MPI_Barrier(MPI_COMM_WORLD);
  for (int i = 0; i < options_.warmupIters; ++i) {
    comm.run(collective, args);
    watchdog_.kick();
  }
  std::vector<double> iterUs(static_cast<std::size_t>(options_.iters));
  MPI_Barrier(MPI_COMM_WORLD);
  const Clock::time_point start = Clock::now();
  for (int i = 0; i < options_.iters; ++i) {
    if (options_.blocking) MPI_Barrier(MPI_COMM_WORLD);  // untimed: every iteration starts together
    const Clock::time_point t0 = Clock::now();
    for (int a = 0; a < options_.aggIters; ++a) comm.run(collective, args);
    iterUs[static_cast<std::size_t>(i)] = seconds(Clock::now() - t0) * 1e6 / options_.aggIters;
    watchdog_.kick();
  }
  double totalUs = seconds(Clock::now() - start) * 1e6;
  if (options_.blocking) {  // the sum of the iterations, without the barriers between them
    totalUs = 0;
    for (double t : iterUs) totalUs += t;
  }
  double meanUs = totalUs / (static_cast<double>(options_.iters) * (options_.blocking ? 1 : options_.aggIters));
  combine(&meanUs, 1);
  combine(iterUs.data(), options_.iters);

  // 2. Check: fresh inputs per repetition, outputs poisoned first so unwritten elements count.
  std::optional<std::int64_t> wrong;
  if (options_.checkIters > 0) {
    std::int64_t localWrong = 0;
    for (int rep = 1; rep <= options_.checkIters; ++rep) {
      if (inPlace) verifier.poison(single, layout.inPlaceCount());
      else verifier.poison(args.recv, layout.recvCount);
      verifier.fillInput(const_cast<void*>(args.send), rep);
      comm.run(collective, args);
      watchdog_.kick();
      if (rank_ == options_.debugCorruptRank && layout.recvCount > 0) {
        static_cast<unsigned char*>(args.recv)[elementSize - 1] ^= 0x40;  // test hook: one wrong element
      }
      localWrong += verifier.countWrong(args.recv, rep, [this] { watchdog_.kick(); });
    }
    MPI_Allreduce(&localWrong, &wrong.emplace(), 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  }

  Row row;
  row.backend = backend.name;
  row.algo = comm.algorithm(collective);
  row.collective = collective;
  row.dtype = dtype;
  row.op = op;
  row.root = root;
  row.inPlace = inPlace;
  row.sizeBytes = bytesForCount(collective, count, dtype, size_);
  row.count = row.sizeBytes / elementSize;
  row.nranks = size_;
  row.repeat = repeat;
  row.iters = options_.iters;
  row.timeUs = meanUs;
  std::vector<double> sorted = iterUs;
  std::sort(sorted.begin(), sorted.end());
  row.timeUsMin = sorted.front();
  row.timeUsMax = sorted.back();
  row.timeUsP50 = sorted[sorted.size() / 2];
  row.timeUsP99 = percentile(sorted, 99);
  row.algbwGBps = results::algorithmBandwidthGBps(row.sizeBytes, meanUs);
  row.busbwGBps = results::busBandwidthGBps(collective, size_, row.sizeBytes, meanUs);
  row.wrong = wrong;
  row.iterTimesUs = std::move(iterUs);
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

void Driver::runTest(Backend& backend, Collective collective, std::vector<Row>& rows) {
  const std::string program = fmt::format("{}_perf", name(collective));
  out(fmt::format("# Collective test starting: {}\n# Backend: {}  algorithm: {}  ({})\n", program, backend.name,
                  backend.communicator->algorithm(collective), backend.description));
  out(results::columnHeader());
  std::vector<int> roots{-1};
  if (hasRoot(collective)) {
    roots.clear();
    if (options_.root >= 0) roots.push_back(options_.root);
    else for (int r = 0; r < size_; ++r) roots.push_back(r);
  }
  std::int64_t wrong = 0;
  double busbwSum = 0;
  int busbwCount = 0;
  for (DataType dtype : options_.dtypes) {
    for (std::optional<ReduceOp> op : opsFor(options_, collective)) {
      for (int root : roots) {
        for (int repeat = 0; repeat < options_.repeats; ++repeat) {
          for (std::size_t bytes : sizes_) {
            const std::size_t count = countForBytes(collective, bytes, dtype, size_);
            Row outOfPlace = measure(backend, collective, dtype, op, root, count, false, repeat);
            Row inPlace = measure(backend, collective, dtype, op, root, count, true, repeat);
            out(results::resultLine(outOfPlace, inPlace) + "\n");
            for (const Row* row : {&outOfPlace, &inPlace}) {
              wrong += row->wrong.value_or(0);
              busbwSum += row->busbwGBps;
              ++busbwCount;
            }
            progress(outOfPlace);
            rows.push_back(std::move(outOfPlace));
            rows.push_back(std::move(inPlace));
          }
        }
      }
    }
  }
  out(fmt::format("# Out of bounds values : {} {}\n# Avg bus bandwidth    : {:g} \n#\n# Collective test concluded: {}\n#\n", wrong,
                  wrong == 0 ? "OK" : "FAILED", busbwCount ? busbwSum / busbwCount : 0.0, program));
}

void Driver::printSideBySide(Collective collective, const std::vector<std::vector<Row>>& perBackend) const {
  const std::string& first = backends_.front().name;
  std::string header = fmt::format("# Side by side: {}, out-of-place algbw (GB/s); ratio = backend / {}\n#{:>11}  {:>8}  {:>6}  {:>6}",
                                   name(collective), first, "size", "type", "redop", "root");
  for (const auto& b : backends_) header += fmt::format("  {:>9}", b.name);
  for (std::size_t i = 1; i < backends_.size(); ++i) header += fmt::format("  {:>11}", backends_[i].name + "/" + first);
  std::string text = header + "\n";
  const std::vector<Row>& reference = perBackend.front();
  for (std::size_t i = 0; i < reference.size(); ++i) {
    const Row& base = reference[i];
    if (base.inPlace) continue;
    std::string line = fmt::format("#{:>11}  {:>8}  {:>6}  {:>6}", base.sizeBytes, name(base.dtype),
                                   base.op ? std::string(name(*base.op)) : std::string("none"), base.root);
    for (const auto& rows : perBackend) line += fmt::format("  {:>9.3f}", rows[i].algbwGBps);
    for (std::size_t b = 1; b < perBackend.size(); ++b) {
      line += fmt::format("  {:>11.3f}", base.algbwGBps > 0 ? perBackend[b][i].algbwGBps / base.algbwGBps : 0.0);
    }
    text += line + "\n";
  }
  out(text + "#\n");
}

results::RunInfo Driver::runInfo() const {
  results::RunInfo run;
  run.tool = "ccbench";
  run.toolVersion = version();
  run.command = options_.command;
  run.startTime = startTime_;
  run.endTime = utcNow();
  run.gitCommit = gitCommit();
  run.host = local_.host;
  run.cpuModel = local_.cpuModel;
  run.cpuCores = local_.cpuCores;
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
                {"warmup_iters", options_.warmupIters},
                {"check_iters", options_.checkIters},
                {"average", kAverage[static_cast<int>(options_.average)]},
                {"blocking", options_.blocking},
                {"repeats", options_.repeats},
                {"timeout_s", options_.timeoutS},
                {"backends", options_.backends},
                {"algo", options_.algo},
                {"device", options_.device},
                {"chunk_bytes", options_.chunkBytes}};
  return run;
}

int Driver::run() {
  for (std::size_t c = 0; c < options_.collectives.size(); ++c) {
    const Collective collective = options_.collectives[c];
    const std::size_t roots = hasRoot(collective) && options_.root < 0 ? static_cast<std::size_t>(size_) : 1;
    totalRows_ += backends_.size() * options_.dtypes.size() * opsFor(options_, collective).size() * roots *
                  static_cast<std::size_t>(options_.repeats) * sizes_.size();
  }
  out(fmt::format("# ccbench version {} (cclab commit {}); {}\n", version(), gitCommit(), mpiVersion_));
  out(fmt::format("# nThread 1 nGpus 0 minBytes {} maxBytes {} step: {} warmup iters: {} iters: {} agg iters: {} validation: {} graph: 0\n",
                  options_.sweep.minBytes, options_.sweep.maxBytes,
                  options_.sweep.stepFactor > 1 ? fmt::format("{}(factor)", options_.sweep.stepFactor) : fmt::format("{}(bytes)", options_.sweep.stepBytes),
                  options_.warmupIters, options_.iters, options_.aggIters, options_.checkIters > 0 ? 1 : 0));
  std::string devices = "#\n# Using devices\n";
  for (const auto& p : placement_) devices += results::rankLine(p) + "\n";
  out(devices + "#\n");

  std::vector<Row> all;
  std::int64_t wrong = 0;
  for (Collective collective : options_.collectives) {
    std::vector<std::vector<Row>> perBackend;
    for (Backend& backend : backends_) {
      perBackend.emplace_back();
      runTest(backend, collective, perBackend.back());
    }
    if (backends_.size() > 1) printSideBySide(collective, perBackend);
    for (auto& rows : perBackend) {
      for (Row& row : rows) {
        wrong += row.wrong.value_or(0);
        all.push_back(std::move(row));
      }
    }
  }

  if (rank_ == 0) {
    const results::ResultsFile file{runInfo(), std::move(all)};
    if (!options_.jsonPath.empty()) {
      results::writeFileAtomically(options_.jsonPath, results::toJson(file).dump(1) + "\n");
      out(fmt::format("# Wrote {}\n", options_.jsonPath));
    }
    if (!options_.csvPath.empty()) {
      results::writeFileAtomically(options_.csvPath, results::toCsv(file.rows));
      out(fmt::format("# Wrote {}\n", options_.csvPath));
    }
    if (wrong > 0) std::fprintf(stderr, "ccbench: %lld wrong elements: the results are incorrect\n", static_cast<long long>(wrong));
  }
  return wrong > 0 ? 1 : 0;
}

}  // namespace

int runBenchmark(const Options& options) {
  Driver driver(options);
  return driver.run();
}

}  // namespace cclab::bench
