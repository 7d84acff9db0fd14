#pragma once

// Rows of two sides (baseline and current, or predicted and measured) matched on what makes them
// comparable. Every row with the same key is one more sample of the same point: repeated sweeps
// (-N), several files per side.

#include <array>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "results/results.h"

namespace cclab::report {

struct LoadedRow {
  results::Row row;
  std::string machine;       // the GPU model, else the CPU model; "" where the file does not say (CSV)
  std::string source;        // the file it came from
  std::string predictedFor;  // ccsim predictions: the implementation whose calibration priced it (--impl)
  bool tunerAlgo = false;    // ccsim predictions with --algo auto: the algo is the simulator's pick
};

struct Side {
  std::vector<LoadedRow> rows;
  std::vector<std::string> notes;
};

// The two sides of a report. Shared, so that every copy of a result keeps alive the rows its
// groups point to.
struct Sides {
  std::shared_ptr<const Side> first, second;
  Sides() = default;
  Sides(Side a, Side b) : first(std::make_shared<const Side>(std::move(a))), second(std::make_shared<const Side>(std::move(b))) {}
  std::vector<std::string> notes() const;  // both sides' notes
};

// One input file, read once: its name and its bytes.
struct InputFile {
  std::string path;
  std::string text;
};

// Reads each of one side's files once. Throws InputError naming `flag` when no file is given, when
// one is unreadable, or when one is given twice, by name or as a copy of the same bytes: its rows
// would count twice, and a test of significance would take the repeats as independent samples.
std::vector<InputFile> readInputs(const std::vector<std::string>& paths, std::string_view flag);

// The files' rows through the results library. Throws InputError naming the file when it is of an
// unknown format or has no rows.
Side loadSide(const std::vector<InputFile>& files);
// readInputs, then loadSide.
Side loadSide(const std::vector<std::string>& paths, std::string_view flag);
// Adds one imported file's rows to `side` (what loadSide does for each file it reads).
void addToSide(Side& side, const results::Import& imported, const std::string& path);

// The fields a match needs equal, in the order rows are described.
enum class Field { Machine, Backend, Algo, Collective, DataType, Op, Root, InPlace, Ranks, Size };
inline constexpr std::array<std::string_view, 10> kFieldNames = {"machine", "backend", "algo",    "collective", "dtype",
                                                                  "op",      "root",    "in_place", "nranks",     "size_bytes"};
inline constexpr std::string_view kAnyValue = "*";  // a field left out of the match

using Key = std::array<std::string, kFieldNames.size()>;
Key keyOf(const LoadedRow& row);
std::string& at(Key& key, Field field);
const std::string& at(const Key& key, Field field);

// "backend,machine" -> the fields; throws InputError naming `flag` for an unknown name.
std::vector<Field> parseFields(const std::string& text, std::string_view flag);

using Group = std::vector<const LoadedRow*>;
using Groups = std::map<Key, Group>;
// Groups rows by key, with the `ignored` fields set to kAnyValue.
Groups groupRows(const std::vector<LoadedRow>& rows, const std::vector<Field>& ignored);

// The mean of the rows' mean times (repeats and files weigh the same).
double meanTimeUs(const Group& group);

// Why `key` found no partner among `others`: the nearest key and the fields that differ.
std::string whyUnmatched(const Key& key, const Groups& others, std::string_view othersName);

// "all_reduce float sum, mpi/native, 4 ranks, 1 MiB, out of place": the row as a test case name.
std::string describe(const Key& key);

}  // namespace cclab::report
