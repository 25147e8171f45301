# proxy kernel: differential test against a plain event-driven implementation, statistical
# validation against the exact cases and the paper's claims, and the CLI's usage errors.
storq_unit_test(test_proxy_reference test_proxy_reference.c)
target_include_directories(test_proxy_reference PRIVATE ${CMAKE_SOURCE_DIR}/kernels)
set_tests_properties(test_proxy_reference PROPERTIES TIMEOUT 60 LABELS "proxy;reference")

add_test(NAME e2e_proxy_errors
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/e2e_proxy_errors.sh $<TARGET_FILE:storq>)
set_tests_properties(e2e_proxy_errors PROPERTIES TIMEOUT 120 LABELS "proxy;e2e"
  ENVIRONMENT "${STORQ_MPI_ENV}")

storq_unit_test(test_proxy_stats test_proxy_stats.c)
target_include_directories(test_proxy_stats PRIVATE ${CMAKE_SOURCE_DIR}/kernels)
target_compile_definitions(test_proxy_stats PRIVATE
  PROXY_TRACE="${CMAKE_SOURCE_DIR}/jobs/traces/s3-like-read.txt")
set_tests_properties(test_proxy_stats PROPERTIES TIMEOUT 160 LABELS "proxy;statistical")

# the shipped synthetic trace is what its script makes (numpy)
add_test(NAME e2e_proxy_trace
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/e2e_proxy_trace.sh ${STORQ_PYTHON})
set_tests_properties(e2e_proxy_trace PROPERTIES TIMEOUT 60 LABELS "proxy;e2e")

# the paper's multi-class approximation (eq. 5) and the layers of its capacity region (Fig. 8)
storq_unit_test(test_proxy_multiclass test_proxy_multiclass.c)
target_include_directories(test_proxy_multiclass PRIVATE ${CMAKE_SOURCE_DIR}/kernels)
set_tests_properties(test_proxy_multiclass PROPERTIES TIMEOUT 60 LABELS "proxy;unit")
