# threads kernel: differential test against a plain re-deciding implementation, statistical
# validation against the exact cases and the paper's theorems, and the CLI's usage errors.
storq_unit_test(test_threads_reference test_threads_reference.c)
target_include_directories(test_threads_reference PRIVATE ${CMAKE_SOURCE_DIR}/kernels)
set_tests_properties(test_threads_reference PROPERTIES TIMEOUT 60 LABELS "threads;reference")

add_test(NAME e2e_threads_errors
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/e2e_threads_errors.sh $<TARGET_FILE:storq>)
set_tests_properties(e2e_threads_errors PROPERTIES TIMEOUT 120 LABELS "threads;e2e"
  ENVIRONMENT "${STORQ_MPI_ENV}")

storq_unit_test(test_threads_stats test_threads_stats.c)
target_include_directories(test_threads_stats PRIVATE ${CMAKE_SOURCE_DIR}/kernels)
set_tests_properties(test_threads_stats PROPERTIES TIMEOUT 80 LABELS "threads;statistical")

storq_unit_test(test_threads_exact test_threads_exact.c)
target_include_directories(test_threads_exact PRIVATE ${CMAKE_SOURCE_DIR}/kernels)
set_tests_properties(test_threads_exact PROPERTIES TIMEOUT 60 LABELS "threads;statistical")

storq_unit_test(test_threads_bound test_threads_bound.c)
target_include_directories(test_threads_bound PRIVATE ${CMAKE_SOURCE_DIR}/kernels)
set_tests_properties(test_threads_bound PROPERTIES TIMEOUT 60 LABELS "threads;statistical")
