#pragma once

// Chrome trace JSON (the format PyTorch's profiler writes; Perfetto and chrome://tracing open it),
// written event by event: a step can hold a million tasks, so no document tree of them all is
// built. `ccsim train --trace` (a simulated step) and `ccbench train --trace` (a measured one)
// write through it.

#include <string>

#include "results/json_reader.h"
#include "results/results.h"

namespace cclab::results {

class ChromeTrace {
 public:
  void add(const Json& event) {
    out_ += first_ ? "" : ",\n";
    first_ = false;
    out_ += dumpJson(event);
  }
  // The names Perfetto shows for a process and for one of its threads.
  void nameProcess(int pid, const std::string& name) { add({{"name", "process_name"}, {"ph", "M"}, {"pid", pid}, {"args", {{"name", name}}}}); }
  void nameThread(int pid, int tid, const std::string& name) {
    add({{"name", "thread_name"}, {"ph", "M"}, {"pid", pid}, {"tid", tid}, {"args", {{"name", name}}}});
  }
  // The whole document, times in microseconds shown as milliseconds.
  std::string finish(const Json& otherData) {
    return out_ + "\n],\"displayTimeUnit\":\"ms\",\"otherData\":" + dumpJson(otherData) + "}\n";
  }

 private:
  std::string out_ = "{\"traceEvents\":[\n";
  bool first_ = true;
};

}  // namespace cclab::results
