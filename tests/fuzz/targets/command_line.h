#pragma once

// A fuzz input as a command line: the lines of the input are the arguments (at most 40, each at
// most 200 bytes; a NUL ends an argument early, as it would in argv).

#include <string>
#include <string_view>
#include <vector>

namespace cclab::fuzz {

struct CommandLine {
  std::vector<std::string> args;  // args[0] is the tool
  // argv for args, ending in a null pointer (made when asked: pointers into args must be taken
  // after the strings stopped moving).
  std::vector<const char*> argv() const {
    std::vector<const char*> pointers;
    for (const std::string& a : args) pointers.push_back(a.c_str());
    pointers.push_back(nullptr);
    return pointers;
  }
};

inline CommandLine commandLine(std::string_view tool, std::string_view input) {
  CommandLine c;
  c.args.emplace_back(tool);
  std::size_t start = 0;
  while (start <= input.size() && c.args.size() <= 40) {
    const std::size_t end = std::min(input.find('\n', start), input.size());
    std::string arg(input.substr(start, std::min<std::size_t>(end - start, 200)));
    arg = arg.substr(0, arg.find('\0'));
    c.args.push_back(arg);
    start = end + 1;
  }
  return c;
}

}  // namespace cclab::fuzz
