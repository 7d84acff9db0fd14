#pragma once

// A cluster the simulator predicts for: nodes of GPUs (or CPU ranks), the fabric inside a node,
// the NICs and network between nodes, the host, and what it costs. Read from JSON
// (docs/cluster-format.md); presets live in models/clusters/. A calibrated cluster adds fitted
// latency and bandwidth terms (`calibration`).

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "results/results.h"
#include "collectives/device.h"
#include "collectives/vocabulary.h"

namespace cclab::sim {

using results::Json;

struct GpuSpec {
  std::string name;
  std::map<std::string, double> peakTflops;  // dense, per precision: fp64 fp32 tf32 bf16 fp16 fp8 ...
  double memoryBytes = 0;
  double memoryBandwidthGBps = 0;
  double launchLatencyUs = 0;  // fixed cost of one collective call (kernel launch, library overhead)
  // One device copy inside a call (cclab's algorithms copy their input: InputCopies in
  // collectives/algorithms/algorithms.h): its fixed cost and its rate. ccsim calibrate fits both;
  // 0 where not measured (then no fixed cost, and half the memory bandwidth: read + write).
  double copyLatencyUs = 0;
  double copyGBps = 0;
  // What training kernels achieve (training models): the fraction of peak a GEMM reaches by its
  // smallest dimension (interpolated between points), a fused (flash) attention kernel's fraction
  // of peak, and memory-bound kernels' fraction of the memory bandwidth.
  std::vector<std::pair<double, double>> gemmEfficiency;  // (smallest dimension, fraction of peak)
  double flashAttentionEfficiency = 0.5;
  double memoryEfficiency = 0.8;
  // How many times longer a 16-bit GEMM takes when a matrix's rows are not 16-byte aligned (a
  // leading dimension not a multiple of 8 elements, e.g. GPT-2's 50,257-token vocabulary
  // unpadded): cuBLAS's tensor-core kernels need 16-byte aligned rows and fall back to slower
  // ones. 1: no penalty (not measured on this GPU).
  double unalignedGemmSlowdown = 1;
  // The training step's timeline (timeline.h), each from the GPU description's "step" object, all
  // zero by default (the closed forms' ideal): how a collective running beside compute slows both
  // (NCCL's kernels take SMs and HBM bandwidth), the gap each kernel launch costs, what eager
  // PyTorch's dispatcher costs per operator on the CPU (the GPU starves when kernels are
  // shorter), and what the caching allocator adds on top of the memory in use; on CPU
  // descriptions, what ranks outnumbering the cores lose beyond their share of them (the kernel
  // switching between them, caches refilled, MPI polling for a descheduled peer).
  struct Step {
    double computeSlowdown = 0, commSlowdown = 0;
    double kernelLaunchUs = 0, eagerDispatchUs = 0;
    double allocatorOverhead = 0;
    double oversubscriptionSlowdown = 0;
  } step;
};

enum class FabricKind { NVSwitch, NVLink, PCIe, SharedMemory };

// One level of a CPU's cache hierarchy, for shared-memory fabrics.
struct CacheLevel {
  double bytes = 0;
  bool perCore = false;   // private to each core (L2) or shared by the node (L3)
  double bandwidthGBps = 0;  // copy bandwidth of one core when the working set fits here
};

struct IntraNode {
  FabricKind kind = FabricKind::NVSwitch;
  double bandwidthGBps = 0;  // per GPU, one direction, line rate (shared memory: one core's copy rate from DRAM)
  double latencyUs = 0;      // per step (message) on this fabric
  double efficiency = 1;     // what a library achieves of line rate (protocol overheads)
  bool nvls = false;         // NVLink SHARP: reductions in the switch
  double nvlsEfficiency = 0;
  int gpusPerSwitch = 0;           // PCIe: GPUs behind one switch
  double switchUplinkGBps = 0;     // PCIe: one switch's uplink, one direction
  int cores = 0;                   // shared memory: cores that copy in parallel
  std::vector<CacheLevel> caches;  // shared memory: from the smallest level up
  // Shared memory: extra per step when ranks outnumber cores; a GPU that processes share (a
  // calibration measured on one): extra per step per further process on it (pricing.h).
  double oversubscribedLatencyUs = 0;
  // Shared memory: cclab's transport packs messages of this many bytes and fewer a few to a cache
  // line (ShmTransport::kPackedMaxBytes, since 2026-12-04): a receiver scheduled in after a wait
  // takes every message its sender packed meanwhile from one line, so on more ranks than cores a
  // step of such messages pays its own oversubscribed latency (packedOversubscribedLatencyUs).
  // 0: nothing packed. `ccsim calibrate` sets it from the runs it fits (results config
  // `shm_packed_bytes`; runs that do not record it: the description's).
  double packedMaxBytes = 0;
  double packedOversubscribedLatencyUs = -1;  // < 0: oversubscribedLatencyUs
  // Shared memory: messages of at least this many bytes take the transport's rendezvous protocol
  // (a handshake before the single copy: Open MPI's vader BTL above btl_vader_eager_limit), each
  // such step paying rendezvousLatencyUs more. 0: one protocol at every size.
  double eagerLimitBytes = 0;
  double rendezvousLatencyUs = 0;
  // Shared memory: copies a message takes. 1: the receiver copies out of the sender's memory (Open
  // MPI's CMA); 2: the sender copies into shared slots and the receiver out of them, on their own
  // cores at once (cclab's shared-memory transport), so a one-way transfer costs each core half of
  // what a swap does. `ccsim calibrate` sets it from the runs it fits (results config `transport`).
  int copiesPerMessage = 1;
  // Shared memory: from how many bytes cclab's shared-memory transport reads a message straight
  // out of the sender's memory (one copy, process_vm_readv) instead of through the slots (two);
  // 0: never. Measured per machine (an A/B of the two, docs/cluster-format.md): it is what
  // `ccbench --shm-single-copy` defaults to on the machine this description matches. The
  // simulator prices a message this large at one copy (Pricing::copies); `ccsim calibrate` sets it
  // from the runs it fits (results config `shm_single_copy_bytes`). This is the threshold of the
  // calls where every rank sends and receives (all_reduce, all_gather, reduce_scatter, alltoall);
  // singleCopyRootedBytes is the rooted calls' (broadcast, reduce, gather, scatter): a one-copy
  // send waits for its receiver to read it, and in a rooted call the root's next send waits on
  // that, so the copy saved pays only from larger messages (single_copy_rooted_bytes; absent: the
  // same as single_copy_bytes; results config `shm_single_copy_rooted_bytes`).
  double singleCopyBytes = 0;
  double singleCopyRootedBytes = 0;
  // Shared memory: the pieces a rank's own copies of host memory go in (HostDevice's memcpy calls:
  // the algorithms' local copies, a broadcast root's input to its output); 0: one memcpy a copy.
  // Measured per machine (reduce_kernels_bench's copy/256M against host_copy/256M, then ccbench): it
  // is what `ccbench --host-copy-piece` defaults to on the machine this description matches.
  // Absent: HostDevice's default, 128 KiB. The simulator does not price it apart: the fitted
  // bandwidths of a calibration measured with it carry it.
  double copyPieceBytes = static_cast<double>(HostDevice::kDefaultCopyPieceBytes);
  // Shared memory: whether ranks waiting for a message give up their cores (cclab's shared-memory
  // transport yields at once when ranks outnumber cores; Open MPI spins in its progress loop), so
  // a step loads the cores with the ranks working in it (Transfer::busyCopiers), not all of them,
  // and a flow's messages share the cores (Transfer::CriticalBytes::nodeMessages).
  // `ccsim calibrate` sets it from the runs it fits (results config `transport`).
  bool waitingRanksYield = false;
  // Shared memory, on more ranks than cores: whether a rank that waits through a step beside the
  // ranks working in it (rd's and rhd's ranks folded out, Transfer::waitingRanks) takes its turn
  // on its core in that step, so the step's messages wait for it too. A property of the host's
  // scheduler, which no run of a power of two ranks shows: read off the 3- and 5-rank sweeps of
  // the AMD EPYC VMs (true there; on the Intel Xeon VM it made them worse: docs/algorithm-validation.md,
  // "Ranks folded out still take their turns").
  bool waitingRanksTakeTurns = false;
};

struct Nics {
  int perNode = 0;
  int gpusPerNic = 1;
  double bandwidthGBps = 0;  // per NIC, one direction
  double latencyUs = 0;
  double efficiency = 1;
};

enum class NetworkTopology { FatTree, RailOptimized };

struct Network {
  NetworkTopology topology = NetworkTopology::FatTree;
  double oversubscription = 1;  // 2 = a leaf's uplinks carry half of what its hosts can send
};

// Fitted: the median over ZeRO-Offload's Table 4 of 28 bytes a parameter / seconds / 256 GB/s.
inline constexpr double kCpuOptimizerMemoryEfficiency = 0.425;

struct HostSpec {
  double memoryBytes = 0;
  double memoryBandwidthGBps = 0;
  // The share of memoryBandwidthGBps ZeRO-Offload's CPU optimizer reaches. The default is fitted
  // on DeepSpeed's CPU-Adam on a DGX-2 (ZeRO-Offload, Ren et al. 2021, Table 4: 1-10 B parameters
  // in 0.22-2.57 s, ~109 GB/s of the two sockets' 256 GB/s): docs/training-validation.md, "ZeRO-Offload on one V100".
  double memoryEfficiency = kCpuOptimizerMemoryEfficiency;
  double pcieBandwidthGBps = 0;  // host <-> one GPU, one direction
  // Host <-> all of a node's GPUs at once, one direction: what the PCIe switches' uplinks to the
  // CPUs carry when every GPU copies (a DGX-2's 16 GPUs share them). 0: each GPU its own link.
  double pcieNodeBandwidthGBps = 0;
  // GPUs behind each PCIe switch uplink to the CPUs (0: the node's uplinks one shared pool): a
  // node has gpus_per_node / this uplinks of pcieNodeBandwidthGBps over that many each, and a
  // job's GPUs fill them in device order, so a few GPUs copying at once share one.
  int pcieSwitchGpus = 0;
  double pcieSwitchBandwidthGBps = 0;  // one uplink's, from the description's node
  double nvmeBandwidthGBps = 0;  // per node
};

// The link classes a prediction is priced on.
enum class LinkClass { Local, Intra, Inter };
std::string_view name(LinkClass link);

// A fitted (latency, bandwidth) for one implementation's collective and algorithm, from
// `ccsim calibrate`. Shared-memory fits also carry the oversubscribed latency and the bandwidth
// per cache level.
struct FitQuality {
  int rows = 0;
  double r2 = 0;
  double medianAbsErrorPct = 0;
  double maxAbsErrorPct = 0;
  std::vector<int> ranks;  // the rank counts the fit saw
};

struct Calibration {
  std::string implementation;  // the measured backend: "mpi", "cclab", "nccl"
  Collective collective = Collective::AllReduce;
  std::string algo;            // as the measurement named it ("ring", "native", ...)
  bool inPlace = false;
  LinkClass link = LinkClass::Intra;
  double latencyUs = 0;
  double oversubscribedLatencyUs = 0;
  double packedOversubscribedLatencyUs = 0;  // shared memory: the same for a step of packed messages (IntraNode::packedMaxBytes); absent in JSON: oversubscribedLatencyUs
  double rendezvousLatencyUs = 0;           // shared memory: extra per step above the eager limit
  double callOverheadUs = 0;                // once per call, beyond the launch latency
  double bandwidthGBps = 0;                 // effective: efficiency included
  std::vector<double> cacheBandwidthGBps;   // shared memory: per cache level, as in IntraNode::caches
  // Shared memory, one copy a message: the rate of what a byte read out of data written in this
  // call costs beyond its copy (LinkPrice::freshGBps); 0: not fitted.
  double freshBandwidthGBps = 0;
  FitQuality fit;
};

// The entry fitted for one implementation, collective, algorithm and placement; where only the
// other placement was fitted, that one (in place and out move the same bytes); null if neither.
const Calibration* findCalibration(const std::vector<Calibration>& calibrations, std::string_view implementation,
                                   Collective collective, std::string_view algo, bool inPlace);

struct Cluster {
  std::string name;
  std::string description;
  int nodes = 1;
  int gpusPerNode = 1;
  GpuSpec gpu;
  IntraNode intra;
  Nics nics;
  Network network;
  HostSpec host;
  double costPerGpuHourUsd = 0;
  std::vector<Calibration> calibrations;
  Json document;  // the JSON it was read from: written back with its sources and comments

  int gpus() const { return nodes * gpusPerNode; }
};

// Reads a preset name (models/clusters/<name>.json) or a file path. Throws InputError naming the
// file, the field and the problem. "gpu" is an object, or the name of a GPU description in
// models/gpus/ (so each GPU's numbers live in one file), which the returned document holds inline.
Cluster loadCluster(const std::string& presetOrPath);
Cluster clusterFromJson(const Json& doc, const std::string& source);
Json toJson(const Cluster& cluster);

// Changes the node count and GPUs per node (1 to 16,384 GPUs). NICs follow gpus_per_nic.
void reshape(Cluster& cluster, std::optional<int> nodes, std::optional<int> gpusPerNode);

// The presets in models/clusters/ (sim/descriptions.h says where models/ is).
std::vector<std::string> presetNames();

// What a preset is matched against: a device's name (a CPU or GPU model), and on the CPU its core
// count and x86 family (/proc/cpuinfo's "cpu family"; 0 where unknown). A VM's model name may say too
// little ("AMD EPYC" on the Zen 5 host, a name the Zen 3 host's "AMD EPYC 7B13" contains): the family
// tells them apart.
struct DeviceIdentity {
  std::string name;
  int cpuCores = 0;
  int cpuFamily = 0;
};

// The preset a device was described by: the one whose `matches` strings appear in the device name
// (the longest match wins, and of two as long the one that also names the family; a preset with
// `match_cpu_cores` or `match_cpu_family` also needs that core count or family), or "" when none does.
std::string presetForDevice(const DeviceIdentity& device);

}  // namespace cclab::sim
