#include "collectives/vocabulary.h"

#include <algorithm>
#include <array>

#include <fmt/format.h>

#include "collectives/errors.h"
#include "collectives/names.h"

namespace cclab {
namespace {

// One row per collective: its name, its shape and its bus-bandwidth factor.
// nccl-tests's bus-bandwidth factors (its PERFORMANCE.md): what each rank's link must carry
// relative to the buffer for the time to match the hardware's bandwidth.
enum class BusFactor {
  TwiceShare,  // 2(n-1)/n: all_reduce
  Share,       // (n-1)/n: the blocked collectives
  One,         // 1: broadcast, reduce, sendrecv
};

struct CollectiveRow {
  Collective value;
  std::string_view name;
  bool reduces;
  bool rooted;
  bool sendIsBlocked;  // the send buffer holds one block per rank (count * n elements)
  bool recvIsBlocked;  // the receive buffer holds one block per rank
  BusFactor busFactor;
};

constexpr std::array kCollectives = {
    CollectiveRow{Collective::AllReduce, "all_reduce", true, false, false, false, BusFactor::TwiceShare},
    CollectiveRow{Collective::AllGather, "all_gather", false, false, false, true, BusFactor::Share},
    CollectiveRow{Collective::ReduceScatter, "reduce_scatter", true, false, true, false, BusFactor::Share},
    CollectiveRow{Collective::Broadcast, "broadcast", false, true, false, false, BusFactor::One},
    CollectiveRow{Collective::Reduce, "reduce", true, true, false, false, BusFactor::One},
    CollectiveRow{Collective::AllToAll, "alltoall", false, false, true, true, BusFactor::Share},
    CollectiveRow{Collective::Gather, "gather", false, true, false, true, BusFactor::Share},
    CollectiveRow{Collective::Scatter, "scatter", false, true, true, false, BusFactor::Share},
    CollectiveRow{Collective::SendRecv, "sendrecv", false, false, false, false, BusFactor::One},
};

struct DataTypeRow {
  DataType value;
  std::string_view name;
  std::size_t size;
  bool floating;
};

constexpr std::array kDataTypes = {
    DataTypeRow{DataType::Int8, "int8", 1, false},       DataTypeRow{DataType::Uint8, "uint8", 1, false},
    DataTypeRow{DataType::Int32, "int32", 4, false},     DataTypeRow{DataType::Uint32, "uint32", 4, false},
    DataTypeRow{DataType::Int64, "int64", 8, false},     DataTypeRow{DataType::Uint64, "uint64", 8, false},
    DataTypeRow{DataType::Half, "half", 2, true},        DataTypeRow{DataType::BFloat16, "bfloat16", 2, true},
    DataTypeRow{DataType::Float, "float", 4, true},      DataTypeRow{DataType::Double, "double", 8, true},
    DataTypeRow{DataType::Float8E4M3, "f8e4m3", 1, true}, DataTypeRow{DataType::Float8E5M2, "f8e5m2", 1, true},
};

constexpr std::array kReduceOps = {
    Named<ReduceOp>{"sum", ReduceOp::Sum}, Named<ReduceOp>{"prod", ReduceOp::Prod}, Named<ReduceOp>{"min", ReduceOp::Min},
    Named<ReduceOp>{"max", ReduceOp::Max}, Named<ReduceOp>{"avg", ReduceOp::Avg},
};

// Each table lists its enum's values in order, so a value's row is at its index: sizeOf and the
// others run on every call of a collective and must not search.
template <typename Rows>
constexpr bool inEnumOrder(const Rows& rows) {
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (static_cast<std::size_t>(rows[i].value) != i) return false;
  }
  return true;
}
static_assert(inEnumOrder(kCollectives) && inEnumOrder(kDataTypes), "a row out of its enum's order");

template <typename Rows>
const auto& rowOf(const Rows& rows, decltype(rows[0].value) value) {
  return rows[static_cast<std::size_t>(value)];
}

template <typename Rows, std::size_t N>
constexpr auto kindsOf(const Rows& rows) {
  std::array<decltype(rows[0].value), N> kinds{};
  for (std::size_t i = 0; i < N; ++i) kinds[i] = rows[i].value;
  return kinds;
}

constexpr auto kCollectiveKinds = kindsOf<decltype(kCollectives), kCollectives.size()>(kCollectives);
constexpr auto kDataTypeKinds = kindsOf<decltype(kDataTypes), kDataTypes.size()>(kDataTypes);
constexpr auto kReduceOpKinds = kindsOf<decltype(kReduceOps), kReduceOps.size()>(kReduceOps);

}  // namespace

std::span<const Collective> allCollectives() { return kCollectiveKinds; }
std::span<const DataType> allDataTypes() { return kDataTypeKinds; }
std::span<const ReduceOp> allReduceOps() { return kReduceOpKinds; }

std::string_view name(Collective c) { return nameIn(kCollectives, c); }
std::string_view name(DataType t) { return nameIn(kDataTypes, t); }
std::string_view name(ReduceOp op) { return nameIn(kReduceOps, op); }

Collective parseCollective(std::string_view text) {
  constexpr std::string_view kPerfSuffix = "_perf";  // nccl-tests binaries: all_reduce_perf
  if (text.ends_with(kPerfSuffix)) text.remove_suffix(kPerfSuffix.size());
  return parseIn(kCollectives, text, "collective");
}
DataType parseDataType(std::string_view text) { return parseIn(kDataTypes, text, "datatype"); }
ReduceOp parseReduceOp(std::string_view text) { return parseIn(kReduceOps, text, "reduction op"); }

std::size_t sizeOf(DataType t) { return rowOf(kDataTypes, t).size; }
bool isFloatingPoint(DataType t) { return rowOf(kDataTypes, t).floating; }
bool reduces(Collective c) { return rowOf(kCollectives, c).reduces; }
bool hasRoot(Collective c) { return rowOf(kCollectives, c).rooted; }

double busBandwidthFactor(Collective c, int nranks) {
  const double n = nranks;
  switch (rowOf(kCollectives, c).busFactor) {
    case BusFactor::TwiceShare: return 2.0 * (n - 1) / n;
    case BusFactor::Share: return (n - 1) / n;
    case BusFactor::One: return 1.0;
  }
  return 1.0;
}

BufferLayout bufferLayout(Collective c, std::size_t count, int nranks, int rank) {
  const auto& row = rowOf(kCollectives, c);
  const std::size_t n = static_cast<std::size_t>(nranks);
  const std::size_t r = static_cast<std::size_t>(rank);
  BufferLayout layout{};
  layout.sendCount = row.sendIsBlocked ? count * n : count;
  layout.recvCount = row.recvIsBlocked ? count * n : count;
  // In place, a rank's own block sits at its rank's offset inside the bigger buffer.
  if (!row.sendIsBlocked && row.recvIsBlocked) layout.inPlaceSendOffset = r * count;  // all_gather, gather
  if (row.sendIsBlocked && !row.recvIsBlocked) layout.inPlaceRecvOffset = r * count;  // reduce_scatter, scatter
  return layout;
}

std::size_t countForBytes(Collective c, std::size_t bytes, DataType t, int nranks) {
  const auto& row = rowOf(kCollectives, c);
  std::size_t elements = bytes / sizeOf(t);
  return (row.sendIsBlocked || row.recvIsBlocked) ? elements / static_cast<std::size_t>(nranks) : elements;
}

std::size_t bytesForCount(Collective c, std::size_t count, DataType t, int nranks) {
  BufferLayout layout = bufferLayout(c, count, nranks, 0);
  return layout.inPlaceCount() * sizeOf(t);
}

}  // namespace cclab
