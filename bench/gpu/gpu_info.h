#pragma once

// What the header lines and the results file say about GPUs: each rank's GPU (index, PCI bus id,
// model), the driver, CUDA and the links between the node's GPUs.

#include <string>
#include <vector>

#include "results/results.h"

namespace cclab::bench {

// nccl-tests's "[0000:00:06]": PCI domain, bus and device of a GPU.
std::string pciBusId(int gpu);
std::string gpuName(int gpu);

// The node's GPUs as the results file records them (run.config["gpu_system"]): driver and CUDA
// versions, each GPU's model, bus id and active NVLinks (from NVML when the driver has it), and
// for each pair whether they reach each other by NVLink, PCIe peer access, or only through host.
results::Json describeGpuSystem();

// The number of GPUs this process sees; InputError on every rank when any rank sees none.
// Collective over MPI_COMM_WORLD.
int gpusOrThrow();

// Collective over MPI_COMM_WORLD: InputError on every rank, naming the pair, when two processes'
// GPUs (`gpu` is this process's) lack peer access (cudaDeviceCanAccessPeer), which CUDA IPC needs.
void requirePeerAccess(int gpu);

}  // namespace cclab::bench
