// The pipeline schedules run task by task agree with the closed forms the step time uses:
// makespan (m + (p-1)/v)(F + B), the bubble both ways it is quoted, and the activations a device
// holds at its worst moment.

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "sim/training/pipeline.h"

namespace cclab::sim {
namespace {

struct Case {
  Schedule schedule;
  int p, m, v;
};

std::vector<Case> cases() {
  std::vector<Case> all;
  for (int p : {1, 2, 3, 4, 8}) {
    for (int m : {1, 2, 4, 5, 8, 16, 24}) {
      all.push_back({Schedule::GPipe, p, m, 1});
      all.push_back({Schedule::OneFOneB, p, m, 1});
      // Megatron-LM's interleaved schedule needs the micro-batches in whole groups of p.
      if (p > 1 && m % p == 0) {
        for (int v : {2, 3, 4}) all.push_back({Schedule::Interleaved, p, m, v});
      }
    }
  }
  return all;
}

TEST(Pipeline, SimulatedMakespanMatchesTheClosedForm) {
  // A forward of 1 and a backward of 2 per full stage (all its chunks), as in a transformer.
  const double forward = 1.0, backward = 2.0;
  for (const Case& c : cases()) {
    const PipelineShape shape{c.schedule, c.p, c.m, c.v};
    const SimulatedSchedule run = simulateSchedule(shape, forward, backward);
    SCOPED_TRACE(::testing::Message() << name(c.schedule) << " p=" << c.p << " m=" << c.m << " v=" << c.v);
    EXPECT_NEAR(run.makespan, pipelineTime(shape, forward, backward), 1e-9);
    // Every device computes the same m(F + B); the rest of the makespan is the bubble.
    for (double busy : run.busy) EXPECT_NEAR(busy, c.m * (forward + backward), 1e-9);
    const double idle = run.makespan - c.m * (forward + backward);
    EXPECT_NEAR(idle / run.makespan, bubbleFraction(shape), 1e-12);
    EXPECT_NEAR(idle / (c.m * (forward + backward)), bubbleOverIdeal(shape), 1e-12);
  }
}

TEST(Pipeline, SimulatedPeakActivationsMatchTheClosedForm) {
  for (const Case& c : cases()) {
    const PipelineShape shape{c.schedule, c.p, c.m, c.v};
    const SimulatedSchedule run = simulateSchedule(shape, 1.0, 2.0);
    SCOPED_TRACE(::testing::Message() << name(c.schedule) << " p=" << c.p << " m=" << c.m << " v=" << c.v);
    // The first device holds the most.
    EXPECT_EQ(*std::max_element(run.peakInFlight.begin(), run.peakInFlight.end()), run.peakInFlight.front());
    EXPECT_EQ(run.peakInFlight.front(), peakInFlightChunks(shape));
  }
}

TEST(Pipeline, BubbleFormulasAsPublished) {
  // GPipe paper / the seed: (p-1)/(m+p-1). p = 4, m = 8: 3/11.
  EXPECT_DOUBLE_EQ(bubbleFraction({Schedule::GPipe, 4, 8, 1}), 3.0 / 11);
  EXPECT_DOUBLE_EQ(bubbleFraction({Schedule::OneFOneB, 4, 8, 1}), 3.0 / 11);
  // Megatron-LM 2021, section 2.2: (p-1)/m, and (p-1)/(v m) interleaved.
  EXPECT_DOUBLE_EQ(bubbleOverIdeal({Schedule::OneFOneB, 8, 32, 1}), 7.0 / 32);
  EXPECT_DOUBLE_EQ(bubbleOverIdeal({Schedule::Interleaved, 8, 32, 4}), 7.0 / 128);
  // 1F1B keeps p micro-batches in flight, GPipe all m; interleaving adds (p-1)/... chunks.
  EXPECT_EQ(peakInFlightChunks({Schedule::GPipe, 4, 16, 1}), 16);
  EXPECT_EQ(peakInFlightChunks({Schedule::OneFOneB, 4, 16, 1}), 4);
  EXPECT_EQ(peakInFlightChunks({Schedule::OneFOneB, 4, 2, 1}), 2);
}

TEST(Pipeline, ASimulatorThatGetsTheOrderWrongIsCaught) {
  // The comparison can fail: the same tasks with GPipe's memory are not 1F1B's.
  const PipelineShape oneF{Schedule::OneFOneB, 4, 16, 1};
  const PipelineShape gpipe{Schedule::GPipe, 4, 16, 1};
  EXPECT_NE(simulateSchedule(gpipe, 1, 2).peakInFlight.front(), peakInFlightChunks(oneF));
  // ... and a non-interleaved makespan is not the interleaved closed form.
  const PipelineShape inter{Schedule::Interleaved, 4, 16, 2};
  EXPECT_GT(simulateSchedule(oneF, 1, 2).makespan, pipelineTime(inter, 1, 2) + 0.5);
}

TEST(Pipeline, StagesThatDoNotDivideTheLayersAreLighterAtTheEnds) {
  auto split = [](int layers, int stages) {
    std::vector<int> out;
    for (int s = 0; s < stages; ++s) out.push_back(stageLayers(layers, stages, s));
    return out;
  };
  // Llama 3 405B (Dubey et al. 2024, Sec. 3.3.2: one layer fewer on the first and the last stage).
  EXPECT_EQ(split(126, 16), (std::vector<int>{7, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 7}));
  // BLOOM-176B on 12 stages: 5 on the ends, where DeepSpeed also places the two embeddings.
  EXPECT_EQ(split(70, 12), (std::vector<int>{5, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 5}));
  EXPECT_EQ(split(10, 3), (std::vector<int>{3, 4, 3}));
  EXPECT_EQ(split(5, 4), (std::vector<int>{1, 1, 2, 1}));  // lighter from the ends inwards
  EXPECT_EQ(split(96, 8), std::vector<int>(8, 12));
  for (int layers : {7, 12, 61, 126}) {
    for (int stages = 1; stages <= layers && stages <= 20; ++stages) {
      const std::vector<int> s = split(layers, stages);
      int sum = 0;
      for (int n : s) {
        sum += n;
        EXPECT_GE(n, layers / stages);
        EXPECT_LE(n, maxStageLayers(layers, stages));
      }
      EXPECT_EQ(sum, layers) << layers << " on " << stages;
    }
  }
}

}  // namespace
}  // namespace cclab::sim
