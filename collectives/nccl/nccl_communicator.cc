#include "collectives/nccl/nccl_communicator.h"

#include <exception>

#include <fmt/format.h>

#include "collectives/cuda/cuda_error.h"

// ncclAlltoAll, ncclGather and ncclScatter (NCCL 2.28) are weak references: a binary built with
// 2.28's nccl.h still loads an older libnccl, and features_ keeps them uncalled there.
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 28, 0)
#pragma weak ncclAlltoAll
#pragma weak ncclGather
#pragma weak ncclScatter
#endif

namespace cclab {
namespace {

void ncclCheck(ncclResult_t status, const char* call) {
  if (status != ncclSuccess && status != ncclInProgress) {
    throw NcclError(fmt::format("{}: {} ({})", call, ncclGetErrorString(status), ncclGetLastError(nullptr)));
  }
}
#define CCLAB_NCCL(call) ncclCheck((call), #call)

ncclDataType_t ncclType(DataType t) {
  switch (t) {
    case DataType::Int8: return ncclInt8;
    case DataType::Uint8: return ncclUint8;
    case DataType::Int32: return ncclInt32;
    case DataType::Uint32: return ncclUint32;
    case DataType::Int64: return ncclInt64;
    case DataType::Uint64: return ncclUint64;
    case DataType::Half: return ncclFloat16;
    case DataType::BFloat16: return ncclBfloat16;
    case DataType::Float: return ncclFloat32;
    case DataType::Double: return ncclFloat64;
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 24, 0)
    case DataType::Float8E4M3: return ncclFloat8e4m3;
    case DataType::Float8E5M2: return ncclFloat8e5m2;
#else
    case DataType::Float8E4M3:
    case DataType::Float8E5M2: throw NcclError("fp8 needs NCCL 2.24 or later");
#endif
  }
  return ncclFloat32;
}

ncclRedOp_t ncclOp(ReduceOp op) {
  switch (op) {
    case ReduceOp::Sum: return ncclSum;
    case ReduceOp::Prod: return ncclProd;
    case ReduceOp::Min: return ncclMin;
    case ReduceOp::Max: return ncclMax;
    case ReduceOp::Avg: return ncclAvg;
  }
  return ncclSum;
}

}  // namespace

NcclCommunicator::NcclCommunicator(MPI_Comm mpiComm, std::span<CudaDevice* const> devices)
    : devices_(devices.begin(), devices.end()), comms_(devices.size(), nullptr), features_(features()) {
  int procRank = 0, procs = 1;
  MPI_Comm_rank(mpiComm, &procRank);
  MPI_Comm_size(mpiComm, &procs);
  const int local = static_cast<int>(devices_.size());
  firstRank_ = procRank * local;
  size_ = procs * local;
  ncclUniqueId id;
  if (procRank == 0) CCLAB_NCCL(ncclGetUniqueId(&id));
  MPI_Bcast(&id, sizeof(id), MPI_BYTE, 0, mpiComm);
  // As nccl-tests 2.19.6 creates them: ncclCommInitRankConfig, with nvlinkCentricSched on NCCL
  // 2.28 (here only where the loaded library has it too). Several GPUs in one process must join
  // in one group, or the first would wait for the others.
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 28, 0)
  if (features_.nvlinkCentricSched) config.nvlinkCentricSched = 1;
#endif
  CCLAB_NCCL(ncclGroupStart());
  for (int i = 0; i < local; ++i) {
    CCLAB_CUDA(cudaSetDevice(devices_[static_cast<std::size_t>(i)]->gpu()));
    CCLAB_NCCL(ncclCommInitRankConfig(&comms_[static_cast<std::size_t>(i)], size_, id, firstRank_ + i, &config));
  }
  CCLAB_NCCL(ncclGroupEnd());
}

NcclCommunicator::NcclCommunicator(ncclComm_t comm, CudaDevice& device) : devices_{&device}, comms_{comm}, features_(features()) {
  CCLAB_NCCL(ncclCommUserRank(comm, &firstRank_));
  CCLAB_NCCL(ncclCommCount(comm, &size_));
}

std::unique_ptr<NcclCommunicator> NcclCommunicator::split(int color, int key, CudaDevice& device) {
  if (comms_.size() != 1) throw std::logic_error("NcclCommunicator::split: needs one GPU per process");
  if (!features_.commSplit) throw NcclError("ncclCommSplit needs NCCL 2.18 or later (header and library)");
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 18, 0)
  CCLAB_CUDA(cudaSetDevice(device.gpu()));
  ncclComm_t child = nullptr;
  CCLAB_NCCL(ncclCommSplit(comms_.front(), color, key, &child, nullptr));
  return std::unique_ptr<NcclCommunicator>(new NcclCommunicator(child, device));
#else
  (void)color, (void)key, (void)device;
  throw NcclError("ncclCommSplit needs NCCL 2.18 or later");
#endif
}

NcclCommunicator::~NcclCommunicator() {
  if (aborted_) return;  // ncclCommAbort freed them
  // ncclCommDestroy waits for the peers; while an error unwinds they may never come.
  const bool unwinding = std::uncaught_exceptions() > 0;
  for (ncclComm_t comm : comms_) {
    if (comm == nullptr) continue;
    if (unwinding) ncclCommAbort(comm);
    else ncclCommDestroy(comm);
  }
}

void NcclCommunicator::groupStart() { CCLAB_NCCL(ncclGroupStart()); }
void NcclCommunicator::groupEnd() { CCLAB_NCCL(ncclGroupEnd()); }

void NcclCommunicator::run(Collective collective, const CollectiveArgs& args) {
  runLocal(collective, std::span<const CollectiveArgs>(&args, 1));
}

void NcclCommunicator::runLocal(Collective collective, std::span<const CollectiveArgs> args) {
  if (args.size() != comms_.size()) {
    throw std::logic_error(fmt::format("NcclCommunicator: {} argument sets for {} local GPUs", args.size(), comms_.size()));
  }
  const bool group = comms_.size() > 1;
  if (group) CCLAB_NCCL(ncclGroupStart());
  for (std::size_t i = 0; i < comms_.size(); ++i) enqueue(collective, args[i], static_cast<int>(i));
  if (group) CCLAB_NCCL(ncclGroupEnd());
}

void NcclCommunicator::enqueue(Collective collective, const CollectiveArgs& a, int local) {
  ncclComm_t comm = comms_[static_cast<std::size_t>(local)];
  cudaStream_t stream = devices_[static_cast<std::size_t>(local)]->stream();
  const ncclDataType_t type = ncclType(a.dtype);
  const int rank = firstRank_ + local;
  const std::size_t block = a.count * sizeOf(a.dtype);
  switch (collective) {
    case Collective::AllReduce:
      CCLAB_NCCL(ncclAllReduce(a.send, a.recv, a.count, type, ncclOp(a.op), comm, stream));
      return;
    case Collective::AllGather:
      CCLAB_NCCL(ncclAllGather(a.send, a.recv, a.count, type, comm, stream));
      return;
    case Collective::ReduceScatter:
      CCLAB_NCCL(ncclReduceScatter(a.send, a.recv, a.count, type, ncclOp(a.op), comm, stream));
      return;
    case Collective::Broadcast:
      CCLAB_NCCL(ncclBroadcast(a.send, a.recv, a.count, type, a.root, comm, stream));
      return;
    case Collective::Reduce:
      CCLAB_NCCL(ncclReduce(a.send, a.recv, a.count, type, ncclOp(a.op), a.root, comm, stream));
      return;
    case Collective::AllToAll:
    case Collective::Gather:
    case Collective::Scatter:
      if (features_.alltoall) {
        enqueueNative(collective, a, comm, stream);
        return;
      }
      break;
    case Collective::SendRecv:
      CCLAB_NCCL(ncclGroupStart());
      CCLAB_NCCL(ncclSend(a.send, a.count, type, (rank + 1) % size_, comm, stream));
      CCLAB_NCCL(ncclRecv(a.recv, a.count, type, (rank + size_ - 1) % size_, comm, stream));
      CCLAB_NCCL(ncclGroupEnd());
      return;
  }
  // Older libraries: the same collectives as point-to-point groups, as nccl-tests builds them.
  switch (collective) {
    case Collective::AllToAll:
      CCLAB_NCCL(ncclGroupStart());
      for (int peer = 0; peer < size_; ++peer) {
        CCLAB_NCCL(ncclSend(static_cast<const char*>(a.send) + peer * block, a.count, type, peer, comm, stream));
        CCLAB_NCCL(ncclRecv(static_cast<char*>(a.recv) + peer * block, a.count, type, peer, comm, stream));
      }
      CCLAB_NCCL(ncclGroupEnd());
      return;
    case Collective::Gather:
      CCLAB_NCCL(ncclGroupStart());
      CCLAB_NCCL(ncclSend(a.send, a.count, type, a.root, comm, stream));
      if (rank == a.root) {
        for (int peer = 0; peer < size_; ++peer) {
          CCLAB_NCCL(ncclRecv(static_cast<char*>(a.recv) + peer * block, a.count, type, peer, comm, stream));
        }
      }
      CCLAB_NCCL(ncclGroupEnd());
      return;
    case Collective::Scatter:
      CCLAB_NCCL(ncclGroupStart());
      if (rank == a.root) {
        for (int peer = 0; peer < size_; ++peer) {
          CCLAB_NCCL(ncclSend(static_cast<const char*>(a.send) + peer * block, a.count, type, peer, comm, stream));
        }
      }
      CCLAB_NCCL(ncclRecv(a.recv, a.count, type, a.root, comm, stream));
      CCLAB_NCCL(ncclGroupEnd());
      return;
    default:
      return;
  }
}

void NcclCommunicator::enqueueNative(Collective collective, const CollectiveArgs& a, ncclComm_t comm, cudaStream_t stream) {
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 28, 0)
  const ncclDataType_t type = ncclType(a.dtype);
  switch (collective) {
    case Collective::AllToAll: CCLAB_NCCL(ncclAlltoAll(a.send, a.recv, a.count, type, comm, stream)); return;
    case Collective::Gather: CCLAB_NCCL(ncclGather(a.send, a.recv, a.count, type, a.root, comm, stream)); return;
    case Collective::Scatter: CCLAB_NCCL(ncclScatter(a.send, a.recv, a.count, type, a.root, comm, stream)); return;
    default: break;
  }
#endif
  (void)collective, (void)a, (void)comm, (void)stream;
  throw std::logic_error("NcclCommunicator: no native call for this collective in this NCCL");
}

bool NcclCommunicator::streamsIdle() {
  if (abortRequested_.load()) {
    abort();
    std::function<void()> aborted;
    {
      std::lock_guard lock(abortMutex_);
      aborted = onAborted_;
    }
    if (aborted) aborted();
    throw NcclError("the communicators were aborted (-T timeout)");
  }
  bool idle = true;
  for (std::size_t i = 0; i < comms_.size(); ++i) {
    const cudaError_t status = cudaStreamQuery(devices_[i]->stream());
    if (status == cudaErrorNotReady) {
      idle = false;
      ncclResult_t asyncError = ncclSuccess;
      CCLAB_NCCL(ncclCommGetAsyncError(comms_[i], &asyncError));
      if (asyncError != ncclSuccess && asyncError != ncclInProgress) {
        abort();
        ncclCheck(asyncError, "NCCL asynchronous error");
      }
    } else {
      cudaCheck(status, "cudaStreamQuery");
    }
  }
  return idle;
}

void NcclCommunicator::requestAbort(std::function<void()> aborted) {
  {
    std::lock_guard lock(abortMutex_);
    onAborted_ = std::move(aborted);
  }
  abortRequested_.store(true);
}

// On the thread that uses the communicators, once.
void NcclCommunicator::abort() {
  if (aborted_) return;
  aborted_ = true;
  for (ncclComm_t comm : comms_) {
    if (comm != nullptr) ncclCommAbort(comm);
  }
}

NcclFeatures NcclCommunicator::features() { return ncclFeatures(NCCL_VERSION_CODE, libraryVersionCode()); }

int NcclCommunicator::libraryVersionCode() {
  int code = 0;
  return ncclGetVersion(&code) == ncclSuccess ? code : 0;
}

std::string NcclCommunicator::libraryVersion() {
  const int code = libraryVersionCode();
  if (code == 0) return "";
  // Since 2.9: major*10000 + minor*100 + patch.
  return fmt::format("{}.{}.{}", code / 10000, code / 100 % 100, code % 100);
}

}  // namespace cclab
