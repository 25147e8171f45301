storq_unit_test(test_core test_core.c)
