# Student-t quantiles, histograms, parameters, sweeps; the text table printer.
storq_unit_test(test_core test_core.c)
set_tests_properties(test_core PROPERTIES LABELS "unit" TIMEOUT 30)
storq_unit_test(test_table test_table.c)
set_tests_properties(test_table PROPERTIES LABELS "unit" TIMEOUT 30)
storq_unit_test(test_big_array test_big_array.c)
set_tests_properties(test_big_array PROPERTIES LABELS "unit" TIMEOUT 30)
# The precision decision's screen never spares a two-pass half-width that could decide.
storq_unit_test(test_precision_screen test_precision_screen.c)
set_tests_properties(test_precision_screen PROPERTIES LABELS "unit" TIMEOUT 30)
# CRC-32 eight bytes a step (io/crc32.c) gives the byte-at-a-time values.
storq_unit_test(test_crc32 test_crc32.c)
set_tests_properties(test_crc32 PROPERTIES LABELS "unit" TIMEOUT 30)
