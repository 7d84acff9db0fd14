// ccbench train --device cuda: the step on this rank's GPU. Each step stream (compute, gathers,
// reductions) gets a CUDA stream of its own (a CudaDevice each, on the same GPU), as PyTorch gives
// NCCL's collectives streams apart from the compute stream. Compute tasks run the graph's GEMMs
// with cuBLAS (bf16 in, fp32 accumulate for mixed precision; fp32 otherwise), their element-wise
// passes and the optimizer as device-to-device copies moving the same bytes, and each task is
// waited for before it counts as done (the runner's host threads order the streams, as the
// frameworks' events do). Collectives: NCCL on communicators split from one world communicator
// (ncclCommSplit), or cclab's algorithms over CUDA IPC.

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <thread>

#include <fmt/format.h>

#include "bench/gpu/gpu_info.h"
#include "bench/options.h"
#include "bench/system_info.h"
#include "bench/train/step_platform.h"
#include "collectives/cuda/cuda_device.h"
#include "collectives/cuda/cuda_error.h"
#include "collectives/errors.h"
#include "collectives/mpi/cuda_ipc_transport.h"
#ifdef CCLAB_HAVE_NCCL
#include "collectives/nccl/nccl_communicator.h"
#endif

namespace cclab::bench {
namespace {

void cublasCheck(cublasStatus_t status, const char* call) {
  if (status != CUBLAS_STATUS_SUCCESS) throw CudaError(fmt::format("{}: cuBLAS status {}", call, static_cast<int>(status)));
}
#define CCLAB_CUBLAS(call) cublasCheck((call), #call)

std::size_t whole(double x) { return static_cast<std::size_t>(std::max(1.0, std::round(x))); }

// Waits for a device's stream without blocking in the driver, so the -T watchdog's kicks go on.
void waitFor(CudaDevice& device, const std::function<void()>& poll) {
  for (;;) {
    const cudaError_t status = cudaStreamQuery(device.stream());
    if (status != cudaErrorNotReady) {
      cudaCheck(status, "cudaStreamQuery");
      return;
    }
    poll();
    std::this_thread::yield();
  }
}

class IpcLink final : public StepLink {
 public:
  IpcLink(MPI_Comm comm, CudaDevice& device, const std::string& algo)
      : device_(device), transport_(comm, device), communicator_(transport_, device, algo, kDefaultCudaChunkBytes) {}
  Communicator& communicator() override { return communicator_; }
  void wait(const std::function<void()>& poll) override { waitFor(device_, poll); }

 private:
  CudaDevice& device_;
  CudaIpcTransport transport_;  // before the communicator that uses it
  AlgorithmCommunicator communicator_;
};

#ifdef CCLAB_HAVE_NCCL
class NcclLink final : public StepLink {
 public:
  explicit NcclLink(std::unique_ptr<NcclCommunicator> communicator) : communicator_(std::move(communicator)) {}
  Communicator& communicator() override { return *communicator_; }
  void wait(const std::function<void()>& poll) override {
    communicator_->synchronize([&] {
      poll();
      std::this_thread::yield();
    });
  }

 private:
  std::unique_ptr<NcclCommunicator> communicator_;
};
#endif

class GpuPlatform final : public StepPlatform {
 public:
  GpuPlatform(const TrainOptions& options, DataType dtype, int gpu) : options_(options), dtype_(dtype), gpu_(gpu) {
    for (auto& d : devices_) d = std::make_unique<CudaDevice>(gpu);
    CCLAB_CUBLAS(cublasCreate(&cublas_));
    CCLAB_CUBLAS(cublasSetStream(cublas_, compute().stream()));
  }
  ~GpuPlatform() override {
    cublasDestroy(cublas_);
    for (void* p : owned_) compute().release(p);
  }

  std::string describe() const override { return fmt::format("cuda:{} ({})", gpu_, gpuName(gpu_)); }
  Device& device(sim::StreamKind stream) override { return deviceOf(stream); }

  std::unique_ptr<StepLink> link(MPI_Comm comm, sim::StreamKind stream) override {
    CudaDevice& device = deviceOf(stream);
    if (options_.backend == "cclab") return std::make_unique<IpcLink>(comm, device, options_.algo);
#ifdef CCLAB_HAVE_NCCL
    // Groups are split from one world communicator, as torch.distributed.new_group does; an
    // NCCL older than 2.18 (no ncclCommSplit) gets a fresh communicator per group instead.
    if (!NcclCommunicator::features().commSplit) {
      CudaDevice* devices[] = {&device};
      return std::make_unique<NcclLink>(std::make_unique<NcclCommunicator>(comm, devices));
    }
    if (!world_) {
      CudaDevice* devices[] = {&compute()};
      world_ = std::make_unique<NcclCommunicator>(MPI_COMM_WORLD, devices);
    }
    int rank = 0, color = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    // The MPI group's lowest world rank names it: the same colour on every member.
    MPI_Allreduce(&rank, &color, 1, MPI_INT, MPI_MIN, comm);
    return std::make_unique<NcclLink>(world_->split(color, rank, device));
#else
    throw InputError("--backend nccl: this ccbench was built without NCCL");
#endif
  }

  void reserve(const ComputeSizes& sizes) override {
    const std::size_t element = dtype_ == DataType::BFloat16 ? 2 : 4;
    // A batch gets operands of its own up to 1 GiB each; past that its products share one.
    const auto operand = [&](std::size_t one, std::size_t batch) {
      return std::max(one, std::min(batch, (std::size_t{1} << 30) / element));
    };
    aElements_ = operand(sizes.a, sizes.batchedA);
    bElements_ = operand(sizes.b, sizes.batchedB);
    cElements_ = operand(sizes.c, sizes.batchedC);
    a_ = zeroed(aElements_ * element);
    b_ = zeroed(bElements_ * element);
    c_ = zeroed(cElements_ * element);
    // Copies move half the element-wise passes' bytes in and half out: two halves of one buffer.
    streamBytes_ = sizes.stream * sizeof(float);
    stream_ = zeroed(2 * streamBytes_);
    // Fused Adam reads parameters, gradients and both fp32 moments and writes three: 14 bytes
    // copied per parameter move its 28.
    optimizerBytes_ = sizes.parameters * 14;
    optimizer_ = zeroed(2 * std::max<std::size_t>(1, optimizerBytes_));
    message_ = zeroed(sizes.message);
    hostMessage_.assign(sizes.message, 0);
    compute().synchronize();
  }

  void compute(const sim::Task& task, std::span<const sim::Gemm> gemms) override {
    for (const sim::Gemm& g : gemms) {
      const int m = static_cast<int>(whole(g.m)), k = static_cast<int>(whole(g.k)), n = static_cast<int>(whole(g.n));
      const std::size_t count = whole(g.count);
      if (count == 1) {
        gemm(m, n, k);
      } else {
        // One launch for the batch (PyTorch's bmm: cublasGemmStridedBatchedEx), each product on
        // operands of its own where the batch fits the buffers.
        const auto stride = [count](std::size_t one, std::size_t elements) {
          return count * one <= elements ? static_cast<long long>(one) : 0LL;
        };
        const std::size_t mk = static_cast<std::size_t>(m) * static_cast<std::size_t>(k),
                          kn = static_cast<std::size_t>(k) * static_cast<std::size_t>(n),
                          mn = static_cast<std::size_t>(m) * static_cast<std::size_t>(n);
        gemmBatched(m, n, k, stride(mk, aElements_), stride(kn, bElements_), stride(mn, cElements_), static_cast<int>(count));
      }
    }
    copyThrough(stream_, streamBytes_, task.memoryBytes / 2);
    if (task.parameters > 0) copyThrough(optimizer_, optimizerBytes_, 14 * task.parameters);
    waitFor(compute(), [] {});
  }

  char* messageBuffer() override { return hostMessage_.data(); }

  // Row-major C (m x n) = A (m x k) B (k x n), as PyTorch lays tensors out (each row contiguous,
  // its length the leading dimension), so a GEMM meets the same alignment a framework's does: the
  // logits' rows are vocabulary-long, 50,257 elements for GPT-2 unpadded. cuBLAS is column-major:
  // it computes C^T = B^T A^T. In the step's precision (bf16 with fp32 accumulation, as mixed
  // precision runs; fp32 otherwise).
  void gemm(int m, int n, int k) {
    const float alpha = 1, beta = 0;
    if (dtype_ == DataType::BFloat16) {
      CCLAB_CUBLAS(cublasGemmEx(cublas_, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &alpha, b_, CUDA_R_16BF, n, a_, CUDA_R_16BF, k, &beta, c_,
                                CUDA_R_16BF, n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    } else {
      CCLAB_CUBLAS(cublasSgemm(cublas_, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &alpha, static_cast<const float*>(b_), n,
                               static_cast<const float*>(a_), k, &beta, static_cast<float*>(c_), n));
    }
  }
  void gemmBatched(int m, int n, int k, long long strideA, long long strideB, long long strideC, int count) {
    const float alpha = 1, beta = 0;
    if (dtype_ == DataType::BFloat16) {
      CCLAB_CUBLAS(cublasGemmStridedBatchedEx(cublas_, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &alpha, b_, CUDA_R_16BF, n, strideB, a_,
                                              CUDA_R_16BF, k, strideA, &beta, c_, CUDA_R_16BF, n, strideC, count,
                                              CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    } else {
      CCLAB_CUBLAS(cublasSgemmStridedBatched(cublas_, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &alpha, static_cast<const float*>(b_), n,
                                             strideB, static_cast<const float*>(a_), k, strideA, &beta, static_cast<float*>(c_),
                                             n, strideC, count));
    }
  }
  void messageToHost(std::size_t bytes) override {
    compute().copy(hostMessage_.data(), message_, std::min(bytes, hostMessage_.size()));
    compute().synchronize();
  }
  void messageFromHost(std::size_t bytes) override {
    compute().copy(message_, hostMessage_.data(), std::min(bytes, hostMessage_.size()));
    compute().synchronize();
  }

  // What the GPU has in use once the steps have run (cudaMemGetInfo: every process's memory on
  // the GPU, NCCL's and cuBLAS's buffers included; buffers are allocated before the first step).
  double peakMemoryBytes() const override {
    std::size_t free = 0, total = 0;
    CCLAB_CUDA(cudaSetDevice(gpu_));
    CCLAB_CUDA(cudaMemGetInfo(&free, &total));
    return static_cast<double>(total - free);
  }
  std::string memoryKind() const override { return "device memory in use"; }

 private:
  CudaDevice& compute() { return *devices_[0]; }
  CudaDevice& deviceOf(sim::StreamKind stream) {
    switch (stream) {
      case sim::StreamKind::Gather: return *devices_[1];
      case sim::StreamKind::Reduce: return *devices_[2];
      default: return *devices_[0];
    }
  }
  void* zeroed(std::size_t bytes) {
    void* p = compute().allocate(std::max<std::size_t>(1, bytes));
    CCLAB_CUDA(cudaMemsetAsync(p, 0, std::max<std::size_t>(1, bytes), compute().stream()));
    owned_.push_back(p);
    return p;
  }
  // Copies `bytes` from the first half of `buffer` (two halves of `half` bytes) to the second,
  // in pieces of at most `half`.
  void copyThrough(void* buffer, std::size_t half, double bytes) {
    char* base = static_cast<char*>(buffer);
    for (double left = bytes; left >= 1 && half > 0;) {
      const std::size_t n = std::min(half, static_cast<std::size_t>(left));
      compute().copy(base + half, base, n);
      left -= static_cast<double>(n);
    }
  }

  const TrainOptions& options_;
  DataType dtype_;
  int gpu_;
  std::array<std::unique_ptr<CudaDevice>, 3> devices_;  // compute, gather, reduce streams
  cublasHandle_t cublas_ = nullptr;
#ifdef CCLAB_HAVE_NCCL
  std::unique_ptr<NcclCommunicator> world_;
#endif
  std::vector<void*> owned_;
  std::size_t aElements_ = 1, bElements_ = 1, cElements_ = 1;
  void *a_ = nullptr, *b_ = nullptr, *c_ = nullptr, *stream_ = nullptr, *optimizer_ = nullptr, *message_ = nullptr;
  std::size_t streamBytes_ = 0, optimizerBytes_ = 0;
  std::vector<char> hostMessage_;
};

}  // namespace

std::unique_ptr<StepPlatform> makeGpuPlatform(const TrainOptions& options, DataType dtype) {
  const int available = gpusOrThrow();
  const HostPosition where = hostPosition();
  if (options.backend == "nccl") {
    // NCCL needs a GPU per rank.
    agreeOrThrow(where.processes <= available ? ""
                                              : fmt::format("--backend nccl: {} ranks on this host need {} GPUs, but it has {} (NCCL needs one GPU per rank)",
                                                            where.processes, where.processes, available),
                 "another host has fewer GPUs than ranks (NCCL needs one GPU per rank)");
  } else {
    int world = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &world);
    agreeOrThrow(where.processes == world ? "" : fmt::format("--device cuda --backend cclab: all {} ranks must run on one host (CUDA IPC does not cross hosts); this host has {}", world, where.processes),
                 "--device cuda --backend cclab: all ranks must run on one host (CUDA IPC does not cross hosts)");
  }
  // The host's processes take its GPUs in turn (several share one where there are fewer GPUs).
  const int gpu = where.index % available;
  if (options.backend == "cclab") requirePeerAccess(gpu);  // CUDA IPC maps the peers' buffers
  return std::make_unique<GpuPlatform>(options, dtype, gpu);
}

}  // namespace cclab::bench
