// Reads what NVIDIA's nccl-tests print (and ccbench, which prints the same format) and their -J
// JSON, into cclab results rows: one row per size for out-of-place and one for in-place.

#include <charconv>
#include <cmath>
#include <fstream>
#include <limits>
#include <map>
#include <regex>
#include <sstream>
#include <tuple>

#include <fmt/format.h>

#include "results/json_reader.h"
#include "results/results.h"
#include "collectives/errors.h"

namespace cclab::results {
namespace {

struct Side {  // one half of a text row: out-of-place or in-place
  double timeUs;
  double algbw;
  double busbw;
  std::optional<std::int64_t> wrong;
  std::optional<double> iterMin, iterMax, iterP99;
};

// The whole of `text` as a finite number, or nothing (from_chars: no locale, no exceptions).
std::optional<double> number(std::string_view text) {
  double value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || !std::isfinite(value)) return std::nullopt;
  return value;
}

// The whole of `text` as an integer within T's range, or nothing.
template <typename T>
std::optional<T> whole(std::string_view text) {
  T value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

// Rows keyed by what they measured, to number the passes of a repeated sweep (-N).
using RowKey = std::tuple<std::string, std::string, int, int, int, int, int, std::uint64_t, bool>;
RowKey keyOf(const Row& r) {
  return {r.backend, r.algo, static_cast<int>(r.collective), static_cast<int>(r.dtype), r.op ? static_cast<int>(*r.op) : -1,
          r.root, r.nranks, r.sizeBytes, r.inPlace};
}

void numberRepeats(std::vector<Row>& rows) {
  std::map<RowKey, int> seen;
  for (Row& row : rows) row.repeat = seen[keyOf(row)]++;
}

std::string ncclVersionText(int code) {  // 22803 -> "2.28.3"
  return fmt::format("{}.{}.{}", code / 10000, code / 100 % 100, code % 100);
}

// Returns false (and the row is skipped) for datatypes and ops cclab does not know.
bool parseTypeAndOp(const std::string& type, const std::string& op, Row& row) {
  try {
    row.dtype = parseDataType(type);
    if (op != "none") row.op = parseReduceOp(op);
    return true;
  } catch (const InputError&) {
    return false;
  }
}

}  // namespace

Import importNcclTestsText(std::string_view text, const std::string& source) {
  Import result;
  RunInfo& run = result.file.run;
  run.tool = "nccl-tests";
  std::istringstream lines{std::string(text)};
  std::string line;
  std::optional<Collective> collective;
  std::string backend = "nccl";
  std::string algo{kLibraryTunerChose};  // nccl-tests does not say which algorithm NCCL chose
  int iters = 0;
  bool perIterationColumns = false;
  int lineNumber = 0;
  std::vector<int> rowLines;  // the line each row came from, for messages

  static const std::regex versionLine(R"(^# (nccl-tests|ccbench) version (\S+))");
  static const std::regex startLine(R"(^# Collective test starting: (\S+))");
  static const std::regex itersLine(R"(warmup iters: \d+\s+iters: (\d+))");
  static const std::regex rankLine(R"(^#\s+Rank\s+(\d+)\s+Group\s+\d+\s+Pid\s+(\d+)\s+on\s+(\S+)\s+device\s+(-?\d+)\s+\[([^\]]*)\]\s*(.*)$)");
  static const std::regex backendLine(R"(^# Backend: (\S+)\s+algorithm: (\S+))");
  std::smatch m;

  while (std::getline(lines, line)) {
    ++lineNumber;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.starts_with("#")) {
      if (std::regex_search(line, m, versionLine)) {
        run.tool = m[1];
        run.toolVersion = m[2];
      } else if (std::regex_search(line, m, startLine)) {
        try {
          collective = parseCollective(m[1].str());
        } catch (const InputError& e) {
          throw InputError(fmt::format("{}: line {}: {}", source, lineNumber, e.what()));
        }
      } else if (std::regex_search(line, m, rankLine)) {
        auto field = [&](const std::string& text, const char* what, int min) {
          const std::optional<int> value = whole<int>(text);
          if (!value || *value < min || (std::string_view(what) == "rank" && *value >= kMaxRanks)) {
            throw InputError(fmt::format("{}: line {}: {} '{}' is not a number from {} to {}", source, lineNumber, what, text, min,
                                         std::string_view(what) == "rank" ? kMaxRanks - 1 : std::numeric_limits<int>::max()));
          }
          return *value;
        };
        RankPlacement rank;
        rank.rank = field(m[1], "rank", 0);
        rank.pid = field(m[2], "pid", 0);
        rank.host = m[3];
        rank.device = field(m[4], "device", -1);
        const std::string where = m[5];
        if (where.starts_with("core ")) {
          rank.core = field(where.substr(5), "core", 0);
          rank.device = -1;
        } else {
          rank.busId = where;
        }
        rank.deviceName = m[6];
        if (std::none_of(run.ranks.begin(), run.ranks.end(), [&](const RankPlacement& r) { return r.rank == rank.rank; })) {
          run.ranks.push_back(rank);
        }
      } else if (std::regex_search(line, m, backendLine)) {
        backend = m[1];
        algo = m[2];
      } else if (line.find("i_min") != std::string::npos) {
        perIterationColumns = true;
      }
      if (std::regex_search(line, m, itersLine)) {
        const std::optional<int> value = whole<int>(m[1].str());
        if (!value) throw InputError(fmt::format("{}: line {}: iters '{}' is not a number of iterations", source, lineNumber, m[1].str()));
        iters = *value;
      }
      continue;
    }
    // A data row: size count type redop root, then time algbw busbw #wrong per side (plus
    // i_min i_max i_p99 i_cv% per side with -I). Anything else (error reports) is not a row.
    std::istringstream fields(line);
    std::vector<std::string> cells;
    for (std::string cell; fields >> cell;) cells.push_back(cell);
    const std::size_t perSide = perIterationColumns ? 8 : 4;
    if (cells.size() != 5 + 2 * perSide || !whole<std::uint64_t>(cells[0]) || !whole<std::uint64_t>(cells[1])) continue;
    if (!collective) throw InputError(fmt::format("{}: line {}: a result row before any 'Collective test starting' line", source, lineNumber));

    for (int side = 0; side < 2; ++side) {
      const std::size_t at = 5 + static_cast<std::size_t>(side) * perSide;
      auto value = [&](std::size_t i) {
        auto v = number(cells[at + i]);
        if (!v) throw InputError(fmt::format("{}: line {}: '{}' is not a number", source, lineNumber, cells[at + i]));
        return *v;
      };
      Row row;
      row.backend = backend;
      row.algo = algo;
      row.collective = *collective;
      if (!parseTypeAndOp(cells[2], cells[3], row)) {
        ++result.skippedRows;
        continue;
      }
      const std::optional<int> root = whole<int>(cells[4]);
      if (!root) throw InputError(fmt::format("{}: line {}: root '{}' is not a rank", source, lineNumber, cells[4]));
      row.root = *root;
      row.inPlace = (side == 1);
      row.sizeBytes = *whole<std::uint64_t>(cells[0]);
      row.count = *whole<std::uint64_t>(cells[1]);
      row.iters = iters;
      row.timeUs = value(0);
      row.algbwGBps = value(1);
      row.busbwGBps = value(2);
      if (cells[at + 3] != "N/A") {
        const std::optional<std::int64_t> wrong = whole<std::int64_t>(cells[at + 3]);
        if (!wrong) throw InputError(fmt::format("{}: line {}: #wrong '{}' is not a count", source, lineNumber, cells[at + 3]));
        row.wrong = *wrong;
      }
      if (perIterationColumns) {
        row.timeUsMin = value(4);
        row.timeUsMax = value(5);
        row.timeUsP99 = value(6);
      }
      result.file.rows.push_back(row);
      rowLines.push_back(lineNumber);
    }
  }
  summarizeRanks(run);
  if (run.nranks == 0 && !result.file.rows.empty()) {
    throw InputError(fmt::format("{}: no '#  Rank ...' lines, so the rank count is unknown (not whole nccl-tests output?)", source));
  }
  for (std::size_t i = 0; i < result.file.rows.size(); ++i) {
    Row& row = result.file.rows[i];
    row.nranks = run.nranks;
    checkRow(row, source, fmt::format("line {}", rowLines[i]));
  }
  numberRepeats(result.file.rows);
  if (result.file.rows.empty() && result.skippedRows == 0) {
    throw InputError(fmt::format("{}: no result rows found (not nccl-tests or ccbench output?)", source));
  }
  return result;
}

Import importNcclTestsJson(const Json& doc, const std::string& source) {
  Import result;
  RunInfo& run = result.file.run;
  const JsonReader top(doc, source);
  if (!doc.is_object() || !top.has("results")) throw InputError(fmt::format("{}: no 'results' list (not nccl-tests -J output?)", source));
  const Json& args = top.array("args");
  if (args.empty()) top.fail("args", "empty: expected the test program first");
  if (!args[0].is_string()) top.fail("args[0]", fmt::format("expected the test program's path, found {}", quoted(args[0])));
  std::string program = args[0].get<std::string>();
  program = program.substr(program.find_last_of('/') + 1);
  Collective collective{};
  try {
    collective = parseCollective(program);
  } catch (const InputError& e) {
    top.fail("args[0]", e.what());
  }
  run.tool = "nccl-tests";
  for (const auto& arg : args) run.command.push_back(arg.is_string() ? arg.get<std::string>() : dumpJson(arg));
  run.startTime = top.get<std::string>("start_time", "");
  run.endTime = top.get<std::string>("end_time", "");
  if (auto code = top.optional<int>("nccl_version")) run.ncclVersion = ncclVersionText(*code);
  int iters = 0;
  if (top.has("config")) {
    const JsonReader config = top.child("config");
    run.config = config.json();
    iters = config.within<int>("iterations", 0, std::numeric_limits<int>::max(), 0);
    if (config.has("devices")) {
      for (std::size_t i = 0; i < config.array("devices").size(); ++i) {
        const JsonReader d = config.element("devices", i);
        RankPlacement rank;
        rank.rank = d.within<int>("rank", 0, kMaxRanks - 1, 0);
        rank.pid = d.get<int>("pid", 0);
        rank.host = d.get<std::string>("hostname", "");
        rank.device = d.get<int>("device", -1);
        rank.busId = d.get<std::string>("device_hex", "");
        rank.deviceName = d.get<std::string>("device_info", "");
        run.ranks.push_back(rank);
      }
    }
  }
  summarizeRanks(run);

  const Json& rows = top.array("results");
  if (run.nranks == 0 && !rows.empty()) top.fail("config.devices", "missing or empty, so the rank count is unknown");
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const JsonReader r = top.element("results", i);
    for (const char* sideName : {"out_of_place", "in_place"}) {
      if (!r.has(sideName)) continue;
      const JsonReader side = r.child(sideName);
      Row row;
      row.backend = "nccl";
      row.algo = kLibraryTunerChose;
      row.collective = collective;
      if (!parseTypeAndOp(r.get<std::string>("type", ""), r.get<std::string>("redop", "none"), row)) {
        ++result.skippedRows;
        continue;
      }
      // nccl-tests writes the root as a number or as text ("-1").
      if (r.has("root") && r.required("root").is_string()) {
        std::string text = r.get<std::string>("root");
        text.erase(0, text.find_first_not_of(' '));  // nccl-tests pads it: "    -1"
        const std::optional<int> root = whole<int>(text);
        if (!root) r.fail("root", fmt::format("expected a rank, found {}", quoted(r.required("root"))));
        row.root = *root;
      } else {
        row.root = r.get<int>("root", -1);
      }
      row.inPlace = std::string(sideName) == "in_place";
      row.sizeBytes = r.get<std::uint64_t>("size", 0);
      row.count = r.get<std::uint64_t>("count", 0);
      row.nranks = run.nranks;
      row.iters = r.get<int>("actual_iterations", iters);
      row.timeUs = side.has("time") ? side.get<double>("time") : side.get<double>("cpu_time", 0.0);
      row.algbwGBps = side.get<double>("alg_bw", 0.0);
      row.busbwGBps = side.get<double>("bus_bw", 0.0);
      if (side.has("nwrong")) {
        const double wrong = side.get<double>("nwrong");
        if (wrong < 0 || wrong > 1e18 || wrong != std::floor(wrong)) side.fail("nwrong", fmt::format("expected a count, found {}", wrong));
        row.wrong = static_cast<std::int64_t>(wrong);
      }
      const std::string perIter = std::string(sideName) + "_per_iter";
      if (r.has(perIter)) {
        const JsonReader stats = r.child(perIter);
        row.timeUsMin = stats.get<double>("min_us", 0.0);
        row.timeUsMax = stats.get<double>("max_us", 0.0);
        row.timeUsP50 = stats.get<double>("p50_us", 0.0);
        row.timeUsP99 = stats.get<double>("p99_us", 0.0);
        if (stats.has("times_us")) {
          const Json& times = stats.array("times_us");
          for (std::size_t k = 0; k < times.size(); ++k) {
            if (!times[k].is_number()) stats.fail(fmt::format("times_us[{}]", k), fmt::format("expected a number, found {}", quoted(times[k])));
            row.iterTimesUs.push_back(times[k].get<double>());
          }
        }
      }
      checkRow(row, source, fmt::format("results[{}].{}", i, sideName));
      result.file.rows.push_back(row);
    }
  }
  numberRepeats(result.file.rows);
  return result;
}

Import readResults(const std::filesystem::path& path) { return importResults(readTextFile(path, "results file"), path.string()); }

Import importResults(std::string_view text, const std::string& source) {
  const std::size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) throw InputError(fmt::format("{}: the file is empty", source));
  if (text[first] == '{') {
    const Json doc = parseJson(text, source);
    if (doc.contains("schema")) return Import{fromJson(doc, source), 0};
    if (!doc.contains("results")) {
      throw InputError(fmt::format("{}: not a results file: neither cclab's schema (a 'schema' field) nor nccl-tests -J output (a 'results' list)", source));
    }
    return importNcclTestsJson(doc, source);
  }
  if (text[first] == '#') return importNcclTestsText(text, source);
  if (text.compare(first, 8, "backend,") == 0) {
    Import result;
    result.file.rows = rowsFromCsv(text.substr(first), source);
    return result;
  }
  throw InputError(fmt::format("{}: not a cclab results file (JSON or CSV) nor nccl-tests output", source));
}

}  // namespace cclab::results
