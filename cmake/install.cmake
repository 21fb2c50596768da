# Install layout (GNU dirs):
#   bin/condacuda
#   libexec/condacuda/condacuda-probe        the GPU child of `check` (found from bin/condacuda)
#   share/condacuda/{templates,hooks}        the text assets (also embedded in the binary)
#   share/man/man1/condacuda.1               generated from the CLI definition
#   share/bash-completion/completions/condacuda, share/zsh/site-functions/_condacuda,
#   share/fish/vendor_completions.d/condacuda.fish   generated likewise
#   share/doc/condacuda/LICENSE              the BSD-3-Clause license (CMAKE_INSTALL_DOCDIR)
# and a Debian package through CPack (cpack -G DEB).
include(GNUInstallDirs)
install(TARGETS condacuda RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS condacuda-probe RUNTIME DESTINATION ${CMAKE_INSTALL_LIBEXECDIR}/condacuda)
install(DIRECTORY templates/ DESTINATION ${CMAKE_INSTALL_DATADIR}/condacuda/templates)
install(PROGRAMS hooks/post-link.sh hooks/pre-unlink.sh DESTINATION ${CMAKE_INSTALL_DATADIR}/condacuda/hooks)
install(FILES LICENSE DESTINATION ${CMAKE_INSTALL_DOCDIR})

# Completions and the man page come from running the built binary, so they
# cannot drift from the command line they describe.
if(NOT CMAKE_CROSSCOMPILING)
  set(CONDACUDA_GENERATED "${PROJECT_BINARY_DIR}/generated")
  set(generated_files "")
  foreach(kind_file IN ITEMS "bash;condacuda.bash" "zsh;_condacuda" "fish;condacuda.fish" "man;condacuda.1")
    list(GET kind_file 0 kind)
    list(GET kind_file 1 file)
    add_custom_command(
      OUTPUT "${CONDACUDA_GENERATED}/${file}"
      COMMAND ${CMAKE_COMMAND} -E make_directory "${CONDACUDA_GENERATED}"
      COMMAND ${CMAKE_COMMAND} -DEXE=$<TARGET_FILE:condacuda> -DWHAT=${kind} -DOUT=${CONDACUDA_GENERATED}/${file}
              -P "${PROJECT_SOURCE_DIR}/cmake/generate_doc.cmake"
      DEPENDS condacuda "${PROJECT_SOURCE_DIR}/cmake/generate_doc.cmake"
      VERBATIM)
    list(APPEND generated_files "${CONDACUDA_GENERATED}/${file}")
  endforeach()
  add_custom_target(condacuda_docs ALL DEPENDS ${generated_files})
  install(FILES "${CONDACUDA_GENERATED}/condacuda.bash" DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions
          RENAME condacuda)
  install(FILES "${CONDACUDA_GENERATED}/_condacuda" DESTINATION ${CMAKE_INSTALL_DATADIR}/zsh/site-functions)
  install(FILES "${CONDACUDA_GENERATED}/condacuda.fish" DESTINATION ${CMAKE_INSTALL_DATADIR}/fish/vendor_completions.d)
  install(FILES "${CONDACUDA_GENERATED}/condacuda.1" DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
endif()

set(CPACK_PACKAGE_NAME condacuda)
set(CPACK_PACKAGE_VENDOR "condacuda")
set(CPACK_PACKAGE_CONTACT "condacuda maintainers")
set(CPACK_RESOURCE_FILE_LICENSE "${PROJECT_SOURCE_DIR}/LICENSE")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "Make the CUDA libraries of conda and pip envs load correctly, and prove it")
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_GENERATOR DEB)
include(CPack)
