# Mean-field theory of the supermarket (batch sampling) model: kernels/supermarket_meanfield.[ch].
storq_unit_test(test_supermarket_meanfield test_supermarket_meanfield.c)
