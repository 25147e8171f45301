# supermarket kernel: differential test against a plain reference implementation, and statistical
# validation against exact results (fixed seeds; see the comments in each file).
storq_unit_test(test_supermarket_reference test_supermarket_reference.c)
target_include_directories(test_supermarket_reference PRIVATE ${CMAKE_SOURCE_DIR}/kernels)
set_tests_properties(test_supermarket_reference PROPERTIES TIMEOUT 30 LABELS "supermarket;reference")

storq_unit_test(test_supermarket_stats test_supermarket_stats.c)
target_include_directories(test_supermarket_stats PRIVATE ${CMAKE_SOURCE_DIR}/kernels)
set_tests_properties(test_supermarket_stats PROPERTIES TIMEOUT 240 LABELS "supermarket;statistical")
