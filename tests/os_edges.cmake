# Where storq meets the operating system (issue 31): runs racing for one output, special files
# as inputs or outputs, signals from the first moment. docs/architecture.md, "Output files and
# faults".
add_test(NAME e2e_race COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/e2e_race.sh $<TARGET_FILE:storq> ${STORQ_PYTHON})
# two processes at a time on the 2 cores, 20 rounds: alone, so the races are real ones
set_tests_properties(e2e_race PROPERTIES LABELS "e2e" TIMEOUT 120 RUN_SERIAL TRUE
  ENVIRONMENT "${STORQ_MPI_ENV}")
