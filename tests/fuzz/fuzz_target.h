#pragma once

// A fuzz target: a function of one input that must return (or throw cclab::InputError, which is
// how a parser refuses bad input) for every input, however hostile. Anything else (a crash, a
// sanitizer report, another exception, a hang) is a bug.
//
//   CCLAB_FUZZ_TARGET(name) { ... use `input` (std::string_view) ... }
//
// Each target builds two ways: into fuzz_replay (every target; the normal build replays the
// committed corpora under ctest), and with -DCCLAB_FUZZ=ON and clang into fuzz_<name>, a
// libFuzzer binary (scripts/fuzz.sh).

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "collectives/errors.h"

namespace cclab::fuzz {

using Target = void (*)(std::string_view input);
bool registerTarget(const char* name, Target target);

// Runs `parse`; an InputError is the parser refusing bad input, as it should.
template <class Parse>
void expectRefusalOrSuccess(Parse&& parse) {
  try {
    parse();
  } catch (const InputError&) {
  }
}

}  // namespace cclab::fuzz

#ifdef CCLAB_LIBFUZZER
#define CCLAB_FUZZ_LIBFUZZER_ENTRY(function)                                   \
  extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) { \
    function(std::string_view(reinterpret_cast<const char*>(data), size));      \
    return 0;                                                                   \
  }
#else
#define CCLAB_FUZZ_LIBFUZZER_ENTRY(function)
#endif

#define CCLAB_FUZZ_TARGET(name)                                                                           \
  static void cclabFuzz_##name(std::string_view input);                                                   \
  [[maybe_unused]] static const bool cclabFuzzRegistered_##name = cclab::fuzz::registerTarget(#name, cclabFuzz_##name); \
  CCLAB_FUZZ_LIBFUZZER_ENTRY(cclabFuzz_##name)                                                            \
  static void cclabFuzz_##name(std::string_view input)
