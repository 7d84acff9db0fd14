// The terminal table: the summary line first, then each table with aligned columns; colour (on a
// terminal only) marks regressions red and improvements green.

#include <algorithm>

#include <fmt/format.h>

#include "report/formats.h"

namespace cclab::report {

std::vector<std::size_t> shownInTables(const Table& table) {
  std::vector<std::size_t> shown;
  for (std::size_t i = 0; i < table.columns.size(); ++i) {
    if (table.columns[i].shown != Column::Shown::JsonOnly) shown.push_back(i);
  }
  return shown;
}

std::string toTerminal(const Document& doc, bool colour) {
  auto paint = [&](const std::string& text, Tone tone) {
    if (!colour || tone == Tone::Neutral) return text;
    return fmt::format("\033[{}m{}\033[0m", tone == Tone::Bad ? "31" : "32", text);
  };
  std::string out = paint(doc.summary, doc.failed ? Tone::Bad : Tone::Good) + "\n";
  for (const Table& table : doc.tables) {
    const std::vector<std::size_t> shown = shownInTables(table);
    std::vector<std::size_t> width;
    for (std::size_t c : shown) {
      std::size_t w = table.columns[c].header.size();
      for (const Line& line : table.lines) w = std::max(w, line.cells[c].text.size());
      width.push_back(w);
    }
    auto cell = [&](const std::string& text, std::size_t i) {
      const std::size_t c = shown[i];
      // A last text column (notes) is not padded: it may be long.
      if (i + 1 == shown.size() && !table.columns[c].numeric) return text;
      return table.columns[c].numeric ? fmt::format("{:>{}}", text, width[i]) : fmt::format("{:<{}}", text, width[i]);
    };
    out += fmt::format("\n# {}\n#", table.title);
    for (std::size_t i = 0; i < shown.size(); ++i) out += " " + cell(table.columns[shown[i]].header, i);
    out += "\n";
    for (const Line& line : table.lines) {
      out += " ";
      for (std::size_t i = 0; i < shown.size(); ++i) {
        const std::string text = cell(line.cells[shown[i]].text, i);
        out += " " + (i == 0 ? paint(text, line.tone) : text);
      }
      out += "\n";
    }
  }
  for (const std::string& note : doc.notes) out += "# note: " + note + "\n";
  return out;
}

}  // namespace cclab::report
