#pragma once

// Whether the GPUs a run's processes use can read each other's memory: cclab's CUDA IPC
// transport maps a peer's buffer into its own device (cudaIpcOpenMemHandle with
// cudaIpcMemLazyEnablePeerAccess), which fails between GPUs without peer access (PCIe across
// sockets, many cloud VMs). The rule is plain logic, tested on the CPU; gpu_info.cc asks CUDA.

#include <functional>
#include <span>
#include <string>

namespace cclab::bench {

// The first pair of distinct GPUs in `gpus` (one per process, in rank order) where
// `canAccessPeer(a, b)` is false, as one line naming the ranks and GPUs; "" when every pair can.
// Processes sharing a GPU need no peer access.
std::string peerAccessProblem(std::span<const int> gpus, const std::function<bool(int, int)>& canAccessPeer);

}  // namespace cclab::bench
