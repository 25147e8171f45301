# cluster kernel: differential test against a plain reference implementation, statistical
# validation (M/D/1, the product-form bound, policy order), and the CLI's usage errors.
storq_unit_test(test_cluster_reference test_cluster_reference.c)
target_include_directories(test_cluster_reference PRIVATE ${CMAKE_SOURCE_DIR}/kernels)
set_tests_properties(test_cluster_reference PROPERTIES TIMEOUT 30 LABELS "cluster;reference")

storq_unit_test(test_cluster_stats test_cluster_stats.c)
target_include_directories(test_cluster_stats PRIVATE ${CMAKE_SOURCE_DIR}/kernels)
set_tests_properties(test_cluster_stats PROPERTIES TIMEOUT 30 LABELS "cluster;statistical")

add_test(NAME e2e_cluster_errors
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/e2e_cluster_errors.sh $<TARGET_FILE:storq>)
set_tests_properties(e2e_cluster_errors PROPERTIES TIMEOUT 120 LABELS "cluster;e2e"
  ENVIRONMENT "${STORQ_MPI_ENV}")
# Limits of size: a blocks law past its caps refused up front; the product form's cost bounded.
add_test(NAME e2e_cluster_limits
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/e2e_cluster_limits.sh $<TARGET_FILE:storq>)
set_tests_properties(e2e_cluster_limits PROPERTIES TIMEOUT 300 LABELS "cluster;e2e"
  ENVIRONMENT "${STORQ_MPI_ENV}")
