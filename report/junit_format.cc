// JUnit XML, as CI dashboards (GitHub, GitLab, Jenkins) read it: a test suite per table of test
// cases, a test case per row, a <failure> per regression and <skipped> for allowed misses.

#include <algorithm>

#include <fmt/format.h>

#include "report/formats.h"

namespace cclab::report {

std::string toJUnit(const Document& doc) {
  auto count = [](const Table& t, Outcome o) {
    return std::count_if(t.lines.begin(), t.lines.end(), [&](const Line& l) { return l.outcome == o; });
  };
  std::string suites;
  std::size_t tests = 0, failures = 0, skipped = 0;
  for (const Table& table : doc.tables) {
    if (!table.testCases) continue;
    tests += table.lines.size();
    failures += count(table, Outcome::Failed);
    skipped += count(table, Outcome::Skipped);
    suites += fmt::format("  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"{}\">\n",
                          escapeMarkup(fmt::format("ccreport {}: {}", doc.command, table.key)), table.lines.size(),
                          count(table, Outcome::Failed), count(table, Outcome::Skipped));
    for (const Line& line : table.lines) {
      suites += fmt::format("    <testcase classname=\"{}\" name=\"{}\" time=\"0\"",
                            escapeMarkup(fmt::format("ccreport.{}.{}", doc.command, table.key)), escapeMarkup(line.name));
      if (line.outcome == Outcome::Passed) {
        suites += "/>\n";
      } else if (line.outcome == Outcome::Failed) {
        suites += fmt::format(">\n      <failure message=\"{0}\" type=\"{1}\">{0}</failure>\n    </testcase>\n",
                              escapeMarkup(line.message), escapeMarkup(doc.command == "compare" ? "regression" : "accuracy"));
      } else {
        suites += fmt::format(">\n      <skipped message=\"{}\"/>\n    </testcase>\n", escapeMarkup(line.message));
      }
    }
    std::string out = doc.summary + "\n";
    for (const std::string& note : doc.notes) out += "note: " + note + "\n";
    suites += fmt::format("    <system-out>{}</system-out>\n  </testsuite>\n", escapeMarkup(out));
  }
  return fmt::format("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"{}\">\n{}</testsuites>\n",
                     escapeMarkup("ccreport " + doc.command), tests, failures, skipped, suites);
}

}  // namespace cclab::report
