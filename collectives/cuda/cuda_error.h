#pragma once

// CUDA runtime errors as exceptions: every call is checked, and a failure names the call.

#include <cuda_runtime.h>

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

}  // namespace cclab

#define CCLAB_CUDA(call) ::cclab::cudaCheck((call), #call)
