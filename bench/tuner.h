#pragma once

// ccbench --backend cclab --algo auto: per collective and size, the cclab algorithm the simulator
// predicts fastest on a calibrated description of this machine, the way NCCL's tuner consults its
// cost model and Open MPI's coll/tuned its decision rules. docs/ccbench.md describes it.

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <tuple>

#include "collectives/communicator.h"
#include "collectives/device.h"
#include "sim/cluster.h"
#include "sim/predictor.h"

namespace cclab::bench {

// The description --algo auto tunes on, and where it came from (for the header lines).
struct TuningCluster {
  sim::Cluster cluster;
  std::string source;
};

// `--cluster` as given (a preset name or a file), or for "" the description shipped for this
// device: models/calibrations/<preset>.json of the preset whose `matches` name the device (with
// transport "shm" on the CPU, <preset>-shm.json where it is shipped), else that preset. Where no
// preset names the device, the closest preset the same way (its calibration, else itself): on the
// CPU a shared-memory preset with as many cores, else one of the same vendor, else the first
// shared-memory one, priced with the device's cores; on GPUs the first GPU preset. Throws
// InputError for a cluster that cannot be read.
TuningCluster tuningCluster(const std::string& clusterOption, const sim::DeviceIdentity& device, bool onGpu,
                            const std::string& transport = "mpi");

// The single-copy thresholds of cclab's shared-memory transport this machine's description measured
// (intra_node.single_copy_bytes and single_copy_rooted_bytes, 0 where it gives none) and the
// description's name: of the description --algo auto would tune on (tuningCluster with transport
// "shm"), which is what `ccbench --shm-single-copy` and `--shm-single-copy-rooted` default to.
struct SingleCopy {
  std::size_t bytes = 0;        // calls where every rank sends and receives
  std::size_t rootedBytes = 0;  // rooted calls (broadcast, reduce, gather, scatter)
  std::string describedBy;      // the cluster description's name; empty for flags' values
};
SingleCopy describedSingleCopy(const std::string& clusterOption, const sim::DeviceIdentity& device);

// The pieces cclab's own host copies go in (HostDevice::copy; 0: one memcpy a copy) as the same
// description gives them (intra_node.copy_piece_bytes, HostDevice's default where it gives none),
// and its name: what `ccbench --host-copy-piece` defaults to.
struct CopyPiece {
  std::size_t bytes = HostDevice::kDefaultCopyPieceBytes;
  std::string describedBy;  // the cluster description's name where it gives the size; else empty
};
CopyPiece describedCopyPiece(const std::string& clusterOption, const sim::DeviceIdentity& device);

// The largest cache level of this machine's description (its intra_node.caches; the preset's
// own size, not the capacity a calibration fitted), 0 where none describes it, and the
// description's name: what `ccbench --off-cache auto` doubles.
struct LastCache {
  std::size_t bytes = 0;
  std::string describedBy;
};
LastCache describedLastCache(const std::string& clusterOption, const sim::DeviceIdentity& device);

class SimulatorChooser final : public AlgorithmChooser {
 public:
  // `ranks` in all, `ranksPerHost` on each host (hosts are the simulator's nodes), at most
  // `ranksPerDevice` on one GPU (several: they share it, and each step costs more; 1 on the CPU).
  // Throws InputError when the cluster cannot price that shape (several hosts on a cluster
  // without NICs).
  SimulatorChooser(const sim::Cluster& cluster, int ranks, int ranksPerHost, int ranksPerDevice = 1);

  // The registry's algorithm for `collective` with the smallest predicted time, priced with the
  // "cclab" calibration entries where the cluster has them (and then only among the algorithms
  // they measured for the collective); ties go to the earlier registry row; `hier` only across hosts.
  // Remembered per (collective, bytes, in place): a sweep prices each size once.
  const Algorithm& choose(Collective collective, std::size_t bytes, bool inPlace) override;
  std::string describe(Collective) const override { return std::string(sim::kSimulatorPicks); }

  // The predicted time of one algorithm (tests, and why auto picked what it did).
  double predictUs(Collective collective, std::string_view algorithm, std::size_t bytes, bool inPlace) const;

 private:
  sim::Cluster cluster_;
  sim::Predictor predictor_;
  int ranks_ = 1, nodes_ = 1, ranksPerDevice_ = 1;
  using Key = std::tuple<Collective, std::size_t, bool>;
  std::map<Key, const Algorithm*> picked_;
  // The last call's pick: a timed loop repeats one call, and at 8 bytes a map lookup per call is
  // a measurable part of it.
  std::optional<std::pair<Key, const Algorithm*>> last_;
};

}  // namespace cclab::bench
