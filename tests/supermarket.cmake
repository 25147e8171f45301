# supermarket kernel: differential test against a plain reference implementation, and statistical
# validation against exact results (fixed seeds; see the comments in each file).
storq_unit_test(test_supermarket_reference test_supermarket_reference.c)
target_include_directories(test_supermarket_reference PRIVATE ${CMAKE_SOURCE_DIR}/kernels)
set_tests_properties(test_supermarket_reference PROPERTIES TIMEOUT 30 LABELS "supermarket;reference")

storq_unit_test(test_supermarket_stats test_supermarket_stats.c)
target_include_directories(test_supermarket_stats PRIVATE ${CMAKE_SOURCE_DIR}/kernels)
set_tests_properties(test_supermarket_stats PROPERTIES TIMEOUT 240 LABELS "supermarket;statistical")

# Mean-field job delay for k > 1 (kernels/supermarket/jobdelay.c) against closed forms (k = 1,
# L = k) and a Monte Carlo of the limit model.
storq_unit_test(test_supermarket_jobdelay test_supermarket_jobdelay.c)
target_include_directories(test_supermarket_jobdelay PRIVATE ${CMAKE_SOURCE_DIR}/kernels)
set_tests_properties(test_supermarket_jobdelay PROPERTIES TIMEOUT 120 LABELS "supermarket;unit")
