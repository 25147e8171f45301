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
