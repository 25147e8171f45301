# `storq convert`: schema 1.x files to the columnar schema 2.0 (docs/hdf5-schema-2.md), end to end.
add_test(NAME e2e_convert
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/e2e_convert.sh $<TARGET_FILE:storq> ${STORQ_PYTHON})
set_tests_properties(e2e_convert PROPERTIES LABELS "e2e" TIMEOUT 240
  ENVIRONMENT "${STORQ_MPI_ENV}")
# `storq info` of 2.0 files: the same tables, csv and json as of their 1.x files, damaged ones
# refused (by merge too, which reads 2.0 files).
add_test(NAME e2e_info_columnar
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/e2e_info_columnar.sh $<TARGET_FILE:storq> ${STORQ_PYTHON})
set_tests_properties(e2e_info_columnar PROPERTIES LABELS "e2e" TIMEOUT 240
  ENVIRONMENT "${STORQ_MPI_ENV}")
# `storq run --schema 2` and `storq merge --schema 2`: runs finished into 2.0, the same as the
# conversion of their 1.x twins; stop and resume; merge of 2.0 and 1.x task files into either.
add_test(NAME e2e_schema2_run
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/e2e_schema2_run.sh $<TARGET_FILE:storq> ${STORQ_PYTHON})
set_tests_properties(e2e_schema2_run PROPERTIES LABELS "e2e" TIMEOUT 300
  ENVIRONMENT "${STORQ_MPI_ENV}")
