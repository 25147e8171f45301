# Sweep files and numbers (issue 10): the INI reader, the one number grammar, storq run --dry-run.
storq_unit_test(test_number test_number.c)
set_tests_properties(test_number PROPERTIES LABELS "unit" TIMEOUT 30)
# Malformed sweep files: exit 2 with FILE:LINE; files libinih misread are read as written.
add_test(NAME e2e_sweep_errors COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/e2e_sweep_errors.sh $<TARGET_FILE:storq>)
set_tests_properties(e2e_sweep_errors PROPERTIES LABELS "e2e" TIMEOUT 60
  ENVIRONMENT "${STORQ_MPI_ENV}")
# A few hundred generated sweep files (fixed seed) list exactly the points meant (about 8 s).
add_test(NAME sweep_property COMMAND ${STORQ_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/sweep_property.py
         $<TARGET_FILE:storq> 300)
set_tests_properties(sweep_property PROPERTIES LABELS "python" TIMEOUT 120)
# Request classes one at a time (--class, [class.NAME]) equal the one-string --classes.
add_test(NAME e2e_classes COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/e2e_classes.sh $<TARGET_FILE:storq>)
set_tests_properties(e2e_classes PROPERTIES LABELS "e2e" TIMEOUT 60
  ENVIRONMENT "${STORQ_MPI_ENV}")
