#pragma once

// CUDA runtime errors as exceptions: every call is checked, and a failure names the call.

#include <cuda_runtime.h>

#include <filesystem>
#include <stdexcept>
#include <string>

namespace cclab {

class CudaError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

inline void cudaCheck(cudaError_t status, const char* call) {
  if (status != cudaSuccess) {
    throw CudaError(std::string(call) + ": " + cudaGetErrorName(status) + " (" + cudaGetErrorString(status) + ")");
  }
}

// The number of GPUs this process sees: 0 without a driver or a device (never throws).
inline int cudaDeviceCountOrZero() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    (void)cudaGetLastError();  // clear the sticky "no device" error
    return 0;
  }
  return n;
}

// Whether an NVIDIA kernel driver is loaded: a machine that has one but finds no usable GPU is
// broken (a driver older than the toolkit, say), not a machine without a GPU.
inline bool nvidiaDriverLoaded() { return std::filesystem::exists("/proc/driver/nvidia/version"); }

}  // namespace cclab

#define CCLAB_CUDA(call) ::cclab::cudaCheck((call), #call)
