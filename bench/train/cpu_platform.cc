// --device cpu: the step's compute with Eigen on the rank's thread, its collectives by the MPI
// library or by cclab's algorithms over MPI point-to-point.

#include <sys/resource.h>

#include <algorithm>
#include <cmath>

#include <Eigen/Core>

#include "bench/train/cpu_kernels.h"
#include "bench/train/step_platform.h"
#include "collectives/mpi/mpi_communicator.h"
#include "collectives/mpi/mpi_transport.h"

namespace cclab::bench {
namespace {

std::size_t whole(double x) { return static_cast<std::size_t>(std::max(1.0, std::round(x))); }

class MpiLink final : public StepLink {
 public:
  explicit MpiLink(MPI_Comm comm) : communicator_(comm) {}
  Communicator& communicator() override { return communicator_; }

 private:
  MpiCommunicator communicator_;
};

class AlgorithmLink final : public StepLink {
 public:
  AlgorithmLink(MPI_Comm comm, Device& device, const std::string& algo) : transport_(comm), communicator_(transport_, device, algo) {}
  Communicator& communicator() override { return communicator_; }

 private:
  MpiTransport transport_;  // before the communicator that uses it
  AlgorithmCommunicator communicator_;
};

class CpuPlatform final : public StepPlatform {
 public:
  CpuPlatform(const TrainOptions& options) : options_(options) {}

  std::string describe() const override { return "cpu"; }
  Device& device(sim::StreamKind) override { return host_; }
  std::unique_ptr<StepLink> link(MPI_Comm comm, sim::StreamKind) override {
    if (options_.backend == "cclab") return std::make_unique<AlgorithmLink>(comm, host_, options_.algo);
    return std::make_unique<MpiLink>(comm);
  }

  void reserve(const ComputeSizes& sizes) override {
    // std::vector zero-fills: every page is touched now.
    a_.assign(sizes.a, 1.0f / 64);
    b_.assign(sizes.b, 1.0f / 64);
    c_.assign(sizes.c, 0.0f);
    stream_.assign(sizes.stream, 1.0f);
    for (auto* v : {&parameters_, &gradients_, &momentum_, &variance_}) v->assign(sizes.parameters, 0.001f);
    message_.assign(sizes.message, 0);
  }

  void compute(const sim::Task& task, std::span<const sim::Gemm> gemms) override {
    for (const sim::Gemm& g : gemms) {
      const auto m = static_cast<Eigen::Index>(whole(g.m)), k = static_cast<Eigen::Index>(whole(g.k)), n = static_cast<Eigen::Index>(whole(g.n));
      for (std::size_t r = whole(g.count); r > 0; --r) cpuGemm(a_.data(), b_.data(), c_.data(), m, k, n);
    }
    // Element-wise kernels: read and write `memoryBytes` in all, through the stream buffer.
    for (double left = task.memoryBytes / 8; left >= 1;) {
      const std::size_t n = std::min(stream_.size(), static_cast<std::size_t>(left));
      elementwisePass(stream_.data(), n);
      left -= static_cast<double>(n);
    }
    if (task.parameters > 0) {
      // Fused Adam over the shard: reads parameters, gradients and both moments, writes three.
      const auto n = std::min(parameters_.size(), static_cast<std::size_t>(task.parameters));
      adamStep(parameters_.data(), gradients_.data(), momentum_.data(), variance_.data(), n);
    }
  }

  char* messageBuffer() override { return message_.data(); }

  double peakMemoryBytes() const override {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return static_cast<double>(usage.ru_maxrss) * 1024;  // Linux: KiB
  }
  std::string memoryKind() const override { return "RSS"; }

 private:
  const TrainOptions& options_;
  HostDevice host_;
  std::vector<float> a_, b_, c_, stream_;
  std::vector<float> parameters_, gradients_, momentum_, variance_;
  std::vector<char> message_;
};

}  // namespace

std::unique_ptr<StepPlatform> makeCpuPlatform(const TrainOptions& options, DataType) { return std::make_unique<CpuPlatform>(options); }

}  // namespace cclab::bench
