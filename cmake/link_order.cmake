# The functions a doctor run executes, laid out next to each other in
# condacuda's code (src/link_order.txt, written by tests/bench/link_order.sh).
# Why: the 5.5 MB of code of the static program is read through page faults,
# one per 64 KiB window touched, and on the 2-core VM a fault costs 25 to 35
# microseconds; a repeated doctor run touched 71 of the 88 windows, a tenth of
# its time, although the code it runs is 1.2 MB. Laid out together that code
# takes about half the windows (README "Benchmarks"). It needs lld, which
# orders sections by the symbols a file names (--symbol-ordering-file), and
# each function in a section of its own (-ffunction-sections). Without lld,
# or with a sanitizer, the program is linked as before; a function missing
# from a stale list only sits elsewhere: the list changes speed, never what
# the program does.
option(CONDACUDA_LINK_ORDER "Lay out the functions a doctor run executes together (needs lld)" ON)
set(CONDACUDA_ORDERED_LINK OFF)
set(CONDACUDA_LINK_ORDER_FILE "${PROJECT_SOURCE_DIR}/src/link_order.txt")
if(CONDACUDA_LINK_ORDER AND NOT CONDACUDA_SANITIZE AND EXISTS "${CONDACUDA_LINK_ORDER_FILE}")
  include(CheckLinkerFlag)
  check_linker_flag(CXX "-fuse-ld=lld" CONDACUDA_HAVE_LLD)
  if(CONDACUDA_HAVE_LLD)
    add_compile_options(-ffunction-sections)
    set(CONDACUDA_ORDERED_LINK ON)
  else()
    message(STATUS "condacuda: no lld (apt install lld): functions not laid out in run order")
  endif()
endif()

# Links `target` with the order above, when the build has it.
function(condacuda_link_in_run_order target)
  if(CONDACUDA_ORDERED_LINK)
    target_link_options(${target} PRIVATE -fuse-ld=lld "LINKER:--symbol-ordering-file=${CONDACUDA_LINK_ORDER_FILE}"
                        "LINKER:--no-warn-symbol-ordering")
    set_property(TARGET ${target} APPEND PROPERTY LINK_DEPENDS "${CONDACUDA_LINK_ORDER_FILE}")
  endif()
endfunction()
