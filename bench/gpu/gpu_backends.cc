// The GPU backends: NCCL (--backend nccl) and cclab's algorithms on device memory
// (--backend cclab --device cuda). Both keep one CudaDevice per GPU this process drives.

#include <mpi.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <functional>
#include <thread>

#include <fmt/format.h>

#include "bench/backend.h"
#include "bench/gpu_loop.h"
#include "collectives/verify/cuda_verifier.h"
#include "bench/gpu/gpu_info.h"
#include "bench/system_info.h"
#include "collectives/algorithms/algorithms.h"
#include "collectives/cuda/cuda_error.h"
#include "collectives/errors.h"
#include "collectives/mpi/cuda_ipc_transport.h"
#include "collectives/sizes.h"
#ifdef CCLAB_HAVE_NCCL
#include "collectives/nccl/nccl_communicator.h"
#include "collectives/nccl/nccl_memory.h"
#endif

namespace cclab::bench {
namespace {

class GpuBackend;

// The timed loop on GPUs (gpu_loop.h), through the backend's streams, events and graphs.
class GpuTiming final : public Timing, private GpuLoopSteps {
 public:
  explicit GpuTiming(GpuBackend& backend) : backend_(backend) {}
  LoopTimes run(const Launch& launch, const LoopSettings& loop, const std::function<void()>& progress) override {
    return runGpuLoop(*this, launch, loop, progress);
  }

 private:
  void synchronize() override;
  void barrier() override { MPI_Barrier(MPI_COMM_WORLD); }
  void beginCapture() override;
  void endCapture() override;
  void replay() override;
  void releaseCapture() override;
  void beginGroup() override;
  void endGroup() override;
  void prepareIterations(int iterations) override;
  void recordIteration(int index) override;
  std::vector<double> iterationTimesUs(int iterations) override;
  double now() override { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
  double maxOverRanks(double value) override {
    MPI_Allreduce(MPI_IN_PLACE, &value, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return value;
  }

  GpuBackend& backend_;
};

// What both GPU backends share: the devices, checking there, events, timing, placement and
// description.
class GpuBackend : public Backend {
 public:
  GpuBackend(std::string name, const std::vector<int>& gpus) : Backend(std::move(name), ""), timing_(*this) {
    for (int gpu : gpus) {
      devices_.push_back(std::make_unique<CudaDevice>(gpu));
      unsigned long long* counter = nullptr;
      CCLAB_CUDA(cudaMalloc(&counter, sizeof(*counter)));
      counters_.push_back(counter);
    }
  }
  ~GpuBackend() override {
    for (std::size_t i = 0; i < devices_.size(); ++i) {
      cudaSetDevice(devices_[i]->gpu());
      cudaFree(counters_[i]);
      if (i < events_.size()) {
        for (cudaEvent_t e : events_[i]) cudaEventDestroy(e);
      }
    }
  }

  Device& device(int local) override { return *devices_[static_cast<std::size_t>(local)]; }
  std::unique_ptr<Checker> checker(const CheckSpec& spec, int local) override {
    return std::make_unique<verify::CudaVerifier>(spec, *devices_[static_cast<std::size_t>(local)], counters_[static_cast<std::size_t>(local)]);
  }
  bool onGpu() const override { return true; }
  void synchronize() override {
    for (auto& d : devices_) d->synchronize();
  }
  Timing& timing() override { return timing_; }

  // What NCCL adds to the timed loop (no-ops for cclab's algorithms). -G: the collectives issued
  // between beginCapture and endCapture become a CUDA graph, replay() launches it once, and the
  // graphs go before the buffers they captured do (as nccl-tests does).
  virtual void beginCapture() {}
  virtual void endCapture() {}
  virtual void replay() {}
  virtual void releaseCapture() {}
  // -m: the collectives of one iteration are launched as one group (ncclGroupStart/End).
  virtual void beginGroup() {}
  virtual void endGroup() {}

  // -I: a CUDA event per timed iteration, all created before timing; times between consecutive
  // events, in microseconds (the slowest of this process's GPUs).
  void prepareIterations(int iterations) {
    events_.resize(devices_.size());
    for (std::size_t i = 0; i < devices_.size(); ++i) {
      auto& events = events_[i];
      CCLAB_CUDA(cudaSetDevice(devices_[i]->gpu()));
      while (static_cast<int>(events.size()) <= iterations) {  // one more than iterations: the end
        cudaEvent_t e;
        CCLAB_CUDA(cudaEventCreate(&e));
        events.push_back(e);
      }
    }
  }
  void recordIteration(int index) {
    for (std::size_t i = 0; i < devices_.size(); ++i) {
      CCLAB_CUDA(cudaSetDevice(devices_[i]->gpu()));
      CCLAB_CUDA(cudaEventRecord(events_[i].at(static_cast<std::size_t>(index)), devices_[i]->stream()));
    }
  }
  std::vector<double> iterationTimesUs(int iterations) {
    std::vector<double> times(static_cast<std::size_t>(iterations), 0.0);
    for (std::size_t i = 0; i < devices_.size(); ++i) {
      CCLAB_CUDA(cudaEventSynchronize(events_[i][static_cast<std::size_t>(iterations)]));
      for (int k = 0; k < iterations; ++k) {
        float ms = 0;
        CCLAB_CUDA(cudaEventElapsedTime(&ms, events_[i][static_cast<std::size_t>(k)], events_[i][static_cast<std::size_t>(k + 1)]));
        times[static_cast<std::size_t>(k)] = std::max(times[static_cast<std::size_t>(k)], ms * 1e3);  // the slowest local GPU
      }
    }
    return times;
  }

  std::vector<results::RankPlacement> placement() override {
    const LocalInfo info = localInfo();
    std::vector<results::RankPlacement> placement;
    for (std::size_t i = 0; i < devices_.size(); ++i) {
      results::RankPlacement p;
      p.rank = communicator().rank() + static_cast<int>(i);
      p.host = info.host;
      p.pid = info.pid;
      p.device = devices_[i]->gpu();
      p.busId = pciBusId(p.device);
      p.deviceName = gpuName(p.device);
      placement.push_back(p);
    }
    return placement;
  }
  void describe(results::RunInfo& run) const override {
    int runtime = 0;
    cudaRuntimeGetVersion(&runtime);
    run.cudaVersion = fmt::format("{}.{}", runtime / 1000, runtime % 1000 / 10);
    run.gpuModel = gpuName(devices_.front()->gpu());
    run.config["gpu_system"] = describeGpuSystem();
  }

  // Two buffers of `bytes` per local rank, plus `extra` buffers, for `sharing` processes per GPU.
  void checkGpuMemory(std::size_t bytes, int extra, int sharing) {
    std::string problem;
    for (auto& d : devices_) {
      std::size_t free = 0, total = 0;
      CCLAB_CUDA(cudaSetDevice(d->gpu()));
      CCLAB_CUDA(cudaMemGetInfo(&free, &total));
      const double needed = static_cast<double>(bytes) * (2 + extra) * sharing;
      if (needed > 0.9 * static_cast<double>(free) && problem.empty()) {
        problem = fmt::format("-e {} does not fit on GPU {}: {} processes need {} there, {} is free", describeBytes(bytes), d->gpu(),
                              sharing, describeBytes(static_cast<std::size_t>(needed)), describeBytes(free));
      }
    }
    agreeOrThrow(problem, fmt::format("-e {} does not fit in GPU memory on another rank", describeBytes(bytes)));
  }

 protected:
  std::vector<std::unique_ptr<CudaDevice>> devices_;
  std::vector<unsigned long long*> counters_;
  std::vector<std::vector<cudaEvent_t>> events_;
  GpuTiming timing_;
};

void GpuTiming::synchronize() { backend_.synchronize(); }
void GpuTiming::beginCapture() { backend_.beginCapture(); }
void GpuTiming::endCapture() { backend_.endCapture(); }
void GpuTiming::replay() { backend_.replay(); }
void GpuTiming::releaseCapture() { backend_.releaseCapture(); }
void GpuTiming::beginGroup() { backend_.beginGroup(); }
void GpuTiming::endGroup() { backend_.endGroup(); }
void GpuTiming::prepareIterations(int iterations) { backend_.prepareIterations(iterations); }
void GpuTiming::recordIteration(int index) { backend_.recordIteration(index); }
std::vector<double> GpuTiming::iterationTimesUs(int iterations) { return backend_.iterationTimesUs(iterations); }

// cclab's algorithms on device memory: CUDA IPC between processes, reduction kernels.
class CudaAlgorithmBackend final : public GpuBackend {
 public:
  CudaAlgorithmBackend(const Options& o, int gpu, int sharing, CclabAlgorithms algorithms)
      : GpuBackend(std::string(kOwnBackend), {gpu}),
        transport_(MPI_COMM_WORLD, *devices_.front()),
        communicator_(transport_, *devices_.front(), std::move(algorithms.chooser), o.chunkBytes),
        sharing_(sharing) {
    communicator_.setRanksPerNode(algorithms.ranksPerNode(o));
    setDescription(fmt::format("cclab --algo {} on CUDA, IPC between processes, {} chunks", algorithms.label, describeBytes(o.chunkBytes)));
  }
  Communicator& communicator() override { return communicator_; }
  // + scratch, and the smaller scratch buffers it outgrew (exported memory is freed only at the end)
  void checkMemory(std::size_t bytes) override { checkGpuMemory(bytes, 2, sharing_); }

 private:
  CudaIpcTransport transport_;
  AlgorithmCommunicator communicator_;
  int sharing_;
};

#ifdef CCLAB_HAVE_NCCL
// NCCL's own collectives.
class NcclBackend final : public GpuBackend {
 public:
  explicit NcclBackend(const std::vector<int>& gpus) : GpuBackend("nccl", gpus), communicator_(MPI_COMM_WORLD, deviceList()) {
    setDescription(fmt::format("NCCL {}", NcclCommunicator::libraryVersion()));
    for (auto& d : devices_) memory_.push_back(std::make_unique<NcclMemoryDevice>(*d));
  }
  // Buffers from ncclMemAlloc, as nccl-tests allocates them (NCCL 2.19).
  Device& device(int local) override { return *memory_[static_cast<std::size_t>(local)]; }
  ~NcclBackend() override { destroyGraphs(); }
  Communicator& communicator() override { return communicator_; }
  bool checksInPlace(Collective c) const override { return c != Collective::AllToAll && c != Collective::SendRecv; }
  std::string knownIssue(Collective c, DataType t, std::optional<ReduceOp> op, bool inPlace) const override {
    return ncclKnownIssue(NcclCommunicator::features(), c, t, op, inPlace, communicator_.size());
  }
  bool supports(DataType t) const override {
    if (t != DataType::Float8E4M3 && t != DataType::Float8E5M2) return true;
    if (!NcclCommunicator::features().fp8) return false;  // nccl.h and the loaded libnccl: 2.24
    for (const auto& d : devices_) {
      int major = 0;
      cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, d->gpu());
      if (major < 9) return false;
    }
    return true;
  }
  // nccl-tests with NCCL 2.28.3 on an H100 stops at f8e4m3 avg with "invalid argument"
  // (tests/data/nccl-tests-h100/all_reduce_all_types_ops.txt): ccbench leaves that pair out.
  bool supports(DataType t, ReduceOp op) const override {
    return !((t == DataType::Float8E4M3 || t == DataType::Float8E5M2) && op == ReduceOp::Avg);
  }
  void synchronize() override { communicator_.synchronize([] { std::this_thread::yield(); }); }
  bool requestAbort(const std::function<void()>& aborted) override {
    communicator_.requestAbort(aborted);
    return true;
  }
  void checkMemory(std::size_t bytes) override { checkGpuMemory(bytes, 0, 1); }

  void beginCapture() override {
    destroyGraphs();
    for (auto& d : devices_) {
      CCLAB_CUDA(cudaSetDevice(d->gpu()));
      CCLAB_CUDA(cudaStreamBeginCapture(d->stream(), cudaStreamCaptureModeThreadLocal));
    }
  }
  void endCapture() override {
    for (auto& d : devices_) {
      CCLAB_CUDA(cudaSetDevice(d->gpu()));
      cudaGraph_t graph = nullptr;
      CCLAB_CUDA(cudaStreamEndCapture(d->stream(), &graph));
      cudaGraphExec_t exec = nullptr;
      CCLAB_CUDA(cudaGraphInstantiate(&exec, graph, 0));
      CCLAB_CUDA(cudaGraphDestroy(graph));
      graphs_.push_back(exec);
    }
  }
  void replay() override {
    for (std::size_t i = 0; i < devices_.size(); ++i) {
      CCLAB_CUDA(cudaSetDevice(devices_[i]->gpu()));
      CCLAB_CUDA(cudaGraphLaunch(graphs_[i], devices_[i]->stream()));
    }
  }
  void releaseCapture() override { destroyGraphs(); }
  void beginGroup() override { NcclCommunicator::groupStart(); }
  void endGroup() override { NcclCommunicator::groupEnd(); }
  void describe(results::RunInfo& run) const override {
    GpuBackend::describe(run);
    run.ncclVersion = NcclCommunicator::libraryVersion();
  }

 private:
  std::vector<CudaDevice*> deviceList() {
    std::vector<CudaDevice*> list;
    for (auto& d : devices_) list.push_back(d.get());
    return list;
  }
  void destroyGraphs() {
    for (cudaGraphExec_t g : graphs_) cudaGraphExecDestroy(g);
    graphs_.clear();
  }

  NcclCommunicator communicator_;
  std::vector<std::unique_ptr<NcclMemoryDevice>> memory_;
  std::vector<cudaGraphExec_t> graphs_;
};
#endif

}  // namespace

std::unique_ptr<Backend> makeNcclBackend(const Options& options) {
#ifdef CCLAB_HAVE_NCCL
  const int available = gpusOrThrow();
  const HostPosition where = hostPosition();
  // nccl-tests's rule: process k on a host drives GPUs k*g ... k*g+g-1 (NCCL needs one per rank).
  std::vector<int> gpus;
  for (int k = 0; k < options.gpusPerProcess; ++k) gpus.push_back(where.index * options.gpusPerProcess + k);
  const bool fits = gpus.back() < available;
  agreeOrThrow(fits ? "" : fmt::format("{} processes x -g {} on this host need {} GPUs, but it has {} (NCCL needs one GPU per rank)",
                                       where.processes, options.gpusPerProcess, where.processes * options.gpusPerProcess, available),
               "another host has fewer GPUs than its ranks need (NCCL needs one GPU per rank)");
  return std::make_unique<NcclBackend>(gpus);
#else
  (void)options;
  throw InputError("--backend nccl: this ccbench was built without NCCL");
#endif
}

std::unique_ptr<Backend> makeCudaAlgorithmBackend(const Options& options) {
  const int available = gpusOrThrow();
  const HostPosition where = hostPosition();
  int world = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &world);
  agreeOrThrow(where.processes == world ? "" : fmt::format("--device cuda: all {} ranks must run on one host (CUDA IPC does not cross hosts); this host has {}", world, where.processes),
               "--device cuda: all ranks must run on one host (CUDA IPC does not cross hosts)");
  // Processes share the host's GPUs round robin: several on one GPU is how a single-GPU machine
  // runs a multi-rank ring (HBM is then the link).
  const int gpu = where.index % available;
  const int sharing = (where.processes + available - 1 - gpu) / available;
  const int mostSharing = (where.processes + available - 1) / available;  // GPU 0's: the same on every rank
  requirePeerAccess(gpu);  // before any IPC mapping could fail half-way
  return std::make_unique<CudaAlgorithmBackend>(options, gpu, sharing, cclabAlgorithms(options, gpuName(gpu), true, mostSharing));
}

}  // namespace cclab::bench
