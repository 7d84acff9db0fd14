#pragma once

// What cclab may call in NCCL, from two versions: the nccl.h it was compiled with (what exists to
// call) and the libnccl loaded at run time (what answers; ncclGetVersion needs no GPU). An older
// library than the header would die with an undefined symbol on ncclAlltoAll, or refuse fp8 with
// ncclInvalidArgument, so each feature needs both, as nccl-tests checks them. No NCCL here: the
// rules are tested on the CPU anywhere.

#include <optional>
#include <string>

#include "collectives/vocabulary.h"

namespace cclab {

// NCCL's version code: major * 10000 + minor * 100 + patch since 2.9 (2.8.4 was 2804).
constexpr int ncclVersionCode(int major, int minor, int patch) {
  return (major <= 2 && minor <= 8) ? major * 1000 + minor * 100 + patch : major * 10000 + minor * 100 + patch;
}

struct NcclFeatures {
  bool alltoall = false;  // ncclAlltoAll, ncclGather, ncclScatter (2.28); else grouped ncclSend/ncclRecv
  bool fp8 = false;       // ncclFloat8e4m3 / e5m2 (2.24; the GPUs must also be compute capability 9.0)
  bool commSplit = false;            // ncclCommSplit (2.18)
  bool memAlloc = false;             // ncclMemAlloc / ncclMemFree (2.19), as nccl-tests allocates
  bool nvlinkCentricSched = false;   // ncclConfig_t::nvlinkCentricSched (2.28), as nccl-tests sets it
  // The library's own fixes, by the loaded version alone.
  bool oneRankAvgWritesAll = false;  // 2.29.7: NVIDIA/nccl#1950 (see ncclKnownIssue)
};

NcclFeatures ncclFeatures(int headerCode, int libraryCode);

// A defect of the loaded NCCL that makes this call's output wrong, named with its upstream issue,
// or "" when none is known. ccbench still counts the wrong elements (the results are wrong); this
// says why. Known: with one rank, avg on a floating type out of place runs a kernel that splits
// the elements between blocks with a rounded-down quotient, so the last n - blocks x
// alignUp(n / blocks, 16 B) elements are never written (src/device/onerank.cu before 2.29.7; seen
// on an H200 with 2.28.9: results/measured/gpu-1x-nvidia-h200/logs/nccl_one_rank_avg_*.txt).
std::string ncclKnownIssue(const NcclFeatures& features, Collective collective, DataType dtype, std::optional<ReduceOp> op,
                           bool inPlace, int nranks);

}  // namespace cclab
