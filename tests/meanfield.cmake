# Mean-field theory of the supermarket (batch sampling) model: kernels/supermarket/meanfield.[ch].
storq_unit_test(test_supermarket_meanfield test_supermarket_meanfield.c)
set_tests_properties(test_supermarket_meanfield PROPERTIES LABELS "supermarket;unit" TIMEOUT 400)

# Refined mean field (the 1/n term): kernels/supermarket/refined.[ch].
storq_unit_test(test_supermarket_refined test_supermarket_refined.c)
set_tests_properties(test_supermarket_refined PROPERTIES LABELS "supermarket;unit" TIMEOUT 120)
add_test(NAME test_supermarket_refined_stats COMMAND test_supermarket_refined stats)
set_tests_properties(test_supermarket_refined_stats PROPERTIES ENVIRONMENT "${STORQ_MPI_ENV}")
set_tests_properties(test_supermarket_refined_stats PROPERTIES LABELS "supermarket;statistical"
                     TIMEOUT 120)
# V of the refined mean field against V regressed from simulations at n = 20..1000 (statistical).
storq_unit_test(test_supermarket_refined_regression test_supermarket_refined_regression.c)
set_tests_properties(test_supermarket_refined_regression PROPERTIES LABELS "supermarket;statistical"
                     TIMEOUT 600)
