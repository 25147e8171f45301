# End-to-end: the storq binary as users run it.
set(STORQ_BIN $<TARGET_FILE:storq>)
add_test(NAME e2e_cli_errors COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/e2e_cli_errors.sh ${STORQ_BIN})
add_test(NAME e2e_sweep COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/e2e_sweep.sh ${STORQ_BIN} ${STORQ_PYTHON})
add_test(NAME e2e_resume COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/e2e_resume.sh ${STORQ_BIN} ${STORQ_PYTHON})
add_test(NAME e2e_mpi_thread_invariance
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/e2e_invariance.sh ${STORQ_BIN} ${STORQ_PYTHON})
set_tests_properties(e2e_cli_errors e2e_sweep e2e_resume e2e_mpi_thread_invariance PROPERTIES
  TIMEOUT 600 ENVIRONMENT "${STORQ_MPI_ENV};MPLBACKEND=Agg")
# Two tests that both run MPI jobs on 2 cores would only slow each other down.
set_tests_properties(e2e_resume e2e_mpi_thread_invariance PROPERTIES RUN_SERIAL TRUE)
add_test(NAME e2e_slurm COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/e2e_slurm.sh ${STORQ_BIN} ${STORQ_PYTHON})
set_tests_properties(e2e_slurm PROPERTIES TIMEOUT 600 SKIP_RETURN_CODE 77 RUN_SERIAL TRUE
  ENVIRONMENT "${STORQ_MPI_ENV}")
add_test(NAME e2e_corpus_unchanged
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/corpus/check.sh ${STORQ_BIN} ${STORQ_PYTHON})
set_tests_properties(e2e_corpus_unchanged PROPERTIES TIMEOUT 300 ENVIRONMENT "${STORQ_MPI_ENV}")
