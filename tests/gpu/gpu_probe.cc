// Exits 0 when this machine has a usable GPU and 77 (CTest's "skipped") when it has none, so the
// GPU tests report themselves skipped, not passed, on machines without one.

#include <cstdio>

#include "collectives/cuda/cuda_error.h"

int main() {
  const int gpus = cclab::cudaDeviceCountOrZero();
  if (gpus == 0) {
    std::puts("no GPU: skipped");
    return 77;
  }
  std::printf("%d\n", gpus);
  return 0;
}
