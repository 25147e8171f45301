# The steady-state check: the statistic, its false-alarm rate and power, the models' halves
# (tests/test_steady_state.c); the warning end to end (tests/e2e_steady_state.sh).
storq_unit_test(test_steady_state test_steady_state.c)
set_tests_properties(test_steady_state PROPERTIES TIMEOUT 60 LABELS "statistical")
add_test(NAME e2e_steady_state
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/e2e_steady_state.sh $<TARGET_FILE:storq> ${STORQ_PYTHON})
set_tests_properties(e2e_steady_state PROPERTIES TIMEOUT 90 LABELS "e2e"
  ENVIRONMENT "${STORQ_MPI_ENV}")
