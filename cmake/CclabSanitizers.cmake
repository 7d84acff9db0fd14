# Sanitizer builds (docs/reliability.md, "Sanitizers"):
#   -DCCLAB_SANITIZE=address,undefined   AddressSanitizer (with LeakSanitizer) and UBSan
#   -DCCLAB_SANITIZE=thread              ThreadSanitizer
# A list (commas or semicolons) of address, undefined and thread; thread cannot be combined with
# address. Every target defined after this file is included (every cclab library, tool, test and
# benchmark) compiles and links with -fsanitize=<list> -fno-omit-frame-pointer -g1, and UBSan with
# -fno-sanitize-recover=undefined, so undefined behaviour ends the process and fails the test.
# C++ only: nvcc's CUDA sources keep their own flags (scripts/sanitize.sh builds with CUDA off).
# The tests then run with the options and suppressions of tests/sanitizers/ (tests/CMakeLists.txt).

set(CCLAB_SANITIZE "" CACHE STRING
    "Sanitizers for every cclab target: address,undefined or thread (a list; empty: none)")

set(CCLAB_SANITIZERS "")   # the validated list, e.g. "address;undefined"
if(NOT CCLAB_SANITIZE STREQUAL "")
  string(REPLACE "," ";" _cclab_sanitize "${CCLAB_SANITIZE}")
  set(_cclab_sanitize_known address undefined thread)
  foreach(_sanitizer IN LISTS _cclab_sanitize)
    string(STRIP "${_sanitizer}" _sanitizer)
    string(TOLOWER "${_sanitizer}" _sanitizer)
    if(_sanitizer STREQUAL "")
      continue()
    endif()
    if(NOT _sanitizer IN_LIST _cclab_sanitize_known)
      message(FATAL_ERROR "CCLAB_SANITIZE='${CCLAB_SANITIZE}': unknown sanitizer '${_sanitizer}'. "
                          "Use address,undefined (ASan + LSan + UBSan) or thread (TSan); "
                          "each of address, undefined and thread may also be given alone.")
    endif()
    if(NOT _sanitizer IN_LIST CCLAB_SANITIZERS)
      list(APPEND CCLAB_SANITIZERS ${_sanitizer})
    endif()
  endforeach()
  if(CCLAB_SANITIZERS STREQUAL "")
    message(FATAL_ERROR "CCLAB_SANITIZE='${CCLAB_SANITIZE}' names no sanitizer. "
                        "Use address,undefined or thread, or leave it empty for none.")
  endif()
  if("address" IN_LIST CCLAB_SANITIZERS AND "thread" IN_LIST CCLAB_SANITIZERS)
    message(FATAL_ERROR "CCLAB_SANITIZE='${CCLAB_SANITIZE}': thread cannot be combined with address "
                        "(GCC and Clang refuse -fsanitize=address,thread). Configure two build "
                        "directories: -DCCLAB_SANITIZE=address,undefined and -DCCLAB_SANITIZE=thread.")
  endif()
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
    message(FATAL_ERROR "CCLAB_SANITIZE needs GCC or Clang (the compiler is ${CMAKE_CXX_COMPILER_ID})")
  endif()

  string(REPLACE ";" "," _cclab_sanitize_arg "${CCLAB_SANITIZERS}")
  # -g1: line tables and function names, all a report's stacks need; after the build type's -g it
  # wins, and it compiles about a quarter faster (train_bench.cc under ASan: 28 s of CPU against
  # 33-39 s with -g, objects 2.5x smaller), which CI's 90 minutes feel.
  set(CCLAB_SANITIZE_FLAGS -fsanitize=${_cclab_sanitize_arg} -fno-omit-frame-pointer -g1)
  if("undefined" IN_LIST CCLAB_SANITIZERS)
    list(APPEND CCLAB_SANITIZE_FLAGS -fno-sanitize-recover=undefined)
  endif()
  # ASan at -O1 (after the build type's -O2, it wins), as the AddressSanitizer documentation runs
  # it: a heavy test source compiles a third faster (timeline_test.cc: 19.9 s against 29.9 s at
  # -O2), and the ASan build is the longest part of CI (24:28 of a fresh clone's 82:29 on
  # 2026-12-02).
  if("address" IN_LIST CCLAB_SANITIZERS)
    list(APPEND CCLAB_SANITIZE_FLAGS -O1)
  endif()

  # Directory scope: every target below the top-level directory, C++ sources only (not nvcc's).
  add_compile_options("$<$<COMPILE_LANGUAGE:CXX>:${CCLAB_SANITIZE_FLAGS}>")
  add_link_options("$<$<LINK_LANGUAGE:CXX>:${CCLAB_SANITIZE_FLAGS}>")

  # (cclab_report turns semicolons into commas: the status line holds none.)
  string(REPLACE ";" " " _cclab_sanitize_status "${CCLAB_SANITIZE_FLAGS}")
  if(CCLAB_HAVE_CUDA)
    string(APPEND _cclab_sanitize_status " (C++ only: the CUDA sources are not sanitized)")
  else()
    string(APPEND _cclab_sanitize_status " (C++ only)")
  endif()
  cclab_report("Sanitizers" "${_cclab_sanitize_status}")
else()
  cclab_report("Sanitizers" "off (-DCCLAB_SANITIZE=address,undefined or thread)")
endif()

# An installed static library built with sanitizers needs the sanitizer runtime wherever it is
# linked: cclab_add_library gives its users (find_package(cclab) consumers included) the link flags.
function(cclab_sanitize_users target)
  if(CCLAB_SANITIZE_FLAGS)
    target_link_options(${target} INTERFACE "$<$<LINK_LANGUAGE:CXX>:${CCLAB_SANITIZE_FLAGS}>")
  endif()
endfunction()

# Sanitizer builds run every test with the sanitizers' options; the processes a test starts (the
# ranks mpirun starts, the tools a test runs) inherit them. tests/sanitizers/lsan.supp holds
# Open MPI's own leaks, one commented entry each; cclab's own findings are fixed, not suppressed.
#   ASan:  stop at the first error (halt_on_error), find leaks at exit (LeakSanitizer), and also
#          use after return and initialization-order bugs;
#   UBSan: a stack for each report; -fno-sanitize-recover=undefined already ends the process;
#   TSan:  both stacks of a lock-order inversion; a report makes the process exit 66.
# Tests labelled mpi (they run Open MPI) unwind every allocation's stack with the slow unwinder:
# Open MPI's libraries have no frame pointers, and the suppressions need their frames. It doubles
# the time of allocation-heavy programs, so the other tests keep the fast one. Under TSan they keep
# the longest access history (history_size=7), so the earlier access of a race inside Open MPI
# keeps its stack and tsan.supp can match it (with the default history it is sometimes lost, and
# then no suppression can: tests/sanitizers/tsan.supp).
set(CCLAB_SANITIZER_SUPPRESSIONS ${PROJECT_SOURCE_DIR}/tests/sanitizers)
set(_cclab_asan_options detect_leaks=1:halt_on_error=1:detect_stack_use_after_return=1:check_initialization_order=1:strict_init_order=1)
set(_cclab_tsan_options second_deadlock_stack=1:suppressions=${CCLAB_SANITIZER_SUPPRESSIONS}/tsan.supp)
set(CCLAB_SANITIZER_TEST_ENV
    "ASAN_OPTIONS=${_cclab_asan_options}"
    "LSAN_OPTIONS=suppressions=${CCLAB_SANITIZER_SUPPRESSIONS}/lsan.supp:print_suppressions=0"
    "UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1"
    "TSAN_OPTIONS=${_cclab_tsan_options}")
set(CCLAB_SANITIZER_MPI_TEST_ENV "ASAN_OPTIONS=${_cclab_asan_options}:fast_unwind_on_malloc=0"
    "TSAN_OPTIONS=${_cclab_tsan_options}:history_size=7")

# Call once at the top of a folder's tests (cmake_language(DEFER) runs it when the folder is done):
# every test of the folder gets CCLAB_SANITIZER_TEST_ENV in a sanitizer build, and those labelled
# mpi CCLAB_SANITIZER_MPI_TEST_ENV after it (the later ASAN_OPTIONS and TSAN_OPTIONS win).
function(cclab_sanitize_tests)
  if(NOT CCLAB_SANITIZERS)
    return()
  endif()
  get_property(tests DIRECTORY PROPERTY TESTS)
  foreach(test IN LISTS tests)
    set_property(TEST ${test} APPEND PROPERTY ENVIRONMENT ${CCLAB_SANITIZER_TEST_ENV})
    get_property(labels TEST ${test} PROPERTY LABELS)
    if("mpi" IN_LIST labels)
      set_property(TEST ${test} APPEND PROPERTY ENVIRONMENT ${CCLAB_SANITIZER_MPI_TEST_ENV})
    endif()
  endforeach()
endfunction()
