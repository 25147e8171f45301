# Installing and packaging (docs/install.md): `cmake --install` to a temporary prefix (the files,
# the batch scripts' binary check, the Python package from the prefix), and the Debian package
# built by CPack, checked, unpacked and run from there. No test installs anything system-wide: CI
# runs as root on a shared machine.
add_test(NAME e2e_install
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/e2e_install.sh ${CMAKE_BINARY_DIR} ${CMAKE_SOURCE_DIR}
                 ${CMAKE_COMMAND} ${STORQ_PYTHON} ${PROJECT_VERSION})
set_tests_properties(e2e_install PROPERTIES LABELS "e2e" TIMEOUT 60 ENVIRONMENT "${STORQ_MPI_ENV}")
# cpack first builds the `preinstall` target (everything), a no-op after the suite's build.
add_test(NAME e2e_package
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/e2e_package.sh ${CMAKE_BINARY_DIR} ${CMAKE_CPACK_COMMAND}
                 ${CMAKE_COMMAND} ${STORQ_PYTHON} ${PROJECT_VERSION})
set_tests_properties(e2e_package PROPERTIES LABELS "e2e" TIMEOUT 90 SKIP_RETURN_CODE 77
  ENVIRONMENT "${STORQ_MPI_ENV}")
