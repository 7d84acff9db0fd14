// CSV is the JSON row flattened: the same names and values, one row per line, so a CSV row and a
// JSON row are read and written by the same two functions (rowToJson / rowFromJson).

#include <sstream>

#include <fmt/format.h>

#include "results/json_reader.h"
#include "results/results.h"
#include "results/row_json.h"
#include "collectives/errors.h"

namespace cclab::results {

namespace {

using json = Json;

// The columns, in order: every JSON row field except the per-iteration list.
std::vector<std::string> columns() {
  const json sample = rowToJson(Row{});
  std::vector<std::string> names;
  for (const auto& [key, value] : sample.items()) names.push_back(key);
  return names;
}

std::string cell(const json& value) {
  if (value.is_null()) return "";
  if (value.is_string()) return value.get<std::string>();
  return dumpJson(value);
}

std::vector<std::string> splitLine(std::string_view line) {
  std::vector<std::string> cells;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = line.find(',', start);
    cells.emplace_back(line.substr(start, comma - start));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  if (!cells.empty() && !cells.back().empty() && cells.back().back() == '\r') cells.back().pop_back();
  return cells;
}

json parseCell(const std::string& text) {
  if (text.empty()) return nullptr;
  if (text == "true") return true;
  if (text == "false") return false;
  // A number as JSON reads it (whole numbers stay whole, so 64-bit sizes keep every digit);
  // anything else stays text and is judged by the column's reader.
  if (text.find_first_not_of("0123456789+-.eE") == std::string::npos && text.size() < 64) {
    const json number = json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (number.is_number()) return number;
  }
  return json(text);
}

}  // namespace

namespace {

const std::vector<std::string>& columnNames() {
  static const std::vector<std::string> names = columns();
  return names;
}

}  // namespace

std::string csvHeader() {
  std::string out;
  for (const std::string& name : columnNames()) out += (out.empty() ? "" : ",") + name;
  return out + '\n';
}

std::string csvLine(const Row& row) {
  const json j = rowToJson(row);
  std::string out;
  const std::vector<std::string>& names = columnNames();
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out += ',';
    out += cell(j.at(names[i]));
  }
  return out + '\n';
}

std::string toCsv(const std::vector<Row>& rows) {
  std::string out = csvHeader();
  for (const Row& row : rows) out += csvLine(row);
  return out;
}

std::vector<Row> rowsFromCsv(std::string_view text, const std::string& source) {
  std::istringstream lines{std::string(text)};
  std::string line;
  if (!std::getline(lines, line)) throw InputError(fmt::format("{}: empty CSV file", source));
  const std::vector<std::string> header = splitLine(line);
  std::vector<Row> rows;
  int lineNumber = 1;
  while (std::getline(lines, line)) {
    ++lineNumber;
    if (line.empty()) continue;
    const std::vector<std::string> cells = splitLine(line);
    if (cells.size() != header.size()) {
      throw InputError(fmt::format("{}: line {}: {} cells, but the header has {}", source, lineNumber, cells.size(), header.size()));
    }
    json j = json::object();
    for (std::size_t i = 0; i < header.size(); ++i) {
      // Name-like columns stay strings even when they look like numbers.
      const bool text = header[i] == "backend" || header[i] == "algo" || header[i] == "collective" ||
                        header[i] == "dtype" || header[i] == "op";
      j[header[i]] = text && !cells[i].empty() ? json(cells[i]) : parseCell(cells[i]);
    }
    rows.push_back(rowFromJson(j, source, fmt::format("line {}", lineNumber)));
  }
  return rows;
}

}  // namespace cclab::results
