#pragma once

// Runs a command line for end-to-end tests of cclab's tools, capturing its exit code, stdout and
// stderr (through files in a scratch folder).

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace cclab::testing {

struct Outcome {
  int exitCode;
  std::string out;
  std::string err;
};

inline std::string slurp(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

inline Outcome runCommand(const std::string& command, const std::filesystem::path& scratch) {
  const std::string full = command + " >" + (scratch / "out").string() + " 2>" + (scratch / "err").string();
  const int status = std::system(full.c_str());
  return Outcome{WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), slurp(scratch / "out"), slurp(scratch / "err")};
}

}  // namespace cclab::testing
