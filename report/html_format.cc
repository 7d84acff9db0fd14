// A self-contained HTML page: styles inline, charts as data: URIs, nothing fetched, so it can be
// kept as a CI artifact and opened anywhere.

#include <fmt/format.h>

#include "report/formats.h"

namespace cclab::report {
namespace {

constexpr const char* kStyle = R"(body{font-family:system-ui,sans-serif;margin:2em;color:#222}
table{border-collapse:collapse;font-size:0.85em;margin-bottom:2em}
th,td{border:1px solid #ccc;padding:2px 6px;white-space:nowrap}
td.num{text-align:right;font-variant-numeric:tabular-nums}
tr.bad td:first-child{color:#b00020;font-weight:bold}
tr.good td:first-child{color:#1b7a1b}
.fail{color:#b00020}.pass{color:#1b7a1b}
figure{display:inline-block;margin:0 1em 1em 0}figure img{max-width:100%}
.note{color:#555})";

}  // namespace

std::string toHtml(const Document& doc, const RenderedCharts& charts) {
  std::string out = fmt::format("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>{0}</title>\n"
                                "<style>\n{1}\n</style>\n</head>\n<body>\n<h1>{0}</h1>\n<p class=\"{2}\"><strong>{3}</strong></p>\n",
                                escapeMarkup(doc.title), kStyle, doc.failed ? "fail" : "pass", escapeMarkup(doc.summary));
  out += "<h2>Charts</h2>\n";
  if (charts.charts.empty()) out += fmt::format("<p class=\"note\">Charts were left out: {}.</p>\n", escapeMarkup(charts.leftOut));
  for (const RenderedChart& chart : charts.charts) {
    out += fmt::format("<figure><img alt=\"{0}\" src=\"data:image/png;base64,{1}\"><figcaption>{0}</figcaption></figure>\n",
                       escapeMarkup(chart.title), base64(chart.png));
  }
  for (const Table& table : doc.tables) {
    const std::vector<std::size_t> shown = shownInTables(table);
    out += fmt::format("<h2>{}</h2>\n<table>\n<thead><tr>", escapeMarkup(table.title));
    for (std::size_t c : shown) out += "<th>" + escapeMarkup(table.columns[c].header) + "</th>";
    out += "</tr></thead>\n<tbody>\n";
    for (const Line& line : table.lines) {
      out += line.tone == Tone::Bad ? "<tr class=\"bad\">" : line.tone == Tone::Good ? "<tr class=\"good\">" : "<tr>";
      for (std::size_t c : shown) {
        out += fmt::format("<td{}>{}</td>", table.columns[c].numeric ? " class=\"num\"" : "", escapeMarkup(line.cells[c].text));
      }
      out += "</tr>\n";
    }
    out += "</tbody>\n</table>\n";
  }
  for (const std::string& note : doc.notes) out += "<p class=\"note\">Note: " + escapeMarkup(note) + "</p>\n";
  out += "</body>\n</html>\n";
  return out;
}

}  // namespace cclab::report
