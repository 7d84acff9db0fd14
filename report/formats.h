#pragma once

// The output formats of a report, each from the same document: a terminal table, GitHub-flavoured
// Markdown (a CI job summary), JUnit XML (one test case per row, a failure per regression), JSON,
// and a self-contained HTML page.

#include <string>

#include "report/charts.h"
#include "report/document.h"

namespace cclab::report {

std::string toTerminal(const Document& doc, bool colour);
std::string toMarkdown(const Document& doc);
std::string toJUnit(const Document& doc);
Json toJson(const Document& doc);
std::string toHtml(const Document& doc, const RenderedCharts& charts);

// The columns a table shows (all but the JSON-only ones).
std::vector<std::size_t> shownInTables(const Table& table);

}  // namespace cclab::report
