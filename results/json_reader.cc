#include "results/json_reader.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

namespace cclab::results {
namespace {

// The deepest nesting of `text`, counting brackets outside strings and comments; stops counting
// once past kMaxJsonDepth (the parser never sees such a document).
int nestingDepth(std::string_view text) {
  int depth = 0, deepest = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '"') {  // a string: skip to its closing quote, past escapes
      for (++i; i < text.size() && text[i] != '"'; ++i) {
        if (text[i] == '\\') ++i;
      }
    } else if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') {
      while (i < text.size() && text[i] != '\n') ++i;
    } else if (c == '/' && i + 1 < text.size() && text[i + 1] == '*') {
      const std::size_t end = text.find("*/", i + 2);
      i = end == std::string_view::npos ? text.size() : end + 1;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
      if (deepest > kMaxJsonDepth) return deepest;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return deepest;
}

}  // namespace

Json parseJson(std::string_view text, const std::string& source) {
  if (nestingDepth(text) > kMaxJsonDepth) throw InputError(fmt::format("{}: nested deeper than {} levels", source, kMaxJsonDepth));
  // A key twice in one object: the parser would keep the last, silently (a plan's "gpus": 8 and
  // "gpus": 16); refused instead, naming it.
  std::vector<std::set<std::string>> keys;  // of each object open at this point of the text
  std::string repeated;
  const Json::parser_callback_t checkKeys = [&](int, Json::parse_event_t event, Json& parsed) {
    if (event == Json::parse_event_t::object_start) keys.emplace_back();
    if (event == Json::parse_event_t::object_end && !keys.empty()) keys.pop_back();
    if (event == Json::parse_event_t::key && !keys.empty() && !keys.back().insert(parsed.get<std::string>()).second && repeated.empty()) {
      repeated = parsed.get<std::string>();
    }
    return true;
  };
  try {
    Json parsed = Json::parse(text, checkKeys, /*allow_exceptions=*/true, /*ignore_comments=*/true);
    if (!repeated.empty()) throw InputError(fmt::format("{}: the key \"{}\" appears twice in one object", source, repeated));
    return parsed;
  } catch (const Json::parse_error& e) {
    // The line and column of the byte the parser stopped at (e.byte counts from 1).
    const std::size_t at = std::min<std::size_t>(e.byte > 0 ? e.byte - 1 : 0, text.size());
    const std::string_view before = text.substr(0, at);
    const std::size_t line = 1 + static_cast<std::size_t>(std::count(before.begin(), before.end(), '\n'));
    const std::size_t lineStart = before.find_last_of('\n');
    const std::size_t column = at - (lineStart == std::string_view::npos ? 0 : lineStart + 1) + 1;
    throw InputError(fmt::format("{}: not valid JSON (line {}, column {})", source, line, column));
  } catch (const Json::out_of_range&) {  // a number beyond a double's range: 1e999
    throw InputError(fmt::format("{}: not valid JSON (a number out of range)", source));
  }
}

std::string readTextFile(const std::filesystem::path& path, std::string_view what) {
  const std::string name = path.string();
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (!std::filesystem::exists(status)) throw InputError(fmt::format("{} '{}': no such file", what, name));
  if (std::filesystem::is_directory(status)) throw InputError(fmt::format("{} '{}': is a directory, not a file", what, name));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(fmt::format("cannot read {} '{}': {}", what, name, std::strerror(errno)));
  std::stringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) throw InputError(fmt::format("cannot read {} '{}': {}", what, name, std::strerror(errno)));
  std::string text = buffer.str();
  if (text.find_first_not_of(" \t\r\n") == std::string::npos) throw InputError(fmt::format("{}: the file is empty", name));
  return text;
}

Json readJsonFile(const std::filesystem::path& path, std::string_view what) { return parseJson(readTextFile(path, what), path.string()); }

std::string dumpJson(const Json& value, int indent) { return value.dump(indent, ' ', false, Json::error_handler_t::replace); }

std::string quoted(const Json& value) {
  constexpr std::size_t kLongest = 60;
  std::string text = dumpJson(value);
  if (text.size() <= kLongest) return text;
  std::size_t cut = kLongest;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;  // not inside a UTF-8 sequence
  return text.substr(0, cut) + "...";
}

}  // namespace cclab::results
