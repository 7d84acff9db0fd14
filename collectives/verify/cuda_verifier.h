#pragma once

// The Checker for buffers on a GPU: inputs are generated, outputs poisoned and checked by kernels
// evaluating the same formula as the CPU (collectives/verify/verify_values.h); only the count of wrong
// elements comes back to the host.

#include <cstdint>

#include "collectives/verify/verify.h"
#include "collectives/cuda/cuda_device.h"

namespace cclab::verify {

class CudaVerifier final : public Checker {
 public:
  // `counter` is 8 bytes of device memory on `device`'s GPU, reused by every check there.
  CudaVerifier(const CheckSpec& spec, CudaDevice& device, unsigned long long* counter)
      : spec_(spec), device_(device), counter_(counter) {}

  void fillInput(void* send, int rep) override;
  void poison(void* buf, std::size_t count) override;
  std::int64_t countWrong(const void* recv, int rep, const std::function<void()>& progress = {}) override;

 private:
  void showWrong(const void* recv, std::size_t n, int rep, bool approximate);

  CheckSpec spec_;
  CudaDevice& device_;
  unsigned long long* counter_;
};

}  // namespace cclab::verify
