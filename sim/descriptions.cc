#include "sim/descriptions.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "collectives/errors.h"

namespace cclab::sim {

std::filesystem::path modelsDirectory() {
  if (const char* env = std::getenv("CCLAB_MODELS"); env != nullptr && *env != '\0') return env;
  return CCLAB_MODELS_DIR;
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
    if (!std::filesystem::exists(path)) {
      std::string known;
      for (const auto& n : descriptionNames(folder)) known += fmt::format("{}{}", known.empty() ? "" : ", ", n);
      throw InputError(fmt::format("unknown {} '{}' (models/{}: {}; {})", kind, nameOrPath, folder, known, hint));
    }
  }
  std::ifstream in(path);
  if (!in) throw InputError(fmt::format("cannot read {} '{}'", kind, path.string()));
  std::stringstream text;
  text << in.rdbuf();
  Description d{results::Json::parse(text.str(), nullptr, /*allow_exceptions=*/false, /*ignore_comments=*/true), path};
  if (d.doc.is_discarded()) throw InputError(fmt::format("{}: not valid JSON", path.string()));
  return d;
}

}  // namespace cclab::sim
