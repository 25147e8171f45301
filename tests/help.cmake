# Help, the man page (docs/storq.1 must be what `storq --man` generates), the install rules, and
# the paths of sweep files.
add_test(NAME e2e_help COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/e2e_help.sh $<TARGET_FILE:storq>
         ${CMAKE_SOURCE_DIR} ${CMAKE_BINARY_DIR} ${CMAKE_COMMAND})
set_tests_properties(e2e_help PROPERTIES LABELS "e2e" TIMEOUT 150)
# Relative paths in sweep files: beside the sweep file; the stored command line pastes back.
add_test(NAME e2e_sweep_paths COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/e2e_sweep_paths.sh
         $<TARGET_FILE:storq> ${STORQ_PYTHON})
set_tests_properties(e2e_sweep_paths PROPERTIES LABELS "e2e" TIMEOUT 60
  ENVIRONMENT "${STORQ_MPI_ENV}")

# The checklist for adding a model is complete: a scratch copy of the template, registered as the
# checklist says, builds, runs and passes the registry-driven tests (docs/architecture.md).
add_test(NAME e2e_new_model COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/e2e_new_model.sh ${CMAKE_SOURCE_DIR}
                                    ${STORQ_PYTHON} ${CMAKE_COMMAND})
set_tests_properties(e2e_new_model PROPERTIES LABELS "e2e" TIMEOUT 900 RUN_SERIAL TRUE
  ENVIRONMENT "${STORQ_MPI_ENV}")
