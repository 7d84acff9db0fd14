#pragma once

// What a rank runs its part of the training step on (--device): the CPU — Eigen GEMMs, the MPI
// library's collectives or cclab's algorithms over MPI — or a GPU — cuBLAS GEMMs and copies on a
// CUDA stream per step stream, NCCL's collectives or cclab's algorithms over CUDA IPC. The step
// runner (step_runner.h) is the same for both: it asks the platform for each stream's Device and
// communicators, runs each task through it, and waits for it before the task counts as done.

#include <mpi.h>

#include <cstddef>
#include <functional>
#include <memory>
#include <span>
#include <string>

#include "bench/train/train_options.h"
#include "collectives/communicator.h"
#include "collectives/device.h"
#include "sim/training/step_graph.h"

namespace cclab::bench {

// The largest operands a rank's compute tasks use, in elements (the runner reads them off the graph).
struct ComputeSizes {
  std::size_t a = 1, b = 1, c = 1;  // GEMM operands: m x k, k x n, m x n
  // The same for a whole batch (count x each): batched products (attention's per-head GEMMs) run
  // as one strided-batched call on GPUs, as PyTorch's bmm does; the CPU loops over one operand.
  std::size_t batchedA = 1, batchedB = 1, batchedC = 1;
  std::size_t stream = 1;           // the buffer element-wise passes stream through
  std::size_t parameters = 0;       // the optimizer's shard
  std::size_t message = 1;          // the largest pipeline message, in bytes
};

// One group's communicator for one stream.
class StepLink {
 public:
  virtual ~StepLink() = default;
  virtual Communicator& communicator() = 0;
  // Waits for what the last run() enqueued, calling `poll` while it waits (GPUs enqueue and
  // return; on the CPU run() has finished already).
  virtual void wait(const std::function<void()>& poll) { (void)poll; }
};

class StepPlatform {
 public:
  virtual ~StepPlatform() = default;
  // "cpu" or "cuda:<gpu>", for the header line.
  virtual std::string describe() const = 0;
  // Where `stream`'s collectives keep their buffers (a CUDA stream of its own on a GPU, as the
  // frameworks give NCCL's collectives streams of their own).
  virtual Device& device(sim::StreamKind stream) = 0;
  // The communicator of the ranks in `comm` for `stream`'s collectives (collective over `comm`;
  // `comm` may be freed afterwards).
  virtual std::unique_ptr<StepLink> link(MPI_Comm comm, sim::StreamKind stream) = 0;
  // Allocates the compute tasks' operands and touches them (not inside the first timed step).
  virtual void reserve(const ComputeSizes& sizes) = 0;
  // Runs a compute task's GEMMs, element-wise passes and optimizer step, and waits for them.
  virtual void compute(const sim::Task& task, std::span<const sim::Gemm> gemms) = 0;
  // Pipeline messages travel between host buffers over MPI: the GPU copies them out and in.
  virtual char* messageBuffer() = 0;
  virtual void messageToHost(std::size_t bytes) { (void)bytes; }
  virtual void messageFromHost(std::size_t bytes) { (void)bytes; }
  // This rank's peak memory and what it counts ("RSS" on the CPU; "device memory" on a GPU).
  virtual double peakMemoryBytes() const = 0;
  virtual std::string memoryKind() const = 0;
};

// --device cpu: Eigen, and the MPI library's collectives (--backend mpi) or cclab's algorithms
// over MPI point-to-point (--backend cclab).
std::unique_ptr<StepPlatform> makeCpuPlatform(const TrainOptions& options, DataType dtype);
// --device cuda: this rank's GPU (the host's processes take its GPUs in turn; NCCL needs one per
// rank), cuBLAS, NCCL (--backend nccl) or cclab's algorithms over CUDA IPC (--backend cclab).
// Collective over MPI_COMM_WORLD; InputError on every rank when any rank cannot run (no GPU, too
// few GPUs for NCCL, ranks on several hosts for CUDA IPC). A build without CUDA says so.
std::unique_ptr<StepPlatform> makeGpuPlatform(const TrainOptions& options, DataType dtype);

}  // namespace cclab::bench
