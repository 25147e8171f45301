# Mean-field theory of the supermarket (batch sampling) model: kernels/supermarket/meanfield.[ch].
storq_unit_test(test_supermarket_meanfield test_supermarket_meanfield.c)
set_tests_properties(test_supermarket_meanfield PROPERTIES LABELS "supermarket;unit" TIMEOUT 400)
