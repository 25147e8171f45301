# threads kernel: the CLI's usage errors.
add_test(NAME e2e_threads_errors
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/e2e_threads_errors.sh $<TARGET_FILE:storq>)
set_tests_properties(e2e_threads_errors PROPERTIES TIMEOUT 120 LABELS "threads;e2e"
  ENVIRONMENT "${STORQ_MPI_ENV}")
