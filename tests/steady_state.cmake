# The steady-state check: the statistic, its false-alarm rate and power, the models' halves
# (tests/test_steady_state.c); the warning end to end (tests/e2e_steady_state.sh).
storq_unit_test(test_steady_state test_steady_state.c)
set_tests_properties(test_steady_state PROPERTIES TIMEOUT 60 LABELS "statistical")
add_test(NAME e2e_steady_state
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/e2e_steady_state.sh $<TARGET_FILE:storq> ${STORQ_PYTHON})
set_tests_properties(e2e_steady_state PROPERTIES TIMEOUT 90 LABELS "e2e"
  ENVIRONMENT "${STORQ_MPI_ENV}")
# Every model at time scales 1e-200 and 1e150/1e200 against scale 1 (same seed): means, CIs and
# the steady-state warning equal up to the scale factor (statistics in units of a power of two)
add_test(NAME e2e_time_scales
         COMMAND ${STORQ_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/scale_invariance.py
                 $<TARGET_FILE:storq> ${CMAKE_CURRENT_BINARY_DIR}/time_scales)
set_tests_properties(e2e_time_scales PROPERTIES TIMEOUT 180 LABELS "e2e"
  ENVIRONMENT "${STORQ_MPI_ENV}")
