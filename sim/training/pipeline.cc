#include "sim/training/pipeline.h"

#include <algorithm>
#include <stdexcept>

namespace cclab::sim {

double bubbleFraction(const PipelineShape& s) {
  const double p = s.stages, work = static_cast<double>(s.chunks) * s.microBatches;
  return (p - 1) / (work + p - 1);
}

double bubbleOverIdeal(const PipelineShape& s) {
  return (s.stages - 1.0) / (static_cast<double>(s.chunks) * s.microBatches);
}

double pipelineTime(const PipelineShape& s, double forward, double backward) {
  return (s.microBatches + (s.stages - 1.0) / s.chunks) * (forward + backward);
}

int stageLayers(int layers, int stages, int stage) {
  const int fewer = layers / stages, heavier = layers % stages;
  if (heavier == 0) return fewer;
  // Stages in the order they are made lighter: 0, p-1, 1, p-2, ...; the first p - r of that order
  // get `fewer` layers, the other r one more.
  const int fromEnd = std::min(stage, stages - 1 - stage);
  const int rank = 2 * fromEnd + (stage > stages - 1 - stage ? 1 : 0);
  return rank < stages - heavier ? fewer : fewer + 1;
}

int peakInFlightChunks(const PipelineShape& s) {
  const int p = s.stages, m = s.microBatches, v = s.chunks;
  switch (s.schedule) {
    case Schedule::GPipe: return m * v;
    case Schedule::OneFOneB: return std::min(p, m);
    case Schedule::Interleaved: return std::min(2 * (p - 1) + (v - 1) * p + 1, m * v);
  }
  return m;
}

std::vector<std::vector<ScheduledPass>> scheduleOrders(const PipelineShape& s) {
  const int p = s.stages, m = s.microBatches, v = s.chunks;
  std::vector<std::vector<ScheduledPass>> orders(static_cast<std::size_t>(p));
  for (int d = 0; d < p; ++d) {
    auto& order = orders[static_cast<std::size_t>(d)];
    // Forward and backward passes in the order the device meets them. Interleaved: micro-batches
    // go through in groups of p, each group through chunk 0, then chunk 1, ... (backward: chunks
    // in reverse).
    std::vector<ScheduledPass> forwards, backwards;
    for (int group = 0; group < m; group += p) {
      const int groupEnd = std::min(m, group + p);
      for (int c = 0; c < v; ++c) {
        for (int mb = group; mb < groupEnd; ++mb) forwards.push_back({true, mb, c});
      }
      for (int c = v - 1; c >= 0; --c) {
        for (int mb = group; mb < groupEnd; ++mb) backwards.push_back({false, mb, c});
      }
    }
    int warmup = 0;
    switch (s.schedule) {
      case Schedule::GPipe: warmup = m * v; break;                            // every forward first
      case Schedule::OneFOneB: warmup = std::min(p - d - 1, m); break;
      case Schedule::Interleaved: warmup = std::min(2 * (p - d - 1) + (v - 1) * p, m * v); break;
    }
    std::size_t f = 0, b = 0;
    for (int i = 0; i < warmup; ++i) order.push_back(forwards[f++]);
    while (f < forwards.size()) {  // steady state: one forward, one backward
      order.push_back(forwards[f++]);
      order.push_back(backwards[b++]);
    }
    while (b < backwards.size()) order.push_back(backwards[b++]);
  }
  return orders;
}

SimulatedSchedule simulateSchedule(const PipelineShape& s, double forward, double backward) {
  const int p = s.stages, m = s.microBatches, v = s.chunks;
  const double tf = forward / v, tb = backward / v;  // one chunk's pass
  const auto orders = scheduleOrders(s);
  // Finish times of every pass: [forward?][device][micro-batch][chunk], -1 while not run.
  auto index = [&](int d, int mb, int c) { return (static_cast<std::size_t>(d) * m + mb) * v + c; };
  std::vector<double> fDone(static_cast<std::size_t>(p * m * v), -1), bDone(fDone.size(), -1);
  std::vector<std::size_t> next(static_cast<std::size_t>(p), 0);
  std::vector<double> free(static_cast<std::size_t>(p), 0);
  SimulatedSchedule result;
  result.busy.assign(static_cast<std::size_t>(p), 0);
  result.peakInFlight.assign(static_cast<std::size_t>(p), 0);
  std::vector<int> inFlight(static_cast<std::size_t>(p), 0);

  std::size_t remaining = static_cast<std::size_t>(2 * p * m * v);
  while (remaining > 0) {
    bool progressed = false;
    for (int d = 0; d < p; ++d) {
      const auto& order = orders[static_cast<std::size_t>(d)];
      while (next[static_cast<std::size_t>(d)] < order.size()) {
        const ScheduledPass t = order[next[static_cast<std::size_t>(d)]];
        // A forward needs the previous stage's forward (for the first device: its previous chunk
        // on the last device); a backward needs the next stage's backward and its own forward.
        double ready = 0;
        if (t.forward) {
          if (d > 0) ready = fDone[index(d - 1, t.microBatch, t.chunk)];
          else if (t.chunk > 0) ready = fDone[index(p - 1, t.microBatch, t.chunk - 1)];
        } else {
          ready = fDone[index(d, t.microBatch, t.chunk)];
          double after = 0;
          if (d < p - 1) after = bDone[index(d + 1, t.microBatch, t.chunk)];
          else if (t.chunk < v - 1) after = bDone[index(0, t.microBatch, t.chunk + 1)];
          ready = (ready < 0 || after < 0) ? -1 : std::max(ready, after);
        }
        if (ready < 0) break;  // its input is not there yet: this device waits
        const double start = std::max(ready, free[static_cast<std::size_t>(d)]);
        const double cost = t.forward ? tf : tb;
        free[static_cast<std::size_t>(d)] = start + cost;
        result.busy[static_cast<std::size_t>(d)] += cost;
        (t.forward ? fDone : bDone)[index(d, t.microBatch, t.chunk)] = start + cost;
        int& held = inFlight[static_cast<std::size_t>(d)];
        held += t.forward ? 1 : -1;
        result.peakInFlight[static_cast<std::size_t>(d)] = std::max(result.peakInFlight[static_cast<std::size_t>(d)], held);
        ++next[static_cast<std::size_t>(d)];
        --remaining;
        progressed = true;
      }
    }
    if (!progressed) throw std::logic_error("pipeline schedule deadlocked: a device waits for a pass no device will run");
  }
  result.makespan = *std::max_element(free.begin(), free.end());
  return result;
}

}  // namespace cclab::sim
