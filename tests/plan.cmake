# Predicting a run before submission (`storq run ... --dry-run --workers W`): the replay of the
# units on W workers and the largest-W search on crafted unit lists, then the command line end to
# end (calibration here and from a short real run's file, bad options, a prediction against a
# real run's wall time).
storq_unit_test(test_plan_replay ${CMAKE_CURRENT_SOURCE_DIR}/test_plan_replay.c)
set_tests_properties(test_plan_replay PROPERTIES LABELS "unit" TIMEOUT 30)
add_test(NAME e2e_plan COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/e2e_plan.sh $<TARGET_FILE:storq>
         ${STORQ_PYTHON})
# It times a real run against its prediction: alone, so other tests do not skew either.
set_tests_properties(e2e_plan PROPERTIES LABELS "e2e" TIMEOUT 120 RUN_SERIAL TRUE
  ENVIRONMENT "${STORQ_MPI_ENV}")
