#include "sim/descriptions.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "collectives/errors.h"
#include "results/json_reader.h"

namespace cclab::sim {

namespace {

std::filesystem::path& chosenModelsDirectory() {
  static std::filesystem::path chosen;
  return chosen;
}

// The folder of the running executable (/proc/self/exe), empty where that cannot be read.
std::filesystem::path executableDirectory() {
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::filesystem::path() : exe.parent_path();
}

}  // namespace

void setModelsDirectory(const std::filesystem::path& directory) { chosenModelsDirectory() = directory; }

std::filesystem::path modelsDirectory() {
  if (const char* env = std::getenv("CCLAB_MODELS"); env != nullptr && *env != '\0') return env;
  if (!chosenModelsDirectory().empty()) return chosenModelsDirectory();
  // The build tree and an installed tree have the same shape: bin/ccsim beside share/cclab/models.
  return (executableDirectory() / CCLAB_MODELS_FROM_BIN).lexically_normal();
}

std::vector<std::string> descriptionNames(std::string_view folder) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(modelsDirectory() / folder, ec)) {
    if (entry.path().extension() == ".json") names.push_back(entry.path().stem().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

Description readDescription(const std::string& nameOrPath, std::string_view folder, std::string_view kind, std::string_view hint) {
  std::filesystem::path path = nameOrPath;
  const bool looksLikePath = nameOrPath.find('/') != std::string::npos || nameOrPath.ends_with(".json");
  if (!looksLikePath) {
    path = modelsDirectory() / folder / (nameOrPath + ".json");
    std::error_code ec;  // a name too long for a file name is unknown, like any other
    if (!std::filesystem::exists(path, ec)) {
      std::string known;
      for (const auto& n : descriptionNames(folder)) known += fmt::format("{}{}", known.empty() ? "" : ", ", n);
      if (known.empty()) {
        throw InputError(fmt::format("unknown {} '{}': no descriptions in {} (is cclab installed whole? $CCLAB_MODELS names the models folder)",
                                     kind, nameOrPath, (modelsDirectory() / folder).string()));
      }
      throw InputError(fmt::format("unknown {} '{}' (models/{}: {}; {})", kind, nameOrPath, folder, known, hint));
    }
  }
  return Description{results::readJsonFile(path, kind), path};
}

}  // namespace cclab::sim
