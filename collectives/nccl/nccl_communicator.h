#pragma once

// NVIDIA's NCCL as a cclab Communicator: the library's own collectives on device buffers. One
// process drives one GPU (one rank per process under mpirun/srun) or several (-g: ranks
// procRank*g ... procRank*g+g-1), as nccl-tests does. Calls are enqueued on each GPU's stream and
// return at once; synchronize() waits, checking NCCL's asynchronous errors.

#include <mpi.h>
#include <nccl.h>

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "collectives/communicator.h"
#include "collectives/cuda/cuda_device.h"
#include "collectives/nccl/nccl_features.h"

namespace cclab {

class NcclError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class NcclCommunicator final : public Communicator {
 public:
  // Collective over `mpiComm`: rank 0 creates the NCCL unique id and broadcasts it.
  NcclCommunicator(MPI_Comm mpiComm, std::span<CudaDevice* const> devices);
  ~NcclCommunicator() override;
  NcclCommunicator(const NcclCommunicator&) = delete;
  NcclCommunicator& operator=(const NcclCommunicator&) = delete;

  int rank() const override { return firstRank_; }
  int size() const override { return size_; }
  int localRanks() const override { return static_cast<int>(comms_.size()); }
  // NCCL picks ring, tree, NVLS, ... per call and does not say: labelled as nccl-tests imports are.
  std::string algorithm(Collective) const override { return std::string(kLibraryTunerChose); }
  void run(Collective collective, const CollectiveArgs& args) override;
  void runLocal(Collective collective, std::span<const CollectiveArgs> args) override;

  // Waits until every local GPU has finished what was enqueued, calling `poll` while it waits and
  // checking each communicator's asynchronous error; throws NcclError on one, and after an abort
  // was requested (which it carries out first).
  template <typename Poll>
  void synchronize(Poll&& poll);
  void synchronize() {
    synchronize([] {});
  }
  // Asks for every local communicator to be aborted: what a timeout does to a hung collective.
  // Safe from any thread (the -T watchdog's): it only sets a flag. The thread polling in
  // synchronize() aborts them (ncclCommAbort is not safe against a concurrent NCCL call from
  // another thread), calls `aborted`, and throws.
  void requestAbort(std::function<void()> aborted);
  // NCCL's group around several collectives: launched as one (nccl-tests's -m agg iters).
  static void groupStart();
  static void groupEnd();

  // The ranks of this one-GPU communicator that pass the same `color`, ordered by `key`, as a
  // new communicator whose calls run on `device`'s stream: ncclCommSplit (NCCL 2.18), as
  // torch.distributed makes its groups. Collective over this communicator.
  std::unique_ptr<NcclCommunicator> split(int color, int key, CudaDevice& device);

  // "2.28.9" of the library loaded at run time, and its code (22809; 0 when it does not say).
  static std::string libraryVersion();
  static int libraryVersionCode();
  // What this build may call in the loaded library (nccl_features.h).
  static NcclFeatures features();

 private:
  NcclCommunicator(ncclComm_t comm, CudaDevice& device);
  bool streamsIdle();
  void abort();  // on the polling thread
  void enqueue(Collective collective, const CollectiveArgs& args, int local);
  void enqueueNative(Collective collective, const CollectiveArgs& args, ncclComm_t comm, cudaStream_t stream);

  std::vector<CudaDevice*> devices_;
  std::vector<ncclComm_t> comms_;
  std::mutex abortMutex_;  // guards onAborted_
  std::atomic<bool> abortRequested_{false};
  std::function<void()> onAborted_;
  bool aborted_ = false;
  NcclFeatures features_;
  int firstRank_ = 0;
  int size_ = 1;
};

template <typename Poll>
void NcclCommunicator::synchronize(Poll&& poll) {
  while (!streamsIdle()) poll();
}

}  // namespace cclab
