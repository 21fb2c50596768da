# Text assets (templates/, hooks/) are real files in the tree, embedded into the
# binary at build time by CMake alone (no xxd, no python), and installed under
# share/condacuda/ for people to read.
#
# condacuda_embed(<target> BASE <dir> FILES <relpath>...) adds a generated
# source to <target> that defines condacuda::util::embedded_assets().
function(condacuda_embed target)
  cmake_parse_arguments(ARG "" "BASE" "FILES" ${ARGN})
  set(out "${CMAKE_CURRENT_BINARY_DIR}/embedded_assets.cpp")
  set(inputs "")
  foreach(f IN LISTS ARG_FILES)
    list(APPEND inputs "${ARG_BASE}/${f}")
  endforeach()
  add_custom_command(
    OUTPUT "${out}"
    COMMAND ${CMAKE_COMMAND} -DBASE=${ARG_BASE} "-DFILES=${ARG_FILES}" -DOUT=${out}
            -P "${PROJECT_SOURCE_DIR}/cmake/embed_run.cmake"
    DEPENDS ${inputs} "${PROJECT_SOURCE_DIR}/cmake/embed_run.cmake"
    COMMENT "Embedding text assets"
    VERBATIM)
  target_sources(${target} PRIVATE "${out}")
endfunction()
