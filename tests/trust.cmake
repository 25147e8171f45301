# Files from elsewhere are distrusted: info, merge and --resume refuse damaged and crafted files
# (tests/craft_h5.py) with exit 2, naming the object, within 2 GB of address space.
add_test(NAME e2e_crafted_files
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/e2e_crafted_files.sh $<TARGET_FILE:storq> ${STORQ_PYTHON})
# About 70 s alone (57 refusals, 18 of them MPI start-ups for --resume): alone, like the MPI tests.
set_tests_properties(e2e_crafted_files PROPERTIES LABELS "e2e" TIMEOUT 280 RUN_SERIAL TRUE
  ENVIRONMENT "${STORQ_MPI_ENV}")

# No silent misread, no crash on a damaged file (issue 31): a damaged object header, a global heap
# HDF5 crashed on, a flipped value (info, merge, --resume, Python, storq.report) and names that
# are not UTF-8 (tests/craft_damaged_h5.py).
add_test(NAME e2e_damaged_files
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/e2e_damaged_files.sh $<TARGET_FILE:storq> ${STORQ_PYTHON})
set_tests_properties(e2e_damaged_files PROPERTIES LABELS "e2e" TIMEOUT 120 RUN_SERIAL TRUE
  ENVIRONMENT "${STORQ_MPI_ENV}")
