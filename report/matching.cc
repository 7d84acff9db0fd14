#include "report/matching.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "collectives/errors.h"
#include "collectives/sizes.h"
#include "results/json_reader.h"
#include "sim/predictor.h"

namespace cclab::report {

std::vector<InputFile> readInputs(const std::vector<std::string>& paths, std::string_view flag) {
  if (paths.empty()) throw InputError(fmt::format("{}: no results files given", flag));
  std::vector<InputFile> files;
  std::map<std::string, std::string> seen;  // the file's bytes -> its first name
  for (const std::string& path : paths) {
    std::string text = results::readTextFile(path, "results file");
    const auto [it, fresh] = seen.emplace(text, path);
    if (!fresh) {
      throw InputError(fmt::format("{}: {} is {} again{}: give each run once", flag, path, it->second,
                                   path == it->second ? "" : " (the same bytes)"));
    }
    files.push_back({path, std::move(text)});
  }
  return files;
}

Side loadSide(const std::vector<InputFile>& files) {
  Side side;
  for (const InputFile& file : files) addToSide(side, results::importResults(file.text, file.path), file.path);
  return side;
}

Side loadSide(const std::vector<std::string>& paths, std::string_view flag) { return loadSide(readInputs(paths, flag)); }

void addToSide(Side& side, const results::Import& imported, const std::string& path) {
  const results::RunInfo& run = imported.file.run;
  if (imported.file.rows.empty()) throw InputError(fmt::format("{}: no result rows", path));
  if (imported.skippedRows > 0) {
    side.notes.push_back(fmt::format("{}: {} rows left out (datatypes or ops cclab does not know)", path, imported.skippedRows));
  }
  LoadedRow loaded;
  loaded.machine = run.gpuModel.empty() ? run.cpuModel : run.gpuModel;
  loaded.source = path;
  if (const auto prediction = results::predictionConfig(run)) {
    loaded.predictedFor = prediction->implementation;
    loaded.tunerAlgo = prediction->algo == sim::kSimulatorPicks;
  }
  for (const results::Row& row : imported.file.rows) {
    loaded.row = row;
    side.rows.push_back(loaded);
  }
}

std::vector<std::string> Sides::notes() const {
  std::vector<std::string> all = first->notes;
  all.insert(all.end(), second->notes.begin(), second->notes.end());
  return all;
}

Key keyOf(const LoadedRow& loaded) {
  const results::Row& r = loaded.row;
  return Key{loaded.machine,
             r.backend,
             r.algo,
             std::string(name(r.collective)),
             std::string(name(r.dtype)),
             r.op ? std::string(name(*r.op)) : "",
             std::to_string(r.root),
             r.inPlace ? "true" : "false",
             std::to_string(r.nranks),
             std::to_string(r.sizeBytes)};
}

std::string& at(Key& key, Field field) { return key[static_cast<std::size_t>(field)]; }
const std::string& at(const Key& key, Field field) { return key[static_cast<std::size_t>(field)]; }

std::vector<Field> parseFields(const std::string& text, std::string_view flag) {
  std::vector<Field> fields;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const std::string item = text.substr(start, comma - start);
    const auto it = std::find(kFieldNames.begin(), kFieldNames.end(), item);
    if (it == kFieldNames.end()) {
      throw InputError(fmt::format("{} '{}': unknown field '{}' (fields: {})", flag, text, item, fmt::join(kFieldNames, ", ")));
    }
    fields.push_back(static_cast<Field>(it - kFieldNames.begin()));
    start = comma + 1;
  }
  return fields;
}

Groups groupRows(const std::vector<LoadedRow>& rows, const std::vector<Field>& ignored) {
  Groups groups;
  for (const LoadedRow& row : rows) {
    Key key = keyOf(row);
    for (Field f : ignored) at(key, f) = kAnyValue;
    groups[key].push_back(&row);
  }
  return groups;
}

double meanTimeUs(const Group& group) {
  double sum = 0;
  for (const LoadedRow* r : group) sum += r->row.timeUs;
  return group.empty() ? 0 : sum / static_cast<double>(group.size());
}

std::string whyUnmatched(const Key& key, const Groups& others, std::string_view othersName) {
  const Key* nearest = nullptr;
  std::size_t fewest = key.size() + 1;
  for (const auto& [other, group] : others) {
    std::size_t differ = 0;
    for (std::size_t i = 0; i < key.size(); ++i) differ += key[i] != other[i];
    if (differ < fewest) {
      fewest = differ;
      nearest = &other;
    }
  }
  // Rows differing in more than a few fields are simply other measurements, not near misses.
  constexpr std::size_t kNearMiss = 2;
  if (nearest == nullptr || fewest > kNearMiss) return fmt::format("no {} row like it", othersName);
  std::vector<std::string> differences;
  for (std::size_t i = 0; i < key.size(); ++i) {
    if (key[i] != (*nearest)[i]) differences.push_back(fmt::format("{} '{}' vs '{}'", kFieldNames[i], key[i], (*nearest)[i]));
  }
  return fmt::format("nearest {} row differs in {}", othersName, fmt::join(differences, ", "));
}

std::string describe(const Key& key) {
  auto known = [&](Field f) { return at(key, f) != kAnyValue; };
  std::string text = at(key, Field::Collective);
  if (known(Field::DataType)) text += " " + at(key, Field::DataType);
  if (known(Field::Op) && !at(key, Field::Op).empty()) text += " " + at(key, Field::Op);
  if (known(Field::Backend) || known(Field::Algo)) text += ", " + at(key, Field::Backend) + "/" + at(key, Field::Algo);
  if (known(Field::Ranks)) text += ", " + at(key, Field::Ranks) + (at(key, Field::Ranks) == "1" ? " rank" : " ranks");
  if (known(Field::Size)) {
    // Exact: 4092 B (an all_gather rounded to 3 ranks' blocks) is not "4.0 KiB".
    const std::uint64_t bytes = std::stoull(at(key, Field::Size));
    const std::string size = describeBytes(bytes);
    text += ", " + (size.find('.') == std::string::npos ? size : fmt::format("{} B", bytes));
  }
  if (known(Field::InPlace)) text += at(key, Field::InPlace) == "true" ? ", in place" : ", out of place";
  if (known(Field::Root) && at(key, Field::Root) != "-1") text += ", root " + at(key, Field::Root);
  return text;
}

}  // namespace cclab::report
