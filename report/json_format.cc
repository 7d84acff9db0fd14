// JSON: the summary, the settings, every table as a list of objects (units in the field names),
// the notes. For tables of test cases each object also says its outcome.

#include "report/formats.h"

namespace cclab::report {

Json toJson(const Document& doc) {
  Json out = {{"tool", "ccreport"}, {"command", doc.command}, {"verdict", doc.failed ? "fail" : "pass"},
              {"summary", doc.summary}, {"counts", doc.summaryJson}, {"settings", doc.settings}};
  constexpr const char* kOutcomes[] = {"passed", "failed", "skipped"};
  for (const Table& table : doc.tables) {
    Json lines = Json::array();
    for (const Line& line : table.lines) {
      Json object = Json::object();
      for (std::size_t c = 0; c < table.columns.size(); ++c) {
        if (table.columns[c].shown != Column::Shown::TablesOnly) object[table.columns[c].key] = line.cells[c].value;
      }
      if (table.testCases) object["outcome"] = kOutcomes[static_cast<int>(line.outcome)];
      lines.push_back(std::move(object));
    }
    out[table.key] = std::move(lines);
  }
  out["notes"] = doc.notes;
  return out;
}

}  // namespace cclab::report
