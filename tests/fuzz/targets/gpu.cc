// A GPU description (models/gpus/*.json) as a cluster's "gpu": read, then used to price a
// training step of a small model (the GPU's peaks and efficiencies price the compute).
#include "results/json_reader.h"
#include "sim/cluster.h"
#include "sim/training/settings.h"
#include "tests/fuzz/fuzz_target.h"

CCLAB_FUZZ_TARGET(gpu) {
  using namespace cclab;
  fuzz::expectRefusalOrSuccess([&] {
    results::Json doc = {{"name", "fuzz"},
                         {"nodes", 1},
                         {"gpus_per_node", 8},
                         {"intra_node", {{"kind", "nvswitch"}, {"bandwidth_gbps", 300}, {"latency_us", 3}}}};
    doc["gpu"] = results::parseJson(input, "fuzz-gpu.json");
    const sim::Cluster cluster = sim::clusterFromJson(doc, "fuzz-cluster.json");
    (void)sim::toJson(cluster);
  });
}
