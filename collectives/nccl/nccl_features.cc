#include "collectives/nccl/nccl_features.h"

namespace cclab {

NcclFeatures ncclFeatures(int headerCode, int libraryCode) {
  auto both = [&](int major, int minor) {
    const int since = ncclVersionCode(major, minor, 0);
    return headerCode >= since && libraryCode >= since;
  };
  NcclFeatures f;
  f.alltoall = both(2, 28);
  f.fp8 = both(2, 24);
  f.commSplit = both(2, 18);
  f.memAlloc = both(2, 19);
  f.nvlinkCentricSched = both(2, 28);
  return f;
}

}  // namespace cclab
