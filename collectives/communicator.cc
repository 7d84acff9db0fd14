#include "collectives/communicator.h"

namespace cclab {

namespace {

// --algo <family or list>: the same algorithm at every size.
class FamilyChooser final : public AlgorithmChooser {
 public:
  explicit FamilyChooser(std::string family) : family_(std::move(family)) {}
  const Algorithm& choose(Collective collective, std::size_t, bool) override { return findAlgorithm(collective, family_); }
  std::string describe(Collective collective) const override { return std::string(findAlgorithm(collective, family_).name); }

 private:
  std::string family_;
};

}  // namespace

std::unique_ptr<AlgorithmChooser> familyChooser(std::string family) { return std::make_unique<FamilyChooser>(std::move(family)); }

AlgorithmCommunicator::AlgorithmCommunicator(Transport& transport, Device& device, std::string family,
                                             std::size_t chunkBytes)
    : AlgorithmCommunicator(transport, device, familyChooser(std::move(family)), chunkBytes) {}

AlgorithmCommunicator::AlgorithmCommunicator(Transport& transport, Device& device,
                                             std::unique_ptr<AlgorithmChooser> chooser, std::size_t chunkBytes)
    : context_(transport, device, chunkBytes), chooser_(std::move(chooser)) {}

std::string AlgorithmCommunicator::algorithm(Collective collective) const { return chooser_->describe(collective); }

const Algorithm& AlgorithmCommunicator::pick(Collective collective, const CollectiveArgs& args) {
  if (last_ && last_->collective == collective && last_->count == args.count && last_->dtype == args.dtype &&
      last_->send == args.send && last_->recv == args.recv) {
    return *last_->algorithm;
  }
  const std::size_t bytes = bytesForCount(collective, args.count, args.dtype, size());
  const Algorithm& algorithm = chooser_->choose(collective, bytes, isInPlace(collective, args, size(), rank()));
  last_ = LastPick{collective, args.count, args.dtype, args.send, args.recv, &algorithm};
  return algorithm;
}

std::string AlgorithmCommunicator::algorithmFor(Collective collective, const CollectiveArgs& args) {
  return std::string(pick(collective, args).name);
}

void AlgorithmCommunicator::run(Collective collective, const CollectiveArgs& args) {
  if (args.count == 0) return;
  context_.transport().beginCall(collective);
  pick(collective, args).run(context_, args);
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
