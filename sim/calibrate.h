#pragma once

// Fits the latency and bandwidth terms of a cluster description to measurements. Each group of
// rows (implementation, collective, algorithm, in place or not) gets its own fit, by weighted
// least squares on the plan's features (minimising relative error, so small and large messages
// count alike), with non-negative terms; all rows of a link class together refit the cluster's
// own link numbers; on shared memory each cache level's capacity is fitted too. docs/simulator.md
// describes the model being fitted.

#include <string>
#include <vector>

#include "sim/cluster.h"
#include "sim/measurements.h"

namespace cclab::sim {

struct CalibrationReport {
  Cluster fitted;                 // the base cluster with refitted links and one entry per group
  std::vector<Calibration> groups;
  std::vector<std::string> notes; // rows or groups that could not be fitted, and why
  struct LinkFit {
    LinkClass link;
    FitQuality quality;
  };
  std::vector<LinkFit> linkFits;  // the pooled refits of the cluster's links
  // A GPU's device copies (fitCopies in calibrate.cc): how many pairs of rows, in and out of
  // place, measured them, and the fixed cost and copy rate fitted (0 pairs: not fitted).
  struct CopyFit {
    int pairs = 0;
    double latencyUs = 0;
    double copyGBps = 0;
  };
  CopyFit copyFit;
  // Shared memory: each cache level's capacity as the description gives it and as fitted (what
  // the rows behave as if the level held; fitCacheCapacities in calibrate.cc). Empty elsewhere.
  struct CacheFit {
    double describedBytes = 0;
    double fittedBytes = 0;
  };
  std::vector<CacheFit> cacheFits;
  double describedCachesError = 0;  // the fit's objective with the described capacities (below)
  int rowsUsed = 0;
  FitQuality overall;             // over every fitted row, each with its group's fit
  double relativeSquaredError = 0;  // what the fits minimise: sum over fitted rows of ((predicted - measured) / measured)^2
};

// fitCaches: on shared memory, also fit each cache level's capacity (fitCacheCapacities in
// calibrate.cc); false keeps the described capacities.
CalibrationReport calibrate(const Cluster& base, const std::vector<Measurement>& rows, bool fitCaches = true);

}  // namespace cclab::sim
