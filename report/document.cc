#include "report/document.h"

#include <fmt/format.h>

namespace cclab::report {

Cell number(double value, int decimals) { return Cell{fmt::format("{:.{}f}", value, decimals), value}; }

Cell number(std::optional<double> value, int decimals) { return value ? number(*value, decimals) : Cell{"", nullptr}; }

Cell text(std::string value) { return Cell{value, value}; }

std::string escapeMarkup(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

}  // namespace cclab::report
