# forkjoin kernel: differential test against a plain event-driven implementation, statistical
# validation against the exact results and bounds, and the CLI's usage errors.
storq_unit_test(test_forkjoin_reference test_forkjoin_reference.c)
target_include_directories(test_forkjoin_reference PRIVATE ${CMAKE_SOURCE_DIR}/kernels)
set_tests_properties(test_forkjoin_reference PROPERTIES TIMEOUT 30 LABELS "forkjoin;reference")

storq_unit_test(test_forkjoin_stats test_forkjoin_stats.c)
target_include_directories(test_forkjoin_stats PRIVATE ${CMAKE_SOURCE_DIR}/kernels)
set_tests_properties(test_forkjoin_stats PROPERTIES TIMEOUT 160 LABELS "forkjoin;statistical")

add_test(NAME e2e_forkjoin_errors
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/e2e_forkjoin_errors.sh $<TARGET_FILE:storq>)
set_tests_properties(e2e_forkjoin_errors PROPERTIES TIMEOUT 120 LABELS "forkjoin;e2e"
  ENVIRONMENT "${STORQ_MPI_ENV}")

# Per-group results at large g: the summary's size and its agreement with the full vectors.
add_test(NAME e2e_forkjoin_groups
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/e2e_forkjoin_groups.sh $<TARGET_FILE:storq> ${STORQ_PYTHON})
set_tests_properties(e2e_forkjoin_groups PROPERTIES TIMEOUT 120 LABELS "forkjoin;e2e"
  ENVIRONMENT "${STORQ_MPI_ENV}")
