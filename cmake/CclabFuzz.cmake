# -DCCLAB_FUZZ=ON: build the libFuzzer targets (tests/fuzz/) with clang, every cclab library
# instrumented for coverage and checked by AddressSanitizer and UBSan. Off by default: the normal
# build replays the fuzz corpora instead. scripts/fuzz.sh configures such a build in build-fuzz/.
option(CCLAB_FUZZ "Build the libFuzzer targets (needs clang; scripts/fuzz.sh)" OFF)
if(CCLAB_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "CCLAB_FUZZ needs clang (libFuzzer): configure with -DCMAKE_CXX_COMPILER=clang++ (scripts/fuzz.sh does)")
  endif()
  add_compile_options(-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer -g)
  add_link_options(-fsanitize=address,undefined)
  cclab_report("fuzzing" "on (libFuzzer + ASan + UBSan targets in tests/fuzz)")
endif()
