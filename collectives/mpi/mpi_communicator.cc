#include "collectives/mpi/mpi_communicator.h"

#include <climits>
#include <cstring>

#include "collectives/reduce_kernels.h"

namespace cclab {
namespace {

// MPI has no half, bfloat16 or fp8: they travel as 16- and 8-bit integers and reduce with a
// user-defined op that runs cclab's own kernel.
template <DataType T, ReduceOp Op>
void userReduce(void* in, void* inout, int* len, MPI_Datatype*) {
  reduceHost(inout, inout, in, static_cast<std::size_t>(*len), T, Op);
}

template <DataType T>
MPI_User_function* userFunction(ReduceOp op) {
  switch (op) {
    case ReduceOp::Prod: return userReduce<T, ReduceOp::Prod>;
    case ReduceOp::Min: return userReduce<T, ReduceOp::Min>;
    case ReduceOp::Max: return userReduce<T, ReduceOp::Max>;
    default: return userReduce<T, ReduceOp::Sum>;
  }
}

MPI_User_function* userFunction(DataType dtype, ReduceOp op) {
  switch (dtype) {
    case DataType::Half: return userFunction<DataType::Half>(op);
    case DataType::BFloat16: return userFunction<DataType::BFloat16>(op);
    case DataType::Float8E4M3: return userFunction<DataType::Float8E4M3>(op);
    default: return userFunction<DataType::Float8E5M2>(op);
  }
}

int mpiCount(std::size_t count) { return static_cast<int>(count); }  // bounded by maxCount()

}  // namespace

MpiCommunicator::MpiCommunicator(MPI_Comm comm) {
  MPI_Comm_dup(comm, &comm_);
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
}

MpiCommunicator::~MpiCommunicator() {
  for (auto& [key, op] : userOps_) MPI_Op_free(&op);
  MPI_Comm_free(&comm_);
}

std::size_t MpiCommunicator::maxCount() { return static_cast<std::size_t>(INT_MAX); }

MPI_Datatype MpiCommunicator::datatype(DataType dtype) const {
  switch (dtype) {
    case DataType::Int8: return MPI_INT8_T;
    case DataType::Uint8: return MPI_UINT8_T;
    case DataType::Int32: return MPI_INT32_T;
    case DataType::Uint32: return MPI_UINT32_T;
    case DataType::Int64: return MPI_INT64_T;
    case DataType::Uint64: return MPI_UINT64_T;
    case DataType::Half:
    case DataType::BFloat16: return MPI_UINT16_T;
    case DataType::Float8E4M3:
    case DataType::Float8E5M2: return MPI_UINT8_T;
    case DataType::Float: return MPI_FLOAT;
    case DataType::Double: return MPI_DOUBLE;
  }
  return MPI_BYTE;
}

MPI_Op MpiCommunicator::reduceOp(DataType dtype, ReduceOp op) {
  if (isFloatingPoint(dtype) && sizeOf(dtype) < 4) {
    const ReduceOp kernel = (op == ReduceOp::Avg) ? ReduceOp::Sum : op;
    auto [it, inserted] = userOps_.try_emplace({dtype, kernel}, MPI_OP_NULL);
    if (inserted) MPI_Op_create(userFunction(dtype, kernel), /*commute=*/1, &it->second);
    return it->second;
  }
  switch (op) {
    case ReduceOp::Prod: return MPI_PROD;
    case ReduceOp::Min: return MPI_MIN;
    case ReduceOp::Max: return MPI_MAX;
    default: return MPI_SUM;  // Sum, and Avg (MPI has none: sum, then divide)
  }
}

void MpiCommunicator::run(Collective collective, const CollectiveArgs& args) {
  if (args.count == 0) return;
  const MPI_Datatype type = datatype(args.dtype);
  const int count = mpiCount(args.count);
  const bool inPlace = isInPlace(collective, args, size_, rank_);
  const std::size_t blockBytes = args.count * sizeOf(args.dtype);
  const bool isRoot = (rank_ == args.root);
  auto finishAvg = [&](void* result) {
    if (args.op == ReduceOp::Avg) divideHost(result, args.count, args.dtype, size_);
  };

  switch (collective) {
    case Collective::AllReduce:
      MPI_Allreduce(inPlace ? MPI_IN_PLACE : args.send, args.recv, count, type, reduceOp(args.dtype, args.op), comm_);
      return finishAvg(args.recv);
    case Collective::ReduceScatter:
      if (inPlace) {
        // MPI leaves an in-place result at the start of the buffer; cclab's layout (that of
        // nccl-tests) has it at this rank's block, so move it there.
        char* base = static_cast<char*>(args.recv) - static_cast<std::size_t>(rank_) * blockBytes;
        MPI_Reduce_scatter_block(MPI_IN_PLACE, base, count, type, reduceOp(args.dtype, args.op), comm_);
        std::memmove(args.recv, base, blockBytes);
      } else {
        MPI_Reduce_scatter_block(args.send, args.recv, count, type, reduceOp(args.dtype, args.op), comm_);
      }
      return finishAvg(args.recv);
    case Collective::AllGather:
      MPI_Allgather(inPlace ? MPI_IN_PLACE : args.send, count, type, args.recv, count, type, comm_);
      return;
    case Collective::Broadcast:
      // MPI broadcasts in one buffer: out of place, the root first copies its input there.
      if (isRoot && !inPlace) std::memcpy(args.recv, args.send, blockBytes);
      MPI_Bcast(args.recv, count, type, args.root, comm_);
      return;
    case Collective::Reduce:
      // Buffers only the root uses are passed as null elsewhere (in place they alias the input).
      MPI_Reduce(inPlace && isRoot ? MPI_IN_PLACE : args.send, isRoot ? args.recv : nullptr, count, type,
                 reduceOp(args.dtype, args.op), args.root, comm_);
      if (isRoot) finishAvg(args.recv);
      return;
    case Collective::AllToAll:
      MPI_Alltoall(inPlace ? MPI_IN_PLACE : args.send, count, type, args.recv, count, type, comm_);
      return;
    case Collective::Gather:
      MPI_Gather(inPlace && isRoot ? MPI_IN_PLACE : args.send, count, type, isRoot ? args.recv : nullptr, count, type,
                 args.root, comm_);
      return;
    case Collective::Scatter:
      MPI_Scatter(isRoot ? args.send : nullptr, count, type, inPlace && isRoot ? MPI_IN_PLACE : args.recv, count, type,
                  args.root, comm_);
      return;
    case Collective::SendRecv: {
      const int right = (rank_ + 1) % size_;
      const int left = (rank_ + size_ - 1) % size_;
      if (inPlace) {
        MPI_Sendrecv_replace(args.recv, count, type, right, 0, left, 0, comm_, MPI_STATUS_IGNORE);
      } else {
        MPI_Sendrecv(args.send, count, type, right, 0, args.recv, count, type, left, 0, comm_, MPI_STATUS_IGNORE);
      }
      return;
    }
  }
}

}  // namespace cclab
