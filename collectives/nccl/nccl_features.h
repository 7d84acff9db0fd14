#pragma once

// What cclab may call in NCCL, from two versions: the nccl.h it was compiled with (what exists to
// call) and the libnccl loaded at run time (what answers; ncclGetVersion needs no GPU). An older
// library than the header would die with an undefined symbol on ncclAlltoAll, or refuse fp8 with
// ncclInvalidArgument, so each feature needs both, as nccl-tests checks them. No NCCL here: the
// rules are tested on the CPU anywhere.

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
};

NcclFeatures ncclFeatures(int headerCode, int libraryCode);

}  // namespace cclab
