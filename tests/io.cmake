# The HDF5 results layer: the C writer and `storq info`, then the Python schema checker and
# analysis package on the file the C test leaves behind.
storq_unit_test(test_h5_writer ${CMAKE_CURRENT_SOURCE_DIR}/test_h5_writer.c)
set_tests_properties(test_h5_writer PROPERTIES LABELS "unit" TIMEOUT 30 FIXTURES_SETUP storq_h5_file)

set(STORQ_TEST_H5 ${CMAKE_CURRENT_BINARY_DIR}/test_h5_writer.h5)
add_test(NAME h5_schema_python
         COMMAND ${STORQ_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/check_h5_schema.py ${STORQ_TEST_H5})
add_test(NAME h5_python_package
         COMMAND ${STORQ_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/test_python_package.py ${STORQ_TEST_H5}
                 ${CMAKE_CURRENT_BINARY_DIR})
set_tests_properties(h5_schema_python h5_python_package PROPERTIES LABELS "python"
  FIXTURES_REQUIRED storq_h5_file DEPENDS test_h5_writer
  ENVIRONMENT "MPLBACKEND=Agg;PYTHONPATH=${CMAKE_SOURCE_DIR}/io/python")
set_tests_properties(h5_schema_python PROPERTIES TIMEOUT 30)
set_tests_properties(h5_python_package PROPERTIES TIMEOUT 50)

# Point trees (io/point_tree.h): built by hand, as records (every truncation and single-byte
# corruption refused), written with HDF5 and read back, and /points/000000 of the writer's file.
storq_unit_test(test_point_tree ${CMAKE_CURRENT_SOURCE_DIR}/test_point_tree.c)
set_tests_properties(test_point_tree PROPERTIES LABELS "unit" TIMEOUT 30
  FIXTURES_REQUIRED storq_h5_file DEPENDS test_h5_writer
  ENVIRONMENT "${STORQ_MPI_ENV};STORQ_TEST_H5=${STORQ_TEST_H5}")
# storq_pt_write_h5: a tree by hand and the writer's points written as 1.x point groups, read back,
# their checksums verified, storq info of a whole file of them the same as of the writer's file,
# trees a point cannot be refused; then the schema checker on that file.
storq_unit_test(test_point_tree_write ${CMAKE_CURRENT_SOURCE_DIR}/test_point_tree_write.c)
set_tests_properties(test_point_tree_write PROPERTIES LABELS "unit" TIMEOUT 30
  FIXTURES_REQUIRED storq_h5_file FIXTURES_SETUP storq_point_tree_write_file
  DEPENDS test_h5_writer
  ENVIRONMENT "${STORQ_MPI_ENV};STORQ_TEST_H5=${STORQ_TEST_H5};STORQ_BIN=$<TARGET_FILE:storq>")
add_test(NAME point_tree_write_schema_python
         COMMAND ${STORQ_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/check_h5_schema.py
                 ${CMAKE_CURRENT_BINARY_DIR}/test_point_tree_write.h5)
set_tests_properties(point_tree_write_schema_python PROPERTIES LABELS "python" TIMEOUT 30
  FIXTURES_REQUIRED storq_point_tree_write_file DEPENDS test_point_tree_write)

# Replication-level checkpoints: written, resumed, overwritten, dropped, refused when their shape
# is not the point's; then the schema checker and the analysis package on the partial file with a
# checkpoint that the C test leaves behind.
storq_unit_test(test_h5_checkpoint ${CMAKE_CURRENT_SOURCE_DIR}/test_h5_checkpoint.c)
set_tests_properties(test_h5_checkpoint PROPERTIES LABELS "unit" TIMEOUT 30
  FIXTURES_SETUP storq_h5_checkpoint_file)
set(STORQ_TEST_CHECKPOINT_H5 ${CMAKE_CURRENT_BINARY_DIR}/test_h5_checkpoint_left.h5.partial)
add_test(NAME h5_checkpoint_schema_python
         COMMAND ${STORQ_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/check_h5_schema.py
                 ${STORQ_TEST_CHECKPOINT_H5})
add_test(NAME h5_checkpoint_python_package
         COMMAND ${STORQ_PYTHON} -c
                 "import sys, storq\nr = storq.open(sys.argv[1])\nassert r.points() == [0], r.points()\nassert r.checkpoints() == {1: 3}, r.checkpoints()\nprint(r, r.checkpoints())"
                 ${STORQ_TEST_CHECKPOINT_H5})
set_tests_properties(h5_checkpoint_schema_python h5_checkpoint_python_package PROPERTIES
  LABELS "python" TIMEOUT 30 FIXTURES_REQUIRED storq_h5_checkpoint_file DEPENDS test_h5_checkpoint
  ENVIRONMENT "PYTHONPATH=${CMAKE_SOURCE_DIR}/io/python")

# The run's record of its units (/run/units, /run/ranks, /run/sessions): two sessions across a
# resume, read back through HDF5, and a record of a storq before CPU time; then the schema checker,
# the analysis package and jobs/replay_schedule.py on the file the C test leaves (exact values), on
# its record rewritten as before CPU time, on files built with h5py, and on a real run.
storq_unit_test(test_h5_units ${CMAKE_CURRENT_SOURCE_DIR}/test_h5_units.c)
set_tests_properties(test_h5_units PROPERTIES LABELS "unit" TIMEOUT 30
  FIXTURES_SETUP storq_h5_units_file)
set(STORQ_TEST_UNITS_H5 ${CMAKE_CURRENT_BINARY_DIR}/test_h5_units_left.h5)
# Long records (300,001 rows; a resumed session past 257 chunks of 256 rows; 20,000 ranks): at most
# STORQ_H5U_CHUNKS_MAX chunks a table, the limit of HDF5's chunk index as storq sizes it.
storq_unit_test(test_h5_units_long ${CMAKE_CURRENT_SOURCE_DIR}/test_h5_units_long.c)
set_tests_properties(test_h5_units_long PROPERTIES LABELS "unit" TIMEOUT 60)
# A file HDF5 cannot close ends the process normally, not in a crash at MPI_Finalize.
storq_unit_test(test_h5_close_failed ${CMAKE_CURRENT_SOURCE_DIR}/test_h5_close_failed.c)
set_tests_properties(test_h5_close_failed PROPERTIES LABELS "unit" TIMEOUT 30)
add_test(NAME h5_units_schema_python
         COMMAND ${STORQ_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/check_h5_schema.py
                 ${STORQ_TEST_UNITS_H5})
add_test(NAME replay_schedule_python
         COMMAND ${STORQ_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/test_replay_schedule.py
                 $<TARGET_FILE:storq> ${STORQ_TEST_UNITS_H5} ${CMAKE_CURRENT_BINARY_DIR})
# replay_schedule_python runs the replay script a dozen times (each loads pandas and h5py) and a
# real run: 10-25 s under ctest -j2, 45 s with other builds on the machine
set_tests_properties(h5_units_schema_python replay_schedule_python PROPERTIES
  LABELS "python" TIMEOUT 120 FIXTURES_REQUIRED storq_h5_units_file DEPENDS test_h5_units
  ENVIRONMENT "PYTHONPATH=${CMAKE_SOURCE_DIR}/io/python;${STORQ_MPI_ENV}")
# Result file sizes (compression, bin edges once per layout) and readers of the layout before 1.3.
add_test(NAME e2e_file_size
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/e2e_file_size.sh $<TARGET_FILE:storq> ${STORQ_PYTHON})
set_tests_properties(e2e_file_size PROPERTIES LABELS "e2e" TIMEOUT 120
  ENVIRONMENT "${STORQ_MPI_ENV}")

# Rows of a 2.0 file as the trees of their 1.x points (io/h5_rows_tree.h): the corpus, a run
# with a precision target and a task's file, converted, every row equal to its 1.x group read
# with storq_pt_read_h5; 2.0 files made odd refused with a usage error.
storq_unit_test(test_rows_tree ${CMAKE_CURRENT_SOURCE_DIR}/test_rows_tree.c)
# 15-25 s: the corpus runs (8 s alone), 17 conversions.
set(STORQ_CORPUS_RUN ${CMAKE_CURRENT_SOURCE_DIR}/corpus/run.sh)
set_tests_properties(test_rows_tree PROPERTIES LABELS "e2e" TIMEOUT 120 ENVIRONMENT
  "${STORQ_MPI_ENV};STORQ_BIN=$<TARGET_FILE:storq>;STORQ_CORPUS=${STORQ_CORPUS_RUN}")
