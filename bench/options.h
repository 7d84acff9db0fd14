#pragma once

// ccbench's command line: nccl-tests's flags with the same letters and meanings, plus --backend,
// --algo, --device, --csv. Parsing is pure (no MPI) so it is unit-tested directly.

#include <array>
#include <cstddef>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "collectives/context.h"
#include "collectives/sizes.h"
#include "collectives/vocabulary.h"

namespace cclab::bench {

// What can run the collectives (--backend) and where cclab's buffers live (--device).
inline constexpr std::array<std::string_view, 3> kBackends = {"nccl", "mpi", "cclab"};
inline constexpr std::array<std::string_view, 2> kDevices = {"cpu", "cuda"};
// How cclab's algorithms on host memory reach the other ranks: MPI point-to-point, or shared
// memory between the processes of one host (collectives/shm_transport.h); auto: shared memory
// when every rank runs on one host, else MPI, as NCCL takes its SHM transport inside a node.
inline constexpr std::array<std::string_view, 3> kTransports = {"auto", "mpi", "shm"};
// cclab's pipeline chunk (--chunk): Context's default on the CPU; larger on a GPU, where every
// chunk costs a stream synchronisation and a control message round trip.
inline constexpr std::size_t kDefaultChunkBytes = Context::kDefaultChunkBytes;
inline constexpr std::size_t kDefaultCudaChunkBytes = std::size_t{4} << 20;

// How per-rank times are combined into the one reported (-a, as in nccl-tests).
enum class Average { Rank0 = 0, Mean = 1, Min = 2, Max = 3 };

struct Options {
  std::vector<Collective> collectives;
  std::vector<std::string> backends{"mpi"};
  std::string algo = "ring";  // a registry name or family, or a comma list: per collective the first that does it; or "auto"
  std::string cluster;        // --algo auto: the cluster description to tune on ("": the one shipped for this machine)
  int ranksPerNode = 0;       // for the hierarchical algorithms; 0: the processes sharing a host
  std::string device = "cpu";
  std::string transport = "auto";  // --backend cclab on the CPU: kTransports
  // --shm-single-copy: over shared memory, messages this large and up are read straight out of the
  // sender's memory (one copy) instead of passing through the slots (two); 0: never. Not given:
  // what this machine's description measured (intra_node.single_copy_bytes; bench/backends.cc),
  // as NCCL sets its protocol thresholds per platform: the slots were as fast or faster in most
  // cells on the AMD EPYC VM (0), the single copy from 512 KiB on the Intel Xeon VM
  // (docs/auto-vs-mpi.md, "Every message through the slots" and "A second machine").
  std::optional<std::size_t> shmSingleCopyBytes;
  std::optional<std::size_t> shmSingleCopyRootedBytes;  // --shm-single-copy-rooted
  // --host-copy-piece: cclab's own copies of host memory in memcpy calls of this many bytes (0: one
  // a copy). Not given: this machine's description's intra_node.copy_piece_bytes (bench/backends.cc),
  // else HostDevice's default.
  std::optional<std::size_t> hostCopyPieceBytes;
  // --host-buffers: the run's host buffers (both backends measure on the same ones) in shared
  // memory the other processes map (true, the default: cclab's single copies run at memcpy's rate),
  // or private heap memory they read with process_vm_readv (as a caller's own buffers are).
  bool sharedHostBuffers = true;
  // --off-cache: each timed call of a size uses the next span of buffers this much larger than the
  // largest message, so no call reads what the one before left in a cache (IMB's -off_cache). 0:
  // off (CPU: every call on the same buffers; GPUs move through the largest size's buffers as
  // nccl-tests does). "auto": twice the last cache level of this machine's description.
  std::size_t offCacheBytes = 0;
  bool offCacheAuto = false;  // --off-cache auto: the driver reads the description (describedLastCache)
  Sweep sweep;  // -b -e -i -f
  int iters = 20;
  double minTimeS = 0;  // --min_time: time at least this long a loop, with more iterations than -n where needed
  int aggIters = 1;  // -m: collectives per timed iteration (their mean is reported)
  int warmupIters = 1;
  int checkIters = 1;  // 0: do not check results
  std::vector<DataType> dtypes{DataType::Float};
  bool allDtypes = false;  // -d all: datatypes a backend cannot run are left out, not refused
  std::vector<ReduceOp> ops{ReduceOp::Sum};
  int root = 0;  // -1: every root in turn
  Average average = Average::Mean;
  int blocking = 0;      // -z: 1 wait for each collective and barrier, 2 wait only (nccl-tests)
  int gpusPerProcess = 1;  // -g: GPUs one process drives (NCCL)
  int graphLaunches = 0;   // -G: capture the timed loop as a CUDA graph and replay it this often (NCCL)
  bool perIterTiming = false;  // -I: per-iteration times on GPUs from CUDA events (CPU: always)
  int repeats = 1;
  // --interleave: with several backends, each size measured on every backend in turn (the first
  // rotating), not one backend's whole sweep after another's.
  bool interleave = false;
  double timeoutS = 300;  // 0: no timeout
  std::string jsonPath;
  std::string csvPath;
  std::size_t chunkBytes = kDefaultChunkBytes;
  std::vector<std::string> command;  // argv, for the results file
  // Test hooks (hidden from --help): corrupt one output element, or stall one rank.
  int debugCorruptRank = -1;
  int debugStallRank = -1;
};

// What this build can run: the backends and devices it was built with.
bool buildHasNccl();
bool buildHasCuda();

// Parses argv. Throws InputError (one line naming the problem) on bad input. Returns nullopt
// when --help was asked for; the help text has then been written to `help`.
std::optional<Options> parseOptions(int argc, const char* const* argv, std::ostream& help);

// Checks what depends on the rank count (the root); throws InputError.
void checkForRanks(const Options& options, int nranks);

// The message sizes of the sweep, from -b to -e by -f (or -i).
std::vector<std::size_t> sweepSizes(const Options& options);

// The ops a collective runs with: its selected ops if it reduces, otherwise none.
std::vector<std::optional<ReduceOp>> opsFor(const Options& options, Collective collective);

}  // namespace cclab::bench
