#include <fmt/format.h>

#include "results/json_reader.h"
#include "results/results.h"
#include "results/row_json.h"
#include "results/training_record.h"
#include "collectives/errors.h"

namespace cclab::results {
namespace {

using json = Json;

using Reader = JsonReader;

json optionalJson(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

json rankToJson(const RankPlacement& r) {
  return {{"rank", r.rank}, {"host", r.host}, {"pid", r.pid}, {"core", r.core},
          {"device", r.device}, {"device_name", r.deviceName}, {"bus_id", r.busId}};
}

}  // namespace

json rowToJson(const Row& row) {
  json j = {
      {"backend", row.backend},
      {"algo", row.algo},
      {"collective", std::string(name(row.collective))},
      {"dtype", std::string(name(row.dtype))},
      {"op", row.op ? json(std::string(name(*row.op))) : json(nullptr)},
      {"root", row.root},
      {"in_place", row.inPlace},
      {"size_bytes", row.sizeBytes},
      {"count", row.count},
      {"nranks", row.nranks},
      {"repeat", row.repeat},
      {"iters", row.iters},
      {"time_us", row.timeUs},
      {"time_us_min", optionalJson(row.timeUsMin)},
      {"time_us_max", optionalJson(row.timeUsMax)},
      {"time_us_p50", optionalJson(row.timeUsP50)},
      {"time_us_p99", optionalJson(row.timeUsP99)},
      {"algbw_gbps", row.algbwGBps},
      {"busbw_gbps", row.busbwGBps},
      {"wrong", row.wrong ? json(*row.wrong) : json(nullptr)},
  };
  if (!row.iterTimesUs.empty()) j["iter_times_us"] = row.iterTimesUs;
  return j;
}

Row rowFromJson(const json& j, const std::string& source, const std::string& where) {
  Reader in(j, source, where);
  Row row;
  row.backend = in.get<std::string>("backend");
  row.algo = in.get<std::string>("algo");
  // The names, read by the reader (which names the field on error), then looked up.
  const std::string collective = in.get<std::string>("collective"), dtype = in.get<std::string>("dtype");
  const std::optional<std::string> op = in.optional<std::string>("op");
  try {
    row.collective = parseCollective(collective);
    row.dtype = parseDataType(dtype);
    if (op) row.op = parseReduceOp(*op);
  } catch (const InputError& e) {
    throw InputError(fmt::format("{}: {}: {}", source, where, e.what()));
  }
  row.root = in.get<int>("root", -1);
  row.inPlace = in.get<bool>("in_place");
  row.sizeBytes = in.get<std::uint64_t>("size_bytes");
  row.count = in.get<std::uint64_t>("count", 0);
  row.nranks = in.get<int>("nranks");
  row.repeat = in.get<int>("repeat", 0);
  row.iters = in.get<int>("iters", 0);
  row.timeUs = in.get<double>("time_us");
  row.timeUsMin = in.optional<double>("time_us_min");
  row.timeUsMax = in.optional<double>("time_us_max");
  row.timeUsP50 = in.optional<double>("time_us_p50");
  row.timeUsP99 = in.optional<double>("time_us_p99");
  row.algbwGBps = in.get<double>("algbw_gbps");
  row.busbwGBps = in.get<double>("busbw_gbps");
  row.wrong = in.optional<std::int64_t>("wrong");
  if (in.has("iter_times_us")) {
    const Json& times = in.array("iter_times_us");
    for (std::size_t i = 0; i < times.size(); ++i) {
      if (!times[i].is_number()) in.fail(fmt::format("iter_times_us[{}]", i), fmt::format("expected a number, found {}", quoted(times[i])));
      row.iterTimesUs.push_back(times[i].get<double>());
    }
  }
  checkRow(row, source, where);
  return row;
}

json toJson(const ResultsFile& file) {
  const RunInfo& run = file.run;
  json ranks = json::array();
  for (const auto& r : run.ranks) ranks.push_back(rankToJson(r));
  json rows = json::array();
  for (const auto& row : file.rows) rows.push_back(rowToJson(row));
  return {
      {"schema", kSchemaName},
      {"schema_version", kSchemaVersion},
      {"run",
       {{"tool", run.tool},
        {"tool_version", run.toolVersion},
        {"command", run.command},
        {"start_time", run.startTime},
        {"end_time", run.endTime},
        {"git_commit", run.gitCommit},
        {"machine",
         {{"host", run.host}, {"cpu_model", run.cpuModel}, {"cpu_cores", run.cpuCores}, {"cpu_family", run.cpuFamily},
          {"memory_bytes", run.memoryBytes}, {"os", run.os}, {"gpu_model", run.gpuModel}}},
        {"software", {{"mpi", run.mpiVersion}, {"nccl", run.ncclVersion}, {"cuda", run.cudaVersion}}},
        {"nranks", run.nranks},
        {"nodes", run.nodes},
        {"ranks", ranks},
        {"config", run.config}}},
      {"rows", rows},
  };
}

ResultsFile fromJson(const json& doc, const std::string& source) {
  Reader top(doc, source, "");
  const std::string schema = top.get<std::string>("schema");
  if (schema == kTrainingSchema) top.fail("schema", fmt::format("\"{}\" is a training measurement, not collective results", schema));
  if (schema != kSchemaName) top.fail("schema", fmt::format("expected \"{}\"", kSchemaName));
  const int version = top.get<int>("schema_version");
  if (version < 1 || version > kSchemaVersion) {
    top.fail("schema_version", fmt::format("version {} is not supported (this build reads 1 to {})", version, kSchemaVersion));
  }
  ResultsFile file;
  RunInfo& run = file.run;
  Reader in = top.child("run");
  run.tool = in.get<std::string>("tool");
  run.toolVersion = in.get<std::string>("tool_version", "");
  if (in.has("command")) {
    for (const auto& arg : in.array("command")) run.command.push_back(arg.is_string() ? arg.get<std::string>() : dumpJson(arg));
  }
  run.startTime = in.get<std::string>("start_time", "");
  run.endTime = in.get<std::string>("end_time", "");
  run.gitCommit = in.get<std::string>("git_commit", "");
  Reader machine = in.child("machine");
  run.host = machine.get<std::string>("host");
  run.cpuModel = machine.get<std::string>("cpu_model", "");
  run.cpuCores = machine.get<int>("cpu_cores", 0);
  run.cpuFamily = machine.get<int>("cpu_family", 0);
  run.memoryBytes = machine.get<std::uint64_t>("memory_bytes", 0);
  run.os = machine.get<std::string>("os", "");
  run.gpuModel = machine.get<std::string>("gpu_model", "");
  if (in.has("software")) {
    Reader software = in.child("software");
    run.mpiVersion = software.get<std::string>("mpi", "");
    run.ncclVersion = software.get<std::string>("nccl", "");
    run.cudaVersion = software.get<std::string>("cuda", "");
  }
  // The run's totals (0: not known, as in files assembled from rows); each row has its own nranks.
  run.nranks = in.within<int>("nranks", 0, kMaxRanks);
  run.nodes = in.within<int>("nodes", 0, kMaxRanks, 1);
  if (in.has("ranks")) {
    for (std::size_t i = 0; i < in.array("ranks").size(); ++i) {
      const Reader r = in.element("ranks", i);
      run.ranks.push_back(RankPlacement{r.within<int>("rank", 0, kMaxRanks - 1), r.get<std::string>("host", ""), r.get<int>("pid", 0),
                                        r.get<int>("core", -1), r.get<int>("device", -1),
                                        r.get<std::string>("device_name", ""), r.get<std::string>("bus_id", "")});
    }
  }
  if (in.has("config")) run.config = in.required("config");

  const json& rows = top.array("rows");
  for (std::size_t i = 0; i < rows.size(); ++i) file.rows.push_back(rowFromJson(rows[i], source, fmt::format("rows[{}]", i)));
  return file;
}

}  // namespace cclab::results
