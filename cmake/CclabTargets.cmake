# How cclab's targets are declared: one library per folder (cclab::<name>), tools built into
# bin/ and installed, the same warnings everywhere, and headers included as "<folder>/<file>.h".
include(GNUInstallDirs)

# The warnings every cclab target compiles with (C++ only: nvcc takes its own flags).
add_library(cclab_warnings INTERFACE)
add_library(cclab::warnings ALIAS cclab_warnings)
option(CCLAB_WERROR "Treat compiler warnings as errors (scripts/test.sh, and so CI, turns it on)" OFF)
target_compile_options(cclab_warnings INTERFACE $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra $<$<BOOL:${CCLAB_WERROR}>:-Werror>>)

# A target's headers are included as "<folder>/<file>.h", so its include directory must hold the
# folder by name. Each folder gets a directory of its own in the build tree that holds only a link
# to it: a target sees its own folder and the folders of the targets it links, never the whole
# source tree, so a header of a layer above fails to compile (tests/layers checks the same rule
# from the includes themselves). Installed, the headers live in include/cclab/<folder>/.
function(cclab_folder_include_root folder out)
  set(root ${PROJECT_BINARY_DIR}/include/${folder})
  if(NOT EXISTS ${root}/${folder})
    file(MAKE_DIRECTORY ${root})
    file(CREATE_LINK ${PROJECT_SOURCE_DIR}/${folder} ${root}/${folder} SYMBOLIC)
  endif()
  set(${out} ${root} PARENT_SCOPE)
endfunction()

# cclab_add_library(<name> FOLDER <folder> [SOURCES ...]): cclab_<name>, aliased cclab::<name>
# and exported as cclab::<name>, exposing <folder>.
function(cclab_add_library name)
  cmake_parse_arguments(ARG "" "FOLDER" "SOURCES" ${ARGN})
  add_library(cclab_${name} ${ARG_SOURCES})
  add_library(cclab::${name} ALIAS cclab_${name})
  set_target_properties(cclab_${name} PROPERTIES EXPORT_NAME ${name})
  cclab_folder_include_root(${ARG_FOLDER} root)
  target_include_directories(cclab_${name} PUBLIC $<BUILD_INTERFACE:${root}>
                             $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}/cclab>)
  target_link_libraries(cclab_${name} PRIVATE $<BUILD_INTERFACE:cclab::warnings>)
  cclab_sanitize_users(cclab_${name})   # a sanitized library needs the runtime where it is linked
endfunction()

# The tools (ccbench, ccsim, ccreport, ccplan) are built into <build>/bin and installed into
# <prefix>/bin. Both trees hold share/cclab/models beside bin/, where the tools find the model
# cards, GPU descriptions and cluster presets (sim/descriptions.cc), and ccreport finds ccplan
# beside itself.
set(CCLAB_TOOLS_DIR ${PROJECT_BINARY_DIR}/${CMAKE_INSTALL_BINDIR})
set(CCLAB_DATA_SUBDIR ${CMAKE_INSTALL_DATADIR}/cclab)
if(NOT EXISTS ${PROJECT_BINARY_DIR}/${CCLAB_DATA_SUBDIR}/models)
  file(MAKE_DIRECTORY ${PROJECT_BINARY_DIR}/${CCLAB_DATA_SUBDIR})
  file(CREATE_LINK ${PROJECT_SOURCE_DIR}/models ${PROJECT_BINARY_DIR}/${CCLAB_DATA_SUBDIR}/models SYMBOLIC)
endif()

function(cclab_add_tool name)
  add_executable(${name} ${ARGN})
  set_target_properties(${name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CCLAB_TOOLS_DIR})
  target_link_libraries(${name} PRIVATE cclab::warnings)
  install(TARGETS ${name} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endfunction()
