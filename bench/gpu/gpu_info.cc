#include "bench/gpu/gpu_info.h"

#include <dlfcn.h>
#include <mpi.h>

#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "bench/gpu_peers.h"
#include "bench/system_info.h"
#include "collectives/cuda/cuda_error.h"

namespace cclab::bench {
namespace {

// NVML, opened at run time: the driver ships it, the toolkit does not, and ccbench must start on
// machines without a driver. Only these entry points are used (their C signatures are stable).
class Nvml {
 public:
  Nvml() {
    lib_ = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (lib_ == nullptr) return;
    init_ = reinterpret_cast<int (*)()>(dlsym(lib_, "nvmlInit_v2"));
    shutdown_ = reinterpret_cast<int (*)()>(dlsym(lib_, "nvmlShutdown"));
    driverVersion_ = reinterpret_cast<int (*)(char*, unsigned)>(dlsym(lib_, "nvmlSystemGetDriverVersion"));
    byBusId_ = reinterpret_cast<int (*)(const char*, void**)>(dlsym(lib_, "nvmlDeviceGetHandleByPciBusId_v2"));
    linkState_ = reinterpret_cast<int (*)(void*, unsigned, int*)>(dlsym(lib_, "nvmlDeviceGetNvLinkState"));
    p2pStatus_ = reinterpret_cast<int (*)(void*, void*, int, int*)>(dlsym(lib_, "nvmlDeviceGetP2PStatus"));
    ready_ = init_ && shutdown_ && driverVersion_ && byBusId_ && linkState_ && init_() == 0;
  }
  ~Nvml() {
    if (ready_) shutdown_();
    if (lib_ != nullptr) dlclose(lib_);
  }
  bool ready() const { return ready_; }
  std::string driverVersion() const {
    char text[96] = {};
    return ready_ && driverVersion_(text, sizeof(text)) == 0 ? std::string(text) : std::string();
  }
  // Active NVLinks of the GPU at `busId` (cudaDeviceGetPCIBusId's form); -1 when unknown.
  int activeNvLinks(const std::string& busId) const {
    void* device = nullptr;
    if (!ready_ || byBusId_(busId.c_str(), &device) != 0) return -1;
    constexpr unsigned kMaxLinks = 18;  // NVML_NVLINK_MAX_LINKS on Hopper
    int active = 0;
    for (unsigned link = 0; link < kMaxLinks; ++link) {
      int state = 0;
      if (linkState_(device, link, &state) == 0 && state == 1) ++active;  // NVML_FEATURE_ENABLED
    }
    return active;
  }
  // Whether the two GPUs reach each other over NVLink (a direct link or NVSwitch), as NVML says;
  // nullopt when it cannot say.
  std::optional<bool> nvlinkBetween(const std::string& busA, const std::string& busB) const {
    void *a = nullptr, *b = nullptr;
    if (!ready_ || p2pStatus_ == nullptr || byBusId_(busA.c_str(), &a) != 0 || byBusId_(busB.c_str(), &b) != 0) return std::nullopt;
    constexpr int kCapsNvlink = 2;  // NVML_P2P_CAPS_INDEX_NVLINK
    int status = -1;
    if (p2pStatus_(a, b, kCapsNvlink, &status) != 0) return std::nullopt;
    return status == 0;  // NVML_P2P_STATUS_OK
  }

 private:
  void* lib_ = nullptr;
  bool ready_ = false;
  int (*init_)() = nullptr;
  int (*shutdown_)() = nullptr;
  int (*driverVersion_)(char*, unsigned) = nullptr;
  int (*byBusId_)(const char*, void**) = nullptr;
  int (*linkState_)(void*, unsigned, int*) = nullptr;
  int (*p2pStatus_)(void*, void*, int, int*) = nullptr;  // optional
};

std::string cudaVersionText(int code) { return fmt::format("{}.{}", code / 1000, code % 1000 / 10); }

}  // namespace

std::string pciBusId(int gpu) {
  cudaDeviceProp props{};
  CCLAB_CUDA(cudaGetDeviceProperties(&props, gpu));
  return fmt::format("{:04x}:{:02x}:{:02x}", props.pciDomainID, props.pciBusID, props.pciDeviceID);
}

std::string gpuName(int gpu) {
  cudaDeviceProp props{};
  CCLAB_CUDA(cudaGetDeviceProperties(&props, gpu));
  return props.name;
}

results::Json describeGpuSystem() {
  const Nvml nvml;
  int runtime = 0, driver = 0;
  cudaRuntimeGetVersion(&runtime);
  cudaDriverGetVersion(&driver);
  results::Json system = {{"driver", nvml.driverVersion()},
                          {"cuda_runtime", cudaVersionText(runtime)},
                          {"cuda_driver_api", cudaVersionText(driver)},
                          {"gpus", results::Json::array()},
                          {"links", results::Json::array()}};
  const int n = cudaDeviceCountOrZero();
  std::vector<int> nvlinks(static_cast<std::size_t>(n), -1);
  std::vector<std::string> busIds(static_cast<std::size_t>(n));
  for (int g = 0; g < n; ++g) {
    char busId[32] = {};
    cudaDeviceGetPCIBusId(busId, sizeof(busId), g);
    busIds[static_cast<std::size_t>(g)] = busId;
    nvlinks[static_cast<std::size_t>(g)] = nvml.activeNvLinks(busId);
    system["gpus"].push_back({{"index", g}, {"name", gpuName(g)}, {"pci_bus_id", busId},
                              {"active_nvlinks", nvlinks[static_cast<std::size_t>(g)] < 0 ? results::Json() : results::Json(nvlinks[static_cast<std::size_t>(g)])}});
  }
  // A pair that can access each other's memory does so over NVLink when NVML says the pair has
  // one (a bridge joins only its two GPUs), else over PCIe; without peer access, through host
  // memory. Without NVML's answer: NVLink when both GPUs have active links (NVSwitch systems).
  for (int a = 0; a < n; ++a) {
    for (int b = a + 1; b < n; ++b) {
      int peer = 0;
      cudaDeviceCanAccessPeer(&peer, a, b);
      const bool nvlink = nvml.nvlinkBetween(busIds[static_cast<std::size_t>(a)], busIds[static_cast<std::size_t>(b)])
                              .value_or(nvlinks[static_cast<std::size_t>(a)] > 0 && nvlinks[static_cast<std::size_t>(b)] > 0);
      system["links"].push_back({{"gpus", {a, b}}, {"type", peer ? (nvlink ? "NVLink" : "PCIe") : "host"}});
    }
  }
  return system;
}

int gpusOrThrow() {
  const int n = cudaDeviceCountOrZero();
  agreeOrThrow(n == 0 ? "no GPU found (cudaGetDeviceCount found none: is the NVIDIA driver loaded?)" : "",
               "another rank found no GPU");
  return n;
}

void requirePeerAccess(int gpu) {
  int processes = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &processes);
  std::vector<int> gpus(static_cast<std::size_t>(processes));
  MPI_Allgather(&gpu, 1, MPI_INT, gpus.data(), 1, MPI_INT, MPI_COMM_WORLD);
  // Every process asks CUDA the same questions and so reaches the same verdict.
  const std::string problem = peerAccessProblem(gpus, [](int a, int b) {
    int can = 0;
    return cudaDeviceCanAccessPeer(&can, a, b) == cudaSuccess && can == 1;
  });
  agreeOrThrow(problem, problem.empty() ? "--device cuda: another rank's GPUs lack peer access" : problem);
}

}  // namespace cclab::bench
