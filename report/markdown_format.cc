// GitHub-flavoured Markdown, for a CI job summary ($GITHUB_STEP_SUMMARY): the verdict in the
// heading, the summary line, one table per report table.

#include <fmt/format.h>

#include "report/formats.h"

namespace cclab::report {
namespace {

std::string escapeCell(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '|') out += '\\';
    out += c;
  }
  return out;
}

}  // namespace

std::string toMarkdown(const Document& doc) {
  std::string out = fmt::format("## {} {}\n\n**{}**\n", doc.failed ? ":x:" : ":white_check_mark:", doc.title, escapeCell(doc.summary));
  for (const Table& table : doc.tables) {
    const std::vector<std::size_t> shown = shownInTables(table);
    out += fmt::format("\n### {}\n\n|", table.title);
    for (std::size_t c : shown) out += " " + escapeCell(table.columns[c].header) + " |";
    out += "\n|";
    for (std::size_t c : shown) out += table.columns[c].numeric ? " ---: |" : " --- |";
    out += "\n";
    for (const Line& line : table.lines) {
      out += "|";
      for (std::size_t c : shown) out += " " + escapeCell(line.cells[c].text) + " |";
      out += "\n";
    }
  }
  if (!doc.notes.empty()) out += "\n";
  for (const std::string& note : doc.notes) out += "> " + escapeCell(note) + "\n";
  return out;
}

}  // namespace cclab::report
