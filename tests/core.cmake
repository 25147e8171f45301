# Student-t quantiles, histograms, parameters, sweeps.
storq_unit_test(test_core test_core.c)
set_tests_properties(test_core PROPERTIES LABELS "unit" TIMEOUT 30)
