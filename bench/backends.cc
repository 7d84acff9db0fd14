#include "bench/backend.h"

#include <mpi.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "collectives/algorithms/algorithms.h"
#include "collectives/mpi/mpi_communicator.h"
#include "collectives/mpi/mpi_transport.h"
#include "collectives/mpi/shm_segment.h"
#include "collectives/shm_transport.h"
#include "bench/system_info.h"
#include "bench/tuner.h"
#include "collectives/sizes.h"

namespace cclab::bench {

std::vector<results::RankPlacement> Backend::placement() { return {cpuPlacement(localInfo(), communicator().rank())}; }

namespace {

// Host memory and the host clock, shared by the CPU backends of one run.
HostDevice& hostDevice() {
  static HostDevice device;
  return device;
}
HostClockTiming& hostClock() {
  static HostClockTiming timing;
  return timing;
}

// How a description's matches see the device cclab runs on: a GPU by its name (its host's CPU
// family would only confuse the match), the CPU by its model name and family; both with the cores.
sim::DeviceIdentity deviceIdentity(const LocalInfo& local, const std::string& name, bool onGpu) {
  return {name, local.cpuCores, onGpu ? 0 : local.cpuFamily};
}

// What this machine's description says (`read`: tuner.h's describedSingleCopy or
// describedCopyPiece), or T's defaults without descriptions to read (a tree without its models
// folder): a run that asked for no description does not fail for want of one.
template <typename T>
T machineDescribed(const Options& options, T (*read)(const std::string&, const sim::DeviceIdentity&)) {
  try {
    const LocalInfo local = localInfo();
    return read(options.cluster, deviceIdentity(local, local.cpuModel, false));
  } catch (const InputError&) {
    if (!options.cluster.empty()) throw;  // --cluster names a file that is not there: say so
    return {};
  }
}

// cclab's host copies in the pieces --host-copy-piece gives, or where not given the ones this
// machine's description measured (HostDevice's default without one); says which, for the header.
std::string applyCopyPiece(const Options& options) {
  const CopyPiece piece = options.hostCopyPieceBytes ? CopyPiece{*options.hostCopyPieceBytes, ""} : machineDescribed(options, describedCopyPiece);
  hostDevice().setCopyPieceBytes(piece.bytes);
  hostDevice().setSharedBuffers(options.sharedHostBuffers);
  std::string text = piece.bytes > 0 ? fmt::format("host copies in {} pieces", describeBytes(piece.bytes)) : "host copies in one memcpy";
  if (!piece.describedBy.empty()) text += fmt::format(" (as {} measured)", piece.describedBy);
  return text + (options.sharedHostBuffers ? ", shared buffers" : ", private buffers");
}

// The MPI library's own collectives.
class MpiBackend final : public Backend {
 public:
  explicit MpiBackend(const std::string& mpiVersion) : Backend("mpi", mpiVersion), communicator_(MPI_COMM_WORLD) {}
  Communicator& communicator() override { return communicator_; }
  Device& device(int) override { return hostDevice(); }
  std::unique_ptr<Checker> checker(const CheckSpec& spec, int) override { return std::make_unique<verify::Verifier>(spec); }
  Timing& timing() override { return hostClock(); }

 private:
  MpiCommunicator communicator_;
};

// cclab's algorithms on host memory, over MPI point-to-point or through a shared memory segment
// between the processes of one host (--transport shm: `segment` holds the transport's channels).
class HostAlgorithmBackend final : public Backend {
 public:
  HostAlgorithmBackend(const Options& o, CclabAlgorithms algorithms, std::unique_ptr<ShmSegment> segment,
                       std::unique_ptr<Transport> transport, std::string_view over, SingleCopy singleCopy = {})
      : Backend(std::string(kOwnBackend), fmt::format("cclab --algo {} {}, {} chunks, {}", algorithms.label, over, describeBytes(o.chunkBytes),
                                                      applyCopyPiece(o))),
        singleCopy_(singleCopy),
        segment_(std::move(segment)),
        transport_(std::move(transport)),
        communicator_(*transport_, hostDevice(), std::move(algorithms.chooser), o.chunkBytes) {
    communicator_.setRanksPerNode(algorithms.ranksPerNode(o));
  }
  Communicator& communicator() override { return communicator_; }
  Device& device(int) override { return hostDevice(); }
  std::unique_ptr<Checker> checker(const CheckSpec& spec, int) override { return std::make_unique<verify::Verifier>(spec); }
  Timing& timing() override { return hostClock(); }
  void describe(results::RunInfo& run) const override {
    run.config[results::kTransportKey] = segment_ ? "shm" : "mpi";
    run.config[results::kHostCopyPieceKey] = hostDevice().copyPieceBytes();
    run.config[results::kHostBuffersKey] = hostDevice().sharedBuffers() ? "shared" : "private";
    if (segment_) {
      run.config[results::kShmSingleCopyKey] = singleCopy_.bytes;
      run.config[results::kShmSingleCopyRootedKey] = singleCopy_.rootedBytes;
      run.config[results::kShmPackedKey] = ShmTransport::kPackedMaxBytes;
    }
  }

 private:
  SingleCopy singleCopy_;   // shm: messages from these sizes are read in one copy (0: none)
  std::unique_ptr<ShmSegment> segment_;  // outlives the transport that lives in it; null: over MPI
  std::unique_ptr<Transport> transport_;
  AlgorithmCommunicator communicator_;
};

// The shared-memory transport's single-copy thresholds every rank can use: it reads the other
// processes' memory, so every rank tries that once on its neighbour's, and one refusal anywhere
// (another user, ptrace restrictions) turns it off everywhere (0), with a note.
SingleCopy agreedSingleCopy(const SingleCopy& wanted, int rank, int ranks) {
  if (wanted.bytes == 0 && wanted.rootedBytes == 0) return wanted;
  static const std::uint64_t probe = 0x636c6162;
  const std::uint64_t mine[2] = {static_cast<std::uint64_t>(getpid()), reinterpret_cast<std::uint64_t>(&probe)};
  std::vector<std::uint64_t> all(2 * static_cast<std::size_t>(ranks));
  MPI_Allgather(mine, 2, MPI_UINT64_T, all.data(), 2, MPI_UINT64_T, MPI_COMM_WORLD);
  const auto next = 2 * static_cast<std::size_t>((rank + 1) % ranks);
  int readable = ShmTransport::canRead(static_cast<pid_t>(all[next]), reinterpret_cast<const void*>(all[next + 1]), sizeof(probe)) ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &readable, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (readable != 0) return wanted;
  if (rank == 0) {
    std::fputs("# --transport shm: this host refuses reads of another process's memory (process_vm_readv); every message goes through the slots\n", stderr);
  }
  return {};
}

// The single-copy thresholds: --shm-single-copy (the rooted calls' too, unless
// --shm-single-copy-rooted gives theirs), or where not given the ones this machine's description
// measured. Every rank of the host reads the same files, so all reach the same values. Without
// descriptions to read every message goes through the slots.
SingleCopy machineSingleCopy(const Options& options) {
  SingleCopy described;
  if (!options.shmSingleCopyBytes || !options.shmSingleCopyRootedBytes) described = machineDescribed(options, describedSingleCopy);
  if (!options.shmSingleCopyBytes && !options.shmSingleCopyRootedBytes) return described;
  SingleCopy chosen;
  chosen.bytes = options.shmSingleCopyBytes.value_or(described.bytes);
  chosen.rootedBytes = options.shmSingleCopyRootedBytes.value_or(options.shmSingleCopyBytes.value_or(described.rootedBytes));
  return chosen;
}

// What the header says of the single copy: "one copy from 16 KiB (rooted calls from 512 KiB) (as X measured)".
std::string describeSingleCopy(const SingleCopy& s) {
  auto from = [](std::size_t bytes) { return bytes > 0 ? "from " + describeBytes(bytes) : std::string("never"); };
  std::string text = "through shared memory";
  if (s.bytes > 0 || s.rootedBytes > 0) text += ", one copy " + from(s.bytes);
  if (s.rootedBytes != s.bytes) text += " (rooted calls " + from(s.rootedBytes) + ")";
  if (!s.describedBy.empty()) text += fmt::format(" (as {} measured)", s.describedBy);
  return text;
}

// The transport cclab's algorithms on the CPU take. auto: shared memory when every rank runs on
// this host (as NCCL takes its SHM transport inside a node), MPI point-to-point across hosts.
std::string hostTransport(const std::string& requested, bool oneHost, int ranks) {
  if (requested != "auto") return requested;
  return oneHost && ranks <= ShmTransport::kMaxRanks ? "shm" : "mpi";
}

std::unique_ptr<Backend> makeMpiTransportBackend(const Options& options) {
  return std::make_unique<HostAlgorithmBackend>(options, cclabAlgorithms(options, localInfo().cpuModel, false),
                                                nullptr, std::make_unique<MpiTransport>(MPI_COMM_WORLD), "over MPI point-to-point");
}

std::unique_ptr<Backend> makeHostAlgorithmBackend(const Options& requested) {
  int ranks = 1, rank = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  Options options = requested;
  // Every rank reaches the same verdict: ranksPerHost is the same everywhere.
  const bool oneHost = ranksPerHost() == ranks;
  options.transport = hostTransport(requested.transport, oneHost, ranks);
  if (options.transport != "shm") return makeMpiTransportBackend(options);
  if (!oneHost) {
    throw InputError("--transport shm: every rank must run on one host (use --transport mpi across hosts)");
  }
  if (ranks > ShmTransport::kMaxRanks) {
    throw InputError(fmt::format("--transport shm: {} ranks, at most {}", ranks, ShmTransport::kMaxRanks));
  }
  std::unique_ptr<ShmSegment> segment;
  try {
    segment = std::make_unique<ShmSegment>(MPI_COMM_WORLD, ShmTransport::regionBytes(ranks));
  } catch (const std::runtime_error& e) {
    if (requested.transport != "auto") throw;
    // Every rank caught it (the segment agrees on failure): all of them fall back together.
    if (rank == 0) std::fprintf(stderr, "# --transport auto: %s; over MPI point-to-point instead\n", e.what());
    options.transport = "mpi";
    return makeMpiTransportBackend(options);
  }
  const SingleCopy singleCopy = agreedSingleCopy(machineSingleCopy(options), rank, ranks);
  auto transport = std::make_unique<ShmTransport>(segment->data(), rank, ranks, singleCopy.bytes, singleCopy.rootedBytes);
  return std::make_unique<HostAlgorithmBackend>(options, cclabAlgorithms(options, localInfo().cpuModel, false), std::move(segment),
                                                std::move(transport), describeSingleCopy(singleCopy), singleCopy);
}

}  // namespace

CclabAlgorithms cclabAlgorithms(const Options& options, const std::string& device, bool onGpu, int ranksPerDevice) {
  const int perHost = ranksPerHost();
  if (options.algo != sim::kSimulatorPicks) {
    for (Collective c : options.collectives) findAlgorithm(c, options.algo);  // unknown --algo: fail before running
    return {familyChooser(options.algo), options.algo, perHost};
  }
  int world = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &world);
  const TuningCluster tuning = tuningCluster(options.cluster, deviceIdentity(localInfo(), device, onGpu), onGpu, options.transport);
  auto chooser = std::make_unique<SimulatorChooser>(tuning.cluster, world, perHost > 0 ? perHost : world, ranksPerDevice);
  for (Collective c : options.collectives) chooser->choose(c, 1024, false);  // a cluster that prices none: fail before running
  return {std::move(chooser), fmt::format("auto (tuned on {})", tuning.source), perHost};
}

std::vector<std::unique_ptr<Backend>> makeBackends(const Options& options, const std::string& mpiVersion) {
  std::vector<std::unique_ptr<Backend>> backends;
  for (const auto& name : options.backends) {
    if (name == "mpi") {
      backends.push_back(std::make_unique<MpiBackend>(mpiVersion));
    } else if (name == "nccl") {
      backends.push_back(makeNcclBackend(options));
    } else {
      if (options.device == "cuda") backends.push_back(makeCudaAlgorithmBackend(options));
      else backends.push_back(makeHostAlgorithmBackend(options));
    }
  }
  return backends;
}

}  // namespace cclab::bench
