// A build without CUDA has no GPU backends; ccbench's options refuse them before this is reached.

#include "bench/backend.h"
#include "bench/train/step_platform.h"
#include "collectives/errors.h"

namespace cclab::bench {

std::unique_ptr<Backend> makeNcclBackend(const Options&) {
  throw InputError("--backend nccl: this ccbench was built without NCCL");
}

std::unique_ptr<Backend> makeCudaAlgorithmBackend(const Options&) {
  throw InputError("--device cuda: this ccbench was built without CUDA");
}

std::unique_ptr<StepPlatform> makeGpuPlatform(const TrainOptions&, DataType) {
  throw InputError("--device cuda: this ccbench was built without CUDA");
}

}  // namespace cclab::bench
