storq_unit_test(test_core test_core.c)
storq_unit_test(test_table test_table.c)
