#pragma once

// A communicator runs whole collectives among a fixed group of ranks. ccbench measures one per
// backend: the MPI library's own collectives, cclab's algorithms over a transport, and NCCL.
// A process usually is one rank; a process driving several GPUs (NCCL's -g) holds several
// consecutive ranks, its "local ranks", and runs each collective for all of them at once.

#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "collectives/algorithms/algorithms.h"
#include "collectives/context.h"
#include "collectives/vocabulary.h"

namespace cclab {

class Communicator {
 public:
  virtual ~Communicator() = default;
  virtual int rank() const = 0;  // of the first local rank
  virtual int size() const = 0;
  virtual int localRanks() const { return 1; }
  // The name of what runs `collective` ("native" for a library's own, or a cclab algorithm).
  virtual std::string algorithm(Collective collective) const = 0;
  // Runs one collective; the buffers are laid out as bufferLayout() says.
  virtual void run(Collective collective, const CollectiveArgs& args) = 0;
  // Runs one collective for every local rank, args[i] for rank rank() + i.
  virtual void runLocal(Collective collective, std::span<const CollectiveArgs> args) { run(collective, args.front()); }
};

// cclab's own algorithms of one family (e.g. "ring") over any transport and device.
class AlgorithmCommunicator final : public Communicator {
 public:
  AlgorithmCommunicator(Transport& transport, Device& device, std::string family,
                        std::size_t chunkBytes = Context::kDefaultChunkBytes);
  int rank() const override { return context_.rank(); }
  int size() const override { return context_.size(); }
  std::string algorithm(Collective collective) const override;
  void run(Collective collective, const CollectiveArgs& args) override;
  // Nodes for the hierarchical algorithms (Context::ranksPerNode).
  void setRanksPerNode(int k) { context_.setRanksPerNode(k); }

 private:
  Context context_;
  std::string family_;
};

// Whether the send and receive views of `args` are the in-place layout of bufferLayout().
bool isInPlace(Collective collective, const CollectiveArgs& args, int nranks, int rank);

}  // namespace cclab
