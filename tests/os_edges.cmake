# Where storq meets the operating system (issue 31): runs racing for one output, special files
# as inputs or outputs, signals from the first moment. docs/architecture.md, "Output files and
# faults".
add_test(NAME e2e_race COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/e2e_race.sh $<TARGET_FILE:storq> ${STORQ_PYTHON})
# two processes at a time on the 2 cores, 20 rounds: alone, so the races are real ones
set_tests_properties(e2e_race PROPERTIES LABELS "e2e" TIMEOUT 120 RUN_SERIAL TRUE
  ENVIRONMENT "${STORQ_MPI_ENV}")
add_test(NAME e2e_special_files
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/e2e_special_files.sh $<TARGET_FILE:storq> ${STORQ_PYTHON})
set_tests_properties(e2e_special_files PROPERTIES LABELS "e2e" TIMEOUT 120 ENVIRONMENT "${STORQ_MPI_ENV}")
add_test(NAME e2e_closed_output
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/e2e_closed_output.sh $<TARGET_FILE:storq> ${STORQ_PYTHON})
set_tests_properties(e2e_closed_output PROPERTIES LABELS "e2e" TIMEOUT 60 ENVIRONMENT "${STORQ_MPI_ENV}")
# It times the stops (at most 2 s each): alone, so other tests do not skew them.
add_test(NAME e2e_early_stop
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/e2e_early_stop.sh $<TARGET_FILE:storq> ${STORQ_PYTHON})
set_tests_properties(e2e_early_stop PROPERTIES LABELS "e2e" TIMEOUT 120 RUN_SERIAL TRUE
  ENVIRONMENT "${STORQ_MPI_ENV}")

# The Slurm tests share a fixture that starts the local cluster and afterwards stops the daemons
# it started (and only those): nothing keeps running after the suite.
set(STORQ_SLURM_STATE ${CMAKE_CURRENT_BINARY_DIR}/slurm_cluster.state)
add_test(NAME slurm_cluster_up COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/slurm_cluster.sh up ${STORQ_SLURM_STATE})
add_test(NAME slurm_cluster_down COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/slurm_cluster.sh down ${STORQ_SLURM_STATE})
set_tests_properties(slurm_cluster_up PROPERTIES LABELS "slurm" TIMEOUT 60 RUN_SERIAL TRUE
  FIXTURES_SETUP slurm_cluster)
set_tests_properties(slurm_cluster_down PROPERTIES LABELS "slurm" TIMEOUT 60 RUN_SERIAL TRUE
  FIXTURES_CLEANUP slurm_cluster)
set_tests_properties(e2e_slurm e2e_slurm_array PROPERTIES FIXTURES_REQUIRED slurm_cluster)
# The fixture's own logic, on stand-in daemons (no Slurm needed, nothing real touched).
add_test(NAME e2e_slurm_fixture COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/e2e_slurm_fixture.sh)
set_tests_properties(e2e_slurm_fixture PROPERTIES LABELS "e2e" TIMEOUT 30)
