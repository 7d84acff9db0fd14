// Training measurements: results::parseTraining (cclab's record, Megatron-LM and DeepSpeed logs,
// the PyTorch profiler's trace, torch.cuda.memory_stats() JSON), and the record written back reads
// again to the same steps.
#include <stdexcept>

#include "results/json_reader.h"
#include "results/training_record.h"
#include "tests/fuzz/fuzz_target.h"

CCLAB_FUZZ_TARGET(training) {
  using namespace cclab::results;
  cclab::fuzz::expectRefusalOrSuccess([&] {
    const TrainingMeasurement m = parseTraining(input, "fuzz.log");
    const TrainingMeasurement back = trainingFromJson(parseJson(dumpJson(toJson(m)), "again.json"), "again.json");
    if (back.steps.size() != m.steps.size() || stepSeconds(back) != stepSeconds(m)) {
      throw std::logic_error("training: the record written back reads to other steps");
    }
    stepStatistics(m, 1);
  });
}
