#include <map>
#include <string>

#include "tests/fuzz/fuzz_target.h"

namespace cclab::fuzz {

std::map<std::string, Target>& targets() {
  static std::map<std::string, Target> all;
  return all;
}

bool registerTarget(const char* name, Target target) {
  targets()[name] = target;
  return true;
}

}  // namespace cclab::fuzz
