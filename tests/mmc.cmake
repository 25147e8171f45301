# mmc: the kernel against a plain reference on the same random numbers, and against Erlang C.
storq_unit_test(test_mmc_reference test_mmc_reference.c)
target_include_directories(test_mmc_reference PRIVATE ${CMAKE_SOURCE_DIR}/kernels)
set_tests_properties(test_mmc_reference PROPERTIES TIMEOUT 60 LABELS "mmc;reference")
storq_unit_test(test_mmc_stats test_mmc_stats.c)
target_include_directories(test_mmc_stats PRIVATE ${CMAKE_SOURCE_DIR}/kernels)
set_tests_properties(test_mmc_stats PROPERTIES TIMEOUT 120 LABELS "mmc;statistical")
