#pragma once

// The results format every part of cclab reads and writes: one file per run, with what ran where
// (RunInfo) and one Row per measured (or predicted) point. docs/results-schema.md documents the
// JSON and CSV forms; this library is the only code that reads or writes them.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "collectives/vocabulary.h"

namespace cclab::results {

// Keys keep the order they were written in, so files read top-down as the schema doc does.
using Json = nlohmann::ordered_json;

inline constexpr std::string_view kSchemaName = "cclab-results";
inline constexpr int kSchemaVersion = 1;

struct RankPlacement {
  int rank = 0;
  std::string host;
  int pid = 0;
  int core = -1;       // the CPU core the rank ran on (-1: unknown)
  int device = -1;     // the GPU index (-1: none)
  std::string deviceName;  // "cpu" or the GPU model
  std::string busId;       // the GPU's PCI bus id, when there is one
};

struct RunInfo {
  std::string tool;          // "ccbench", "ccsim", "nccl-tests"
  std::string toolVersion;
  std::vector<std::string> command;
  std::string startTime;     // ISO 8601, UTC
  std::string endTime;
  std::string gitCommit;
  std::string host;          // the host of rank 0
  std::string cpuModel;
  int cpuCores = 0;
  int cpuFamily = 0;         // x86 "cpu family" of /proc/cpuinfo; 0: unknown (files before 2026-12-04)
  std::uint64_t memoryBytes = 0;
  std::string os;
  std::string mpiVersion;    // empty where not used
  std::string ncclVersion;
  std::string cudaVersion;
  std::string gpuModel;
  int nranks = 0;
  int nodes = 0;
  std::vector<RankPlacement> ranks;
  Json config = Json::object();  // the tool's own settings (see the schema doc)
};

// Row::backend of predictions (ccsim collective): they never calibrate or validate a model.
inline constexpr std::string_view kPredictedBackend = "sim";

struct Row {
  std::string backend;       // "mpi", "cclab", "nccl", or kPredictedBackend
  std::string algo;          // what ran: "ring", ..., or a library's label (kLibraryCollective, kLibraryTunerChose)
  Collective collective = Collective::AllReduce;
  DataType dtype = DataType::Float;
  std::optional<ReduceOp> op;  // none for collectives that do not reduce
  int root = -1;               // -1 for collectives without a root
  bool inPlace = false;
  std::uint64_t sizeBytes = 0;  // the size column of nccl-tests
  std::uint64_t count = 0;      // elements, as nccl-tests's count column
  int nranks = 0;
  int repeat = 0;               // which pass of a repeated sweep (-N)
  int iters = 0;
  double timeUs = 0;            // mean time per operation, combined across ranks
  std::optional<double> timeUsMin, timeUsMax, timeUsP50, timeUsP99;  // across iterations
  double algbwGBps = 0;
  double busbwGBps = 0;
  std::optional<std::int64_t> wrong;  // wrong elements; none when results were not checked
  std::vector<double> iterTimesUs;    // per-iteration times, when recorded
};

// What `ccsim collective` records in RunInfo::config (docs/results-schema.md), read and written
// here so that no tool reads another's config by key.
struct PredictionConfig {
  std::string cluster;
  int nodes = 0;
  int gpusPerNode = 0;
  std::string algo;            // ccsim's --algo: a simulator algorithm, or "auto" (sim::kSimulatorPicks)
  std::string implementation;  // ccsim's --impl: whose calibration priced the rows ("": the cluster's own numbers)
};
Json toJson(const PredictionConfig& config);
// The prediction settings of a ccsim run; nullopt for any other tool's file.
std::optional<PredictionConfig> predictionConfig(const RunInfo& run);

// ccbench's `--ranks-per-node k` (nodes emulated on one host for the hierarchical algorithms),
// recorded in RunInfo::config as kRanksPerNodeKey; 0 where the run grouped ranks by host.
inline constexpr const char* kRanksPerNodeKey = "ranks_per_node";
// ccbench --interleave: RunInfo::config[kInterleaveKey] is true where each size ran on every
// backend in turn (the rows then come point by point), absent otherwise.
inline constexpr const char* kInterleaveKey = "interleave";
int emulatedRanksPerNode(const RunInfo& run);

// The transport ccbench's cclab backend ran its CPU algorithms over ("shm" or "mpi", --transport
// as resolved), recorded in RunInfo::config as kTransportKey, and over "shm" the size from which
// a message is read in one copy (kShmSingleCopyKey; 0: none), in rooted calls
// (kShmSingleCopyRootedKey; absent: the same).
inline constexpr const char* kTransportKey = "transport";
inline constexpr const char* kShmSingleCopyKey = "shm_single_copy_bytes";
inline constexpr const char* kShmSingleCopyRootedKey = "shm_single_copy_rooted_bytes";
// Over "shm": messages of this many bytes and fewer travelled packed, a few to a cache line
// (ShmTransport::kPackedMaxBytes; recorded since 2026-12-07, packing began 2026-12-04).
inline constexpr const char* kShmPackedKey = "shm_packed_bytes";
// The pieces cclab's own copies of host memory went in (HostDevice: a rank's local copies; 0: one
// memcpy a copy), recorded by ccbench's cclab backend on the CPU, over either transport.
inline constexpr const char* kHostCopyPieceKey = "host_copy_piece_bytes";
// Where the run's host buffers lived: "shared" (memory the other processes map: cclab's single
// copies read them with memcpy) or "private" (read with process_vm_readv); recorded as the last key.
inline constexpr const char* kHostBuffersKey = "host_buffers";
// The copies a message takes on that transport: 2 over "shm" (into the shared slots, out of them;
// from cclabSingleCopyBytes up, 1), 1 over "mpi" (Open MPI's shared-memory transport: the receiver
// copies through CMA); 0 where the run recorded no transport.
int cclabCopiesPerMessage(const RunInfo& run);
// Over "shm": the message size from which the transport read the messages of a call of
// `collective` straight out of the sender's memory (one copy; config shm_single_copy_bytes, for a
// rooted collective shm_single_copy_rooted_bytes where the run recorded it); 0: never, or not over "shm".
double cclabSingleCopyBytes(const RunInfo& run, Collective collective);
// Over "shm": the size up to which its messages travelled packed (config shm_packed_bytes). Runs
// before ccbench recorded it: 24 from kShmPackedSince on (the one size the transport has packed),
// 0 before; -1 without a start time. 0 over "mpi", or with no cclab on the CPU.
inline constexpr const char* kShmPackedSince = "2026-12-04T11:57:38Z";  // commit aaf9659b
double cclabPackedBytes(const RunInfo& run);
// Whether cclab's ranks gave up their cores while they waited: over "shm", whose ranks yield at
// once when they outnumber the cores (Open MPI's spin in its progress loop first).
bool cclabWaitingRanksYield(const RunInfo& run);
// The pieces cclab's own host copies went in (config host_copy_piece_bytes; 0: one memcpy a
// copy); -1 where the run did not record them (ccbench before it did, or no cclab on the CPU).
double cclabHostCopyPieceBytes(const RunInfo& run);
// Whether the run's host buffers were shared memory its processes mapped (config host_buffers
// "shared"); false where recorded "private" or not at all (ccbench before it recorded them used
// heap memory), or with no cclab on the CPU.
bool cclabSharedHostBuffers(const RunInfo& run);

struct ResultsFile {
  RunInfo run;
  std::vector<Row> rows;
};

// The limits every results value is checked against when it is read, whatever the format: a rank
// count from 1 to kMaxRanks, a root from -1 to nranks-1, times and bandwidths finite and not
// negative (a time of 0 only for an empty buffer), counts and repeats not negative, sizes below
// 2^62. InputError "<source>: <where>: <field> <problem>" otherwise.
inline constexpr int kMaxRanks = 1 << 24;
void checkRow(const Row& row, const std::string& source, const std::string& where);

// A run as every tool starts one: the tool, its version and commit, the command, the start time.
RunInfo startRun(std::string tool, std::string version, std::string gitCommit, std::vector<std::string> command);
// The current time as ISO 8601 UTC ("2026-11-23T19:00:00Z"), for start and end times.
std::string utcNow();
// Fills nranks, nodes (distinct hosts), host and the CPU or GPU model from run.ranks.
void summarizeRanks(RunInfo& run);

// JSON in cclab's schema.
Json toJson(const ResultsFile& file);
ResultsFile fromJson(const Json& doc, const std::string& source);
// CSV: the rows flat, one per line, with the column names of the JSON rows.
std::string toCsv(const std::vector<Row>& rows);
std::vector<Row> rowsFromCsv(std::string_view text, const std::string& source);

// nccl-tests output: the text a run prints (and ccbench prints the same way) and its -J JSON.
// Rows with datatypes or ops cclab does not know (fp8, mulsum) are skipped and counted.
struct Import {
  ResultsFile file;
  int skippedRows = 0;
};
Import importNcclTestsText(std::string_view text, const std::string& source);
Import importNcclTestsJson(const Json& doc, const std::string& source);

// Reads any of the above, telling them apart by content. Throws InputError naming the file and
// what is wrong with it.
Import readResults(const std::filesystem::path& path);
// The same for a file's text (what readResults does once it has read the file).
Import importResults(std::string_view text, const std::string& source);

// Writes `content` to `path` atomically: a temporary file in the same folder, then a rename, so an
// interrupted run never leaves a half-written file (results/atomic_file.h; SIGINT and SIGTERM
// remove it through results/interrupts.h, and the next write of `path` removes one a SIGKILL left).
// Throws InputError naming the file and the reason ("No space left on device") when it cannot
// write; `path` is then as it was.
void writeFileAtomically(const std::filesystem::path& path, std::string_view content);
// Checks that `path` could be written (its folder exists and accepts a new file) before a long run.
void checkWritable(const std::filesystem::path& path);

// Mean time in microseconds -> bandwidths in GB/s (1e9 bytes/s), the one place this is computed.
double algorithmBandwidthGBps(std::uint64_t sizeBytes, double timeUs);
double busBandwidthGBps(Collective collective, int nranks, std::uint64_t sizeBytes, double timeUs);
// Sets a row's mean time and the bandwidths that follow from it (collective, nranks and sizeBytes
// must be set).
void setTime(Row& row, double timeUs);

}  // namespace cclab::results
