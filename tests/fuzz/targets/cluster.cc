// A cluster description: sim::clusterFromJson (a "gpu" given by name is read from models/gpus/),
// then every simulated algorithm prices a collective on it, reshaped to a second shape too.
#include "results/json_reader.h"
#include "sim/cluster.h"
#include "sim/predictor.h"
#include "tests/fuzz/fuzz_target.h"

CCLAB_FUZZ_TARGET(cluster) {
  using namespace cclab;
  fuzz::expectRefusalOrSuccess([&] {
    sim::Cluster cluster = sim::clusterFromJson(results::parseJson(input, "fuzz.json"), "fuzz.json");
    for (int nodes : {1, 2}) {
      if (nodes > 1 && cluster.nics.perNode == 0) break;
      sim::reshape(cluster, nodes, std::nullopt);
      const sim::Predictor predictor(cluster);
      for (Collective c : allCollectives()) {
        for (std::string_view algo : predictor.candidates(c)) {
          sim::Query q{c, algo, 1 << 20, cluster.gpus(), cluster.nodes, false, ""};
          (void)predictor.predict(q);
        }
      }
    }
  });
}
