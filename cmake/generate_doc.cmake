# Script mode: OUT = the output of `EXE __generate WHAT`.
execute_process(COMMAND "${EXE}" __generate "${WHAT}" OUTPUT_FILE "${OUT}" RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${EXE} __generate ${WHAT} failed (${rc})")
endif()
