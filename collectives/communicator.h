#pragma once

// A communicator runs whole collectives among a fixed group of ranks. ccbench measures one per
// backend: the MPI library's own collectives, cclab's algorithms over a transport, and NCCL.
// A process usually is one rank; a process driving several GPUs (NCCL's -g) holds several
// consecutive ranks, its "local ranks", and runs each collective for all of them at once.

#include <cstddef>
#include <memory>
#include <optional>
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
  // The name of what runs `collective` ("native" for a library's own, or a cclab algorithm;
  // "auto" where the algorithm is picked per call).
  virtual std::string algorithm(Collective collective) const = 0;
  // The name of what runs this call of `collective` (differs from algorithm() only under "auto").
  virtual std::string algorithmFor(Collective collective, const CollectiveArgs& /*args*/) { return algorithm(collective); }
  // Runs one collective; the buffers are laid out as bufferLayout() says.
  virtual void run(Collective collective, const CollectiveArgs& args) = 0;
  // Runs one collective for every local rank, args[i] for rank rank() + i.
  virtual void runLocal(Collective collective, std::span<const CollectiveArgs> args) { run(collective, args.front()); }
};

// Picks the algorithm of each call: ccbench's `--algo auto` (bench/tuner.h) asks the simulator.
// All ranks must pick the same algorithm for a call, so a choice may depend only on what every
// rank of the call shares: the collective, its size (the results' size column, bytesForCount)
// and whether it runs in place (uniform across ranks in ccbench).
class AlgorithmChooser {
 public:
  virtual ~AlgorithmChooser() = default;
  virtual const Algorithm& choose(Collective collective, std::size_t bytes, bool inPlace) = 0;
  // What the headers say runs `collective`: an algorithm name, or "auto".
  virtual std::string describe(Collective collective) const = 0;
};

// The chooser of --algo <family or comma list>: the same algorithm at every size.
std::unique_ptr<AlgorithmChooser> familyChooser(std::string family);

// cclab's own algorithms over any transport and device: those of one family (e.g. "ring", or a
// comma list as --algo takes it), or per call what a chooser picks.
class AlgorithmCommunicator final : public Communicator {
 public:
  AlgorithmCommunicator(Transport& transport, Device& device, std::string family,
                        std::size_t chunkBytes = Context::kDefaultChunkBytes);
  AlgorithmCommunicator(Transport& transport, Device& device, std::unique_ptr<AlgorithmChooser> chooser,
                        std::size_t chunkBytes = Context::kDefaultChunkBytes);
  int rank() const override { return context_.rank(); }
  int size() const override { return context_.size(); }
  std::string algorithm(Collective collective) const override;
  std::string algorithmFor(Collective collective, const CollectiveArgs& args) override;
  void run(Collective collective, const CollectiveArgs& args) override;
  // Nodes for the hierarchical algorithms (Context::ranksPerNode).
  void setRanksPerNode(int k) { context_.setRanksPerNode(k); }

 private:
  const Algorithm& pick(Collective collective, const CollectiveArgs& args);

  Context context_;
  std::unique_ptr<AlgorithmChooser> chooser_;
  // The last call's pick: a benchmark repeats one call, and working out its size and placement
  // again (two buffer layouts and the chooser's lookup) was a tenth of a small message's time.
  struct LastPick {
    Collective collective;
    std::size_t count;
    DataType dtype;
    const void* send;
    const void* recv;
    const Algorithm* algorithm;
  };
  std::optional<LastPick> last_;
};

// Whether the send and receive views of `args` are the in-place layout of bufferLayout().
bool isInPlace(Collective collective, const CollectiveArgs& args, int nranks, int rank);

}  // namespace cclab
