// ccreport compare's findings as a report document: the summary line, one table line per key.

#include <fmt/format.h>

#include "collectives/sizes.h"
#include "report/charts.h"
#include "report/compare.h"

namespace cclab::report {
namespace {

using Shown = Column::Shown;

std::string changeText(const Comparison& c) {
  const std::string method = c.uTest ? fmt::format("U test p={:.2g}", *c.pValue) : "threshold";
  if (c.judgedOnTime) {
    return fmt::format("time {:+.1f}% ({:.2f} -> {:.2f} us, {})", c.timeChangePct, c.baselineTimeUs, c.currentTimeUs, method);
  }
  if (c.baselineBusbwGBps == 0 && c.currentBusbwGBps == 0) {  // one rank: busbw is 0 by definition, algbw says it
    const std::uint64_t bytes = c.baseline.front()->row.sizeBytes;
    return fmt::format("algbw {:+.1f}% ({:.2f} -> {:.2f} GB/s, {})", c.busbwChangePct, results::algorithmBandwidthGBps(bytes, c.baselineTimeUs),
                       results::algorithmBandwidthGBps(bytes, c.currentTimeUs), method);
  }
  return fmt::format("busbw {:+.1f}% ({:.2f} -> {:.2f} GB/s, {})", c.busbwChangePct, c.baselineBusbwGBps, c.currentBusbwGBps, method);
}

Line lineOf(const Comparison& c, const CompareSettings& settings) {
  const bool matched = !c.baseline.empty() && !c.current.empty();
  auto ifMatched = [&](double value, int decimals) { return matched ? number(value, decimals) : Cell{"", nullptr}; };
  auto keyCell = [&](Field f) { return text(at(c.key, f)); };
  auto intCell = [&](Field f) {
    const std::string& v = at(c.key, f);
    return v == kAnyValue ? text(v) : Cell{v, std::stoll(v)};
  };
  const std::string& op = at(c.key, Field::Op);
  const std::string& inPlace = at(c.key, Field::InPlace);
  Line line;
  line.name = describe(c.key);
  line.cells = {
      text(std::string(name(c.status))),
      text(line.name),
      keyCell(Field::Machine),
      keyCell(Field::Backend),
      keyCell(Field::Algo),
      keyCell(Field::Collective),
      keyCell(Field::DataType),
      op.empty() ? Cell{"", nullptr} : text(op),
      intCell(Field::Root),
      inPlace == kAnyValue ? text(inPlace) : Cell{inPlace, inPlace == "true"},
      intCell(Field::Ranks),
      intCell(Field::Size),
      matched ? text(c.judgedOnTime ? "time" : "busbw") : Cell{"", nullptr},
      ifMatched(c.baselineBusbwGBps, 2),
      ifMatched(c.currentBusbwGBps, 2),
      ifMatched(c.busbwChangePct, 1),
      c.baseline.empty() ? Cell{"", nullptr} : number(c.baselineTimeUs, 2),
      c.current.empty() ? Cell{"", nullptr} : number(c.currentTimeUs, 2),
      ifMatched(c.timeChangePct, 1),
      matched ? text(c.uTest ? "U test" : "threshold") : Cell{"", nullptr},
      c.pValue ? Cell{fmt::format("{:.3g}", *c.pValue), *c.pValue} : Cell{"", nullptr},
      matched ? text(fmt::format("{}/{}", c.baselineSamples, c.currentSamples)) : Cell{"", nullptr},
      Cell{std::to_string(c.baselineSamples), c.baselineSamples},
      Cell{std::to_string(c.currentSamples), c.currentSamples},
      text(c.note),
  };
  switch (c.status) {
    case Status::Regressed:
      line.tone = Tone::Bad;
      line.outcome = Outcome::Failed;
      line.message = c.note.empty() ? changeText(c) : c.note;
      break;
    case Status::Missing:
      line.tone = Tone::Bad;
      line.outcome = settings.allowMissing ? Outcome::Skipped : Outcome::Failed;
      line.message = "missing from current: " + c.note;
      break;
    case Status::Improved:
      line.tone = settings.eitherWay ? Tone::Bad : Tone::Good;
      if (settings.eitherWay) {
        line.outcome = Outcome::Failed;
        line.message = "better past the limits (--either-way): " + changeText(c);
      }
      break;
    case Status::Unchanged:
    case Status::New: break;
  }
  return line;
}

}  // namespace

Document compareDocument(const CompareResult& result, const CompareSettings& settings) {
  Document doc;
  doc.command = "compare";
  doc.title = "ccreport compare: baseline vs current";
  doc.failed = result.failed(settings);
  const int regressed = result.count(Status::Regressed), missing = result.count(Status::Missing);
  doc.summary = fmt::format("{}: {} regressed, {} missing{}, {} unchanged, {} improved, {} new", doc.failed ? "FAIL" : "PASS",
                            regressed, missing, missing && settings.allowMissing ? " (allowed)" : "",
                            result.count(Status::Unchanged), result.count(Status::Improved), result.count(Status::New));
  doc.summaryJson = {{"verdict", doc.failed ? "fail" : "pass"}, {"regressed", regressed}, {"missing", missing},
                     {"unchanged", result.count(Status::Unchanged)}, {"improved", result.count(Status::Improved)},
                     {"new", result.count(Status::New)}, {"worst", nullptr}};
  // The row to name: the worst regression, or with --either-way the largest improvement.
  const Comparison* worst = regressed > 0 ? &result.rows.front() : nullptr;  // sorted worst first
  if (worst == nullptr && settings.eitherWay) {
    for (const Comparison& c : result.rows) {
      if (c.status == Status::Improved && (worst == nullptr || c.worseningPct < worst->worseningPct)) worst = &c;
    }
  }
  if (worst != nullptr) {
    doc.summary += fmt::format("; worst: {}: {}", describe(worst->key), worst->note.empty() ? changeText(*worst) : worst->note);
    doc.summaryJson["worst"] = {{"row", describe(worst->key)}, {"judged", worst->judgedOnTime ? "time" : "busbw"},
                                {"busbw_change_pct", worst->busbwChangePct}, {"time_change_pct", worst->timeChangePct}};
  }
  Json ignored = Json::array();
  for (Field f : settings.ignore) ignored.push_back(kFieldNames[static_cast<std::size_t>(f)]);
  doc.settings = {{"threshold_pct", settings.thresholdPct}, {"alpha", settings.alpha}, {"latency_bytes", settings.latencyBytes},
                  {"min_samples", settings.minSamples},     {"allow_missing", settings.allowMissing}, {"ignore", ignored},
                  {"time_slack_us", settings.timeSlackUs},  {"either_way", settings.eitherWay}};

  Table table;
  table.key = "rows";
  table.title = fmt::format("Rows, worst first (busbw judged from {}, time below it; threshold {}%{}{}, U test at alpha {} with {}+ samples a side)",
                            describeBytes(settings.latencyBytes), settings.thresholdPct,
                            settings.timeSlackUs > 0 ? fmt::format(" and {} us", settings.timeSlackUs) : "",
                            settings.eitherWay ? " either way" : "", settings.alpha, settings.minSamples);
  table.testCases = true;
  table.columns = {
      {"status", "status", Shown::Everywhere, false},
      {"row", "row", Shown::Everywhere, false},
      {"machine", "machine", Shown::JsonOnly, false},
      {"backend", "backend", Shown::JsonOnly, false},
      {"algo", "algo", Shown::JsonOnly, false},
      {"collective", "collective", Shown::JsonOnly, false},
      {"dtype", "dtype", Shown::JsonOnly, false},
      {"op", "op", Shown::JsonOnly, false},
      {"root", "root", Shown::JsonOnly},
      {"in_place", "in place", Shown::JsonOnly, false},
      {"nranks", "ranks", Shown::JsonOnly},
      {"size_bytes", "size (B)", Shown::JsonOnly},
      {"judged", "judged", Shown::Everywhere, false},
      {"baseline_busbw_gbps", "base busbw (GB/s)"},
      {"current_busbw_gbps", "cur busbw (GB/s)"},
      {"busbw_change_pct", "busbw change (%)"},
      {"baseline_time_us", "base time (us)"},
      {"current_time_us", "cur time (us)"},
      {"time_change_pct", "time change (%)"},
      {"method", "method", Shown::Everywhere, false},
      {"p_value", "p"},
      {"samples", "samples", Shown::TablesOnly},
      {"baseline_samples", "baseline samples", Shown::JsonOnly},
      {"current_samples", "current samples", Shown::JsonOnly},
      {"note", "note", Shown::Everywhere, false},
  };
  for (const Comparison& c : result.rows) table.lines.push_back(lineOf(c, settings));
  doc.tables.push_back(std::move(table));
  doc.notes = result.notes;

  std::vector<std::pair<Key, Group>> before, after;
  for (const Comparison& c : result.rows) {
    if (!c.baseline.empty()) before.emplace_back(c.key, c.baseline);
    if (!c.current.empty()) after.emplace_back(c.key, c.current);
  }
  doc.charts = chartsOf({{"baseline", before}, {"current", after}});
  return doc;
}

}  // namespace cclab::report
