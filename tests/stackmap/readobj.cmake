# Runs `llvm-readobj --stackmap INPUT` into OUTPUT (add_custom_command has no
# portable redirection). Usage: cmake -DREADOBJ=... -DINPUT=... -DOUTPUT=... -P readobj.cmake
execute_process(COMMAND "${READOBJ}" --stackmap "${INPUT}" OUTPUT_FILE "${OUTPUT}"
                RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "llvm-readobj --stackmap ${INPUT} failed: ${status}")
endif()
