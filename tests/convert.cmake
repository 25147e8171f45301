# `storq convert`: schema 1.x files to the columnar schema 2.0 (docs/hdf5-schema-2.md), end to end.
add_test(NAME e2e_convert
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/e2e_convert.sh $<TARGET_FILE:storq> ${STORQ_PYTHON})
set_tests_properties(e2e_convert PROPERTIES LABELS "e2e" TIMEOUT 240
  ENVIRONMENT "${STORQ_MPI_ENV}")
# `storq info` of 2.0 files: the same tables, csv and json as of their 1.x files, damaged ones
# refused, and what reads 1.x only (merge) says so.
add_test(NAME e2e_info_columnar
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/e2e_info_columnar.sh $<TARGET_FILE:storq> ${STORQ_PYTHON})
set_tests_properties(e2e_info_columnar PROPERTIES LABELS "e2e" TIMEOUT 240
  ENVIRONMENT "${STORQ_MPI_ENV}")
