// Exits 0 when this machine has a usable GPU (printing how many), 77 (CTest's "skipped") when it
// has none, and 1 when it has an NVIDIA driver but CUDA cannot use it (a driver older than the
// toolkit, a broken install): a GPU machine that cannot run the GPU tests fails them, it does not
// skip them.

#include <cuda_runtime.h>

#include <cstdio>

#include "collectives/cuda/cuda_error.h"

int main() {
  int gpus = 0;
  const cudaError_t status = cudaGetDeviceCount(&gpus);
  if (status == cudaSuccess && gpus > 0) {
    std::printf("%d\n", gpus);
    return 0;
  }
  if (cclab::nvidiaDriverLoaded()) {
    std::printf("an NVIDIA driver is loaded but CUDA finds no usable GPU: %s (%s)\n", cudaGetErrorName(status), cudaGetErrorString(status));
    return 1;
  }
  std::puts("no GPU: skipped");
  return 77;
}
