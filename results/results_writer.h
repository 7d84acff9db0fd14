#pragma once

// A results file written row by row as a long run measures them, so the run holds one row at a
// time however many it makes (ccbench -N 1000): each row goes to a temporary file beside its
// target as it comes, and finish() writes the complete files atomically. The JSON file is the
// same, byte for byte, as toJson(file).dump(1) + "\n" of the same rows and run information: the
// run information (complete only at the end) first, then the rows copied from the scratch file.
// The CSV file is toCsv(rows).
//
// Until finish(), the targets are untouched; the temporaries (`.<name>.rows.tmp-<pid>-<host>` and
// `.<name>.tmp-<pid>-<host>`, results/atomic_file.h) go on SIGINT/SIGTERM, on destruction, or, after
// a SIGKILL, at the next write of the same target. A JSON file needs twice its size in free space
// while finish() copies the rows.

#include <cstddef>
#include <filesystem>
#include <memory>

#include "results/atomic_file.h"
#include "results/results.h"

namespace cclab::results {

class ResultsWriter {
 public:
  // Either path may be empty (not written). Throws InputError when a temporary cannot be created.
  ResultsWriter(const std::filesystem::path& jsonPath, const std::filesystem::path& csvPath);
  ~ResultsWriter();

  // Appends a row. Throws InputError naming the target on a failed write (a full disk); the
  // writer's temporaries are then removed and it writes nothing more.
  void add(const Row& row);
  // Writes the JSON (with `run`) and then the CSV file over their targets. Throws as add().
  void finish(const RunInfo& run);

  std::size_t rows() const { return rows_; }

 private:
  std::filesystem::path jsonPath_;
  std::unique_ptr<TemporaryFile> jsonRows_, csv_;
  std::size_t rows_ = 0;
};

}  // namespace cclab::results
