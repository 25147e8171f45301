# The Python analysis package (io/python/storq) under Debian's pytest: the loader, frames,
# histograms, quantiles, vectors and xarray on a small file of every model made by the built
# storq; older and newer minor schema versions; pip install offline. Then the figure script's
# --ci mode with assertions on the plotted data, and the HTML report on every model's file.
add_test(NAME python_package
         COMMAND ${STORQ_PYTHON} -m pytest -q -p no:cacheprovider ${CMAKE_CURRENT_SOURCE_DIR}/python/test_package.py
                 --basetemp=${CMAKE_CURRENT_BINARY_DIR}/pytest-package)
set_tests_properties(python_package PROPERTIES LABELS "python" TIMEOUT 240
  ENVIRONMENT "MPLBACKEND=Agg;STORQ_BIN=$<TARGET_FILE:storq>;OMP_NUM_THREADS=1")

add_test(NAME python_figures
         COMMAND ${STORQ_PYTHON} -m pytest -q -p no:cacheprovider ${CMAKE_CURRENT_SOURCE_DIR}/python/test_figures.py
                 --basetemp=${CMAKE_CURRENT_BINARY_DIR}/pytest-figures)
set_tests_properties(python_figures PROPERTIES LABELS "python" TIMEOUT 600
  ENVIRONMENT "MPLBACKEND=Agg;STORQ_BIN=$<TARGET_FILE:storq>")

# The reader never returns what a damaged file does not hold: /points/index (no checksum) must
# agree with each complete point's checksummed attributes, as storq info checks; a file cut
# short, not HDF5 or locked by a writer is refused with storq's own exceptions.
add_test(NAME python_reader_trust
         COMMAND ${STORQ_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/test_python_reader_trust.py
                 $<TARGET_FILE:storq> ${CMAKE_CURRENT_BINARY_DIR}/python-reader-trust)
set_tests_properties(python_reader_trust PROPERTIES LABELS "python" TIMEOUT 120
  ENVIRONMENT "OMP_NUM_THREADS=1")

# Schema 2.0 (docs/hdf5-schema-2.md): the corpus converted by the command in STORQ_CONVERT
# (`storq convert`; without it tests/convert_reference.py) reads the same through every public call as its
# 1.x source, passes check_h5_schema.py --against it, and a value changed without its checksum
# is refused naming the point.
add_test(NAME python_schema2
         COMMAND ${STORQ_PYTHON} -m pytest -q -p no:cacheprovider ${CMAKE_CURRENT_SOURCE_DIR}/python/test_schema2.py
                 --basetemp=${CMAKE_CURRENT_BINARY_DIR}/pytest-schema2)
# Run here with the C converter (`storq convert`); the reference converter's own files are
# compared with the C converter's in e2e_info_columnar.
set_tests_properties(python_schema2 PROPERTIES LABELS "python" TIMEOUT 400
  ENVIRONMENT "MPLBACKEND=Agg;STORQ_BIN=$<TARGET_FILE:storq>;STORQ_CONVERT=$<TARGET_FILE:storq> convert;OMP_NUM_THREADS=1")
