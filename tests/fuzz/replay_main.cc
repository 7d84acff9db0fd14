// fuzz_replay <target> <file or folder>...: runs a fuzz target on every file given (folders: every
// file below them), as the normal build's regression test of the committed corpora. Exits 0 when
// every input returns or is refused with an InputError; a crash or any other exception fails,
// after naming the input.

#include <algorithm>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "tests/fuzz/fuzz_target.h"

namespace cclab::fuzz {
std::map<std::string, Target>& targets();
}

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  auto& targets = cclab::fuzz::targets();
  if (argc < 3 || !targets.count(argv[1])) {
    std::string names;
    for (const auto& [name, target] : targets) names += " " + name;
    std::fprintf(stderr, "usage: fuzz_replay <target> <file or folder>...\ntargets:%s\n", names.c_str());
    return 2;
  }
  const cclab::fuzz::Target target = targets.at(argv[1]);
  // Absolute paths: a target may change the working directory (ccsim_cli runs in a scratch one).
  std::vector<fs::path> inputs;
  for (int i = 2; i < argc; ++i) {
    if (fs::is_directory(argv[i])) {
      for (const auto& entry : fs::recursive_directory_iterator(argv[i])) {
        if (entry.is_regular_file()) inputs.push_back(fs::absolute(entry.path()));
      }
    } else {
      inputs.push_back(fs::absolute(argv[i]));
    }
  }
  std::sort(inputs.begin(), inputs.end());
  for (const fs::path& input : inputs) {
    std::ifstream in(input, std::ios::binary);
    if (!in) {
      std::fprintf(stderr, "fuzz_replay %s: cannot read %s\n", argv[1], input.c_str());
      return 1;
    }
    std::stringstream bytes;
    bytes << in.rdbuf();
    const std::string data = bytes.str();
    try {
      target(data);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "fuzz_replay %s: %s: uncaught exception: %s\n", argv[1], input.c_str(), e.what());
      return 1;
    }
  }
  std::fprintf(stderr, "fuzz_replay %s: %zu inputs, every one handled\n", argv[1], inputs.size());  // stderr: a target may silence stdout
  return inputs.empty() ? 1 : 0;
}
