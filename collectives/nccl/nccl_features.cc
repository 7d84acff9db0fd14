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
  f.oneRankAvgWritesAll = libraryCode >= ncclVersionCode(2, 29, 7);
  return f;
}

std::string ncclKnownIssue(const NcclFeatures& features, Collective collective, DataType dtype, std::optional<ReduceOp> op,
                           bool inPlace, int nranks) {
  const bool reduces = collective == Collective::AllReduce || collective == Collective::Reduce ||
                       collective == Collective::ReduceScatter;
  if (!features.oneRankAvgWritesAll && nranks == 1 && reduces && op == ReduceOp::Avg && isFloatingPoint(dtype) && !inPlace) {
    return "NCCL before 2.29.7 leaves the last elements of a one-rank avg out of place unwritten (NVIDIA/nccl#1950)";
  }
  return "";
}

}  // namespace cclab
