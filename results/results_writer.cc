#include "results/results_writer.h"

#include "results/json_reader.h"

#include <stdexcept>

#include <fmt/format.h>

#include "results/row_json.h"
#include "collectives/errors.h"

namespace cclab::results {
namespace {

// How toJson(file).dump(1) lays out the rows: `"rows": [`, each row object two levels in (every
// line indented by two spaces more than dump(1) of the row alone; JSON strings hold no raw
// newlines), separated by ",\n", then `\n ]` and the closing brace. No rows: `"rows": []`.
std::string indentedRow(const Row& row) {
  const std::string alone = dumpJson(rowToJson(row), 1);
  std::string out = "  ";
  out.reserve(alone.size() + alone.size() / 8);
  for (char c : alone) {
    out += c;
    if (c == '\n') out += "  ";
  }
  return out;
}

constexpr std::string_view kEmptyRows = "[]\n}";

}  // namespace

ResultsWriter::ResultsWriter(const std::filesystem::path& jsonPath, const std::filesystem::path& csvPath) : jsonPath_(jsonPath) {
  if (!jsonPath.empty()) jsonRows_ = std::make_unique<TemporaryFile>(jsonPath, "rows");
  if (!csvPath.empty()) {
    csv_ = std::make_unique<TemporaryFile>(csvPath);
    csv_->write(csvHeader());
  }
}

ResultsWriter::~ResultsWriter() = default;

void ResultsWriter::add(const Row& row) {
  try {
    if (jsonRows_) jsonRows_->write((rows_ == 0 ? "" : ",\n") + indentedRow(row));
    if (csv_) csv_->write(csvLine(row));
  } catch (const InputError&) {
    jsonRows_.reset();
    csv_.reset();
    throw;
  }
  ++rows_;
}

void ResultsWriter::finish(const RunInfo& run) {
  try {
    if (jsonRows_) {
      // The document without rows ends in `"rows": []\n}`: the rows go in place of the `[]`.
      std::string head = dumpJson(toJson(ResultsFile{run, {}}), 1);
      if (!head.ends_with(kEmptyRows)) throw std::logic_error("toJson() no longer ends with the rows");
      head.resize(head.size() - kEmptyRows.size());
      TemporaryFile json(jsonPath_);
      if (rows_ == 0) {
        json.write(head + std::string(kEmptyRows) + "\n");
      } else {
        json.write(head + "[\n");
        json.append(*jsonRows_);
        json.write("\n ]\n}\n");
      }
      json.commit();
      jsonRows_.reset();
    }
    if (csv_) {
      csv_->commit();
      csv_.reset();
    }
  } catch (const InputError&) {
    jsonRows_.reset();
    csv_.reset();
    throw;
  }
}

}  // namespace cclab::results
