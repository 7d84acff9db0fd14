#pragma once

// One results row <-> one JSON object: shared by the JSON and CSV forms (internal to the library).

#include <string>

#include "results/results.h"

namespace cclab::results {

Json rowToJson(const Row& row);
// `where` names the row in error messages ("rows[3]", "line 7").
Row rowFromJson(const Json& j, const std::string& source, const std::string& where);

// The CSV form's header line and one row's line, each ending in '\n' (toCsv() is the header and
// then every row's line).
std::string csvHeader();
std::string csvLine(const Row& row);

}  // namespace cclab::results
