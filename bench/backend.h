#pragma once

// One backend under test, as the driver sees it: a communicator, where each of this process's
// ranks keeps its buffers (a Device), how results are checked there, and how its collectives are
// timed (timing.h). CPU backends (mpi, cclab --device cpu) are in backends.cc; GPU ones (nccl,
// cclab --device cuda) in gpu/gpu_backends.cc.

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bench/options.h"
#include "bench/timing.h"
#include "collectives/communicator.h"
#include "collectives/device.h"
#include "collectives/verify/verify.h"
#include "results/results.h"

namespace cclab::bench {

using verify::Checker;
using verify::CheckSpec;

class Backend {
 public:
  virtual ~Backend() = default;

  const std::string& name() const { return name_; }
  const std::string& description() const { return description_; }
  virtual Communicator& communicator() = 0;
  int localRanks() { return communicator().localRanks(); }

  // Where local rank `local` keeps its buffers, and how they are checked there.
  virtual Device& device(int local) = 0;
  virtual std::unique_ptr<Checker> checker(const CheckSpec& spec, int local) = 0;
  // Whether this backend can run `dtype` here (NCCL's fp8 needs NCCL 2.24 and compute capability 9.0).
  virtual bool supports(DataType) const { return true; }
  // Whether it can reduce `dtype` with `op` (NCCL 2.28 refuses avg on fp8: ncclInvalidArgument).
  virtual bool supports(DataType, ReduceOp) const { return true; }
  // Whether an in-place run of `collective` leaves a checkable result (NCCL's in-place alltoall
  // and sendrecv read and write one buffer at once: nccl-tests reports N/A for them).
  virtual bool checksInPlace(Collective) const { return true; }
  // A known defect of the library behind this backend that makes such a call's output wrong, with
  // its upstream issue, or "" (the wrong elements are still counted; this says why).
  virtual std::string knownIssue(Collective, DataType, std::optional<ReduceOp>, bool /*inPlace*/) const { return {}; }

  // How its timed loop runs (HostClockTiming on the CPU).
  virtual Timing& timing() = 0;
  // GPU backends enqueue work and return: their buffers are device memory, the timed loop moves
  // through them as nccl-tests does, and synchronize() waits for the enqueued work.
  virtual bool onGpu() const { return false; }
  virtual void synchronize() {}
  // A hang was detected (on the -T watchdog's thread): ask the library to give up (NCCL: the
  // polling thread aborts the communicators, then calls `aborted`); returns whether it asked.
  virtual bool requestAbort(const std::function<void()>& aborted) {
    (void)aborted;
    return false;
  }
  // Throws InputError when two buffers of `bytes` per local rank (plus what the backend needs)
  // do not fit on its GPUs. CPU backends: the driver checks host memory.
  virtual void checkMemory(std::size_t /*bytes*/) {}

  // This process's ranks for the header lines and the results file (CPU: the core it runs on).
  virtual std::vector<results::RankPlacement> placement();
  // GPU, driver, CUDA and NCCL versions, GPU links: what a GPU backend adds to the results file.
  virtual void describe(results::RunInfo& /*run*/) const {}

 protected:
  Backend(std::string name, std::string description) : name_(std::move(name)), description_(std::move(description)) {}
  void setDescription(std::string description) { description_ = std::move(description); }

 private:
  std::string name_;
  std::string description_;
};

// The backends `options` asks for, in order. Collective over MPI_COMM_WORLD.
std::vector<std::unique_ptr<Backend>> makeBackends(const Options& options, const std::string& mpiVersion);

// What picks cclab's algorithm for each call: the family or list --algo names, or under
// `--algo auto` the simulator's tuner (tuner.h) on --cluster or the description shipped for
// `device` (a CPU or GPU model). `label` gets what the headers say runs ("ring", "auto (tuned on
// ...)"). Collective over MPI_COMM_WORLD (it counts the ranks on each host).
struct CclabAlgorithms {
  std::unique_ptr<AlgorithmChooser> chooser;
  std::string label;
  int ranksPerHost = 0;  // ranks on each host, or 0 when hosts differ (ranksPerHost(), asked once)
  // The ranks of a node for the hierarchical algorithms: --ranks-per-node, else a host's.
  int ranksPerNode(const Options& options) const { return options.ranksPerNode > 0 ? options.ranksPerNode : ranksPerHost; }
};
// `ranksPerDevice`: the most ranks on one GPU (auto prices the steps of processes sharing one).
CclabAlgorithms cclabAlgorithms(const Options& options, const std::string& device, bool onGpu, int ranksPerDevice = 1);

// The GPU backends (gpu/gpu_backends.cc; a build without CUDA says it has none).
std::unique_ptr<Backend> makeNcclBackend(const Options& options);
std::unique_ptr<Backend> makeCudaAlgorithmBackend(const Options& options);

}  // namespace cclab::bench
