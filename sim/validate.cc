#include "sim/validate.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include <fmt/format.h>

#include "collectives/errors.h"
#include "sim/predictor.h"

namespace cclab::sim {
ValidationReport validate(const Cluster& cluster, const std::vector<Measurement>& rows) {
  ValidationReport report;
  PredictorsByShape predictors(cluster);
  std::map<std::string, int> unpredicted;
  for (const Measurement& m : rows) {
    const results::Row& r = m.row;
    if (r.timeUs <= 0) continue;
    const Shape shape{r.nranks, m.nodes, m.perDevice, m.emulatedPerNode};
    const Predictor& predictor = predictors.forShape(shape);
    Query q;
    q.collective = r.collective;
    q.bytes = static_cast<double>(r.sizeBytes);
    q.ranks = shape.ranks;
    q.nodes = shape.nodes;
    q.perDevice = shape.perDevice;
    q.emulatedPerNode = shape.emulatedPerNode;
    q.inPlace = r.inPlace;
    q.implementation = r.backend;
    q.algo = r.algo;
    Prediction p;
    try {
      p = predictor.predict(q);
    } catch (const InputError&) {
      // An algorithm the simulator does not model: stand in with its tuner's choice.
      q.algo = kSimulatorPicks;
      p = predictor.predict(q);
      ++unpredicted[r.algo];
    }
    report.rows.push_back(ValidatedRow{&m, p.timeUs, p.algo, p.calibrated, (p.timeUs - r.timeUs) / r.timeUs * 100});
  }
  for (const auto& [algo, count] : unpredicted) {
    report.notes.push_back(fmt::format("{} rows measured algorithm '{}', which the simulator does not model: predicted with auto", count, algo));
  }
  std::vector<results::SizedError> errors;
  for (const auto& v : report.rows) errors.push_back({v.measurement->row.sizeBytes, v.errorPct});
  report.ranges = results::summarizeErrorsBySize(errors);

  std::map<std::tuple<std::string, Collective, std::string>, std::vector<results::SizedError>> byAlgorithm;
  for (const auto& v : report.rows) {
    const results::Row& r = v.measurement->row;
    byAlgorithm[{r.backend, r.collective, r.algo}].push_back({r.sizeBytes, v.errorPct});
  }
  for (const auto& [key, rowErrors] : byAlgorithm) {
    const std::vector<results::ErrorSummary> ranges = results::summarizeErrorsBySize(rowErrors);
    auto range = [&](std::string_view label) {
      return *std::find_if(ranges.begin(), ranges.end(), [&](const results::ErrorSummary& e) { return e.label == label; });
    };
    report.byAlgorithm.push_back({std::get<0>(key), std::get<2>(key), std::get<1>(key), range("< 64 KiB"), range(">= 64 KiB")});
  }
  return report;
}

results::Json toJson(const ValidationReport& report) {
  results::Json rows = results::Json::array();
  for (const auto& v : report.rows) {
    const results::Row& r = v.measurement->row;
    rows.push_back({{"source", v.measurement->source},
                    {"backend", r.backend},
                    {"algo", r.algo},
                    {"collective", std::string(name(r.collective))},
                    {"in_place", r.inPlace},
                    {"nranks", r.nranks},
                    {"nodes", v.measurement->nodes},
                    {"size_bytes", r.sizeBytes},
                    {"measured_time_us", r.timeUs},
                    {"measured_launches", v.measurement->repeats},  // launches this row stands for (mergeRepeats)
                    {"predicted_time_us", v.predictedUs},
                    {"predicted_algo", v.algo},
                    {"calibrated", v.calibrated},
                    {"error_pct", v.errorPct}});
  }
  results::Json ranges = results::Json::array();
  for (const auto& s : report.ranges) ranges.push_back(results::toJson(s));
  results::Json algorithms = results::Json::array();
  for (const auto& a : report.byAlgorithm) {
    algorithms.push_back({{"backend", a.backend},
                          {"collective", std::string(name(a.collective))},
                          {"algo", a.algo},
                          {"below_64KiB", results::toJson(a.small)},
                          {"from_64KiB", results::toJson(a.large)}});
  }
  return {{"summary", ranges}, {"by_algorithm", algorithms}, {"notes", report.notes}, {"rows", rows}};
}

}  // namespace cclab::sim
