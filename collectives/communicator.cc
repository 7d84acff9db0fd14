#include "collectives/communicator.h"

namespace cclab {

AlgorithmCommunicator::AlgorithmCommunicator(Transport& transport, Device& device, std::string family,
                                             std::size_t chunkBytes)
    : context_(transport, device, chunkBytes), family_(std::move(family)) {}

std::string AlgorithmCommunicator::algorithm(Collective collective) const {
  return std::string(findAlgorithm(collective, family_).name);
}

void AlgorithmCommunicator::run(Collective collective, const CollectiveArgs& args) {
  if (args.count == 0) return;
  findAlgorithm(collective, family_).run(context_, args);
  context_.transport().drain();
}

bool isInPlace(Collective collective, const CollectiveArgs& args, int nranks, int rank) {
  const BufferLayout layout = bufferLayout(collective, args.count, nranks, rank);
  const char* sendBase = elementAt(args.send, 0, args.dtype) - layout.inPlaceSendOffset * sizeOf(args.dtype);
  const char* recvBase = elementAt(static_cast<const void*>(args.recv), 0, args.dtype) -
                         layout.inPlaceRecvOffset * sizeOf(args.dtype);
  return sendBase == recvBase;
}

}  // namespace cclab
