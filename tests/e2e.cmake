# End-to-end: the storq binary as users run it. Rank/thread invariance is in invariance.cmake.
set(STORQ_BIN $<TARGET_FILE:storq>)
add_test(NAME e2e_cli_errors COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/e2e_cli_errors.sh ${STORQ_BIN})
add_test(NAME e2e_sweep COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/e2e_sweep.sh ${STORQ_BIN} ${STORQ_PYTHON})
add_test(NAME e2e_resume COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/e2e_resume.sh ${STORQ_BIN} ${STORQ_PYTHON})
set_tests_properties(e2e_cli_errors e2e_sweep e2e_resume PROPERTIES LABELS "e2e"
  ENVIRONMENT "${STORQ_MPI_ENV};MPLBACKEND=Agg")
set_tests_properties(e2e_cli_errors PROPERTIES TIMEOUT 150)
set_tests_properties(e2e_sweep PROPERTIES TIMEOUT 90)
# It kills a sweep once its first point is written: alone, so other tests do not skew the timing.
set_tests_properties(e2e_resume PROPERTIES TIMEOUT 90 RUN_SERIAL TRUE)
add_test(NAME e2e_slurm COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/e2e_slurm.sh ${STORQ_BIN} ${STORQ_PYTHON})
set_tests_properties(e2e_slurm PROPERTIES LABELS "slurm" TIMEOUT 300 SKIP_RETURN_CODE 77 RUN_SERIAL TRUE
  ENVIRONMENT "${STORQ_MPI_ENV}")
add_test(NAME e2e_corpus_unchanged
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/corpus/check.sh ${STORQ_BIN} ${STORQ_PYTHON})
set_tests_properties(e2e_corpus_unchanged PROPERTIES LABELS "corpus" TIMEOUT 90
  ENVIRONMENT "${STORQ_MPI_ENV}")
# the same runs finished into schema 2.0 (--schema 2) against the conversion of their 1.x files
add_test(NAME e2e_corpus_schema2
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/corpus/check_schema2.sh ${STORQ_BIN} ${STORQ_PYTHON})
set_tests_properties(e2e_corpus_schema2 PROPERTIES LABELS "corpus" TIMEOUT 300
  ENVIRONMENT "${STORQ_MPI_ENV}")
# The same bits from an -O3 -march=native build (storq only, in build/tests/build_flags), and
# the user's flags are the ones used. It builds with -j 2: it takes both of CTest's slots.
add_test(NAME build_flags_corpus
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/build_flags.sh ${CMAKE_SOURCE_DIR}
                 ${CMAKE_CURRENT_BINARY_DIR}/build_flags ${CMAKE_GENERATOR} ${CMAKE_C_COMPILER}
                 ${STORQ_PYTHON})
set_tests_properties(build_flags_corpus PROPERTIES LABELS "corpus" TIMEOUT 400 PROCESSORS 2
  ENVIRONMENT "${STORQ_MPI_ENV}")
# A rank with no work left waits for the others without spinning: its CPU time stays small.
add_test(NAME e2e_idle_rank COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/e2e_idle_rank.sh ${STORQ_BIN} ${STORQ_PYTHON})
set_tests_properties(e2e_idle_rank PROPERTIES LABELS "e2e" TIMEOUT 120 RUN_SERIAL TRUE
  ENVIRONMENT "${STORQ_MPI_ENV}")
# Every transport (vader, tcp) and every osc component: same results, fair shares of equal units.
add_test(NAME e2e_transports COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/e2e_transports.sh ${STORQ_BIN} ${STORQ_PYTHON})
set_tests_properties(e2e_transports PROPERTIES LABELS "e2e" TIMEOUT 480 RUN_SERIAL TRUE
  ENVIRONMENT "${STORQ_MPI_ENV}")
# Threads that would share a core (a rank bound to one core) are warned about; one each is silent.
add_test(NAME e2e_thread_cores COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/e2e_thread_cores.sh ${STORQ_BIN} ${STORQ_PYTHON})
set_tests_properties(e2e_thread_cores PROPERTIES LABELS "e2e" TIMEOUT 60 RESOURCE_LOCK mpirun
  ENVIRONMENT "${STORQ_MPI_ENV}")
# A signal stops long replications within a fraction of a second; --resume completes the file.
add_test(NAME e2e_stop COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/e2e_stop.sh ${STORQ_BIN} ${STORQ_PYTHON})
set_tests_properties(e2e_stop PROPERTIES LABELS "e2e" TIMEOUT 240 RUN_SERIAL TRUE
  ENVIRONMENT "${STORQ_MPI_ENV}")
# Progress: lines within a long replication (log and terminal), --quiet, two ranks, same bits.
add_test(NAME e2e_progress COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/e2e_progress.sh ${STORQ_BIN} ${STORQ_PYTHON})
set_tests_properties(e2e_progress PROPERTIES LABELS "e2e" TIMEOUT 180 SKIP_RETURN_CODE 77 RUN_SERIAL TRUE
  ENVIRONMENT "${STORQ_MPI_ENV}")
# A job killed midway keeps its replications (checkpoints); --resume reruns only the missing ones.
add_test(NAME e2e_checkpoint COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/e2e_checkpoint.sh ${STORQ_BIN} ${STORQ_PYTHON})
set_tests_properties(e2e_checkpoint PROPERTIES LABELS "e2e" TIMEOUT 300 RUN_SERIAL TRUE
  ENVIRONMENT "${STORQ_MPI_ENV}")
# Precision targets: batches until the CI target is met, re-derived from the stored values.
add_test(NAME e2e_precision COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/e2e_precision.sh ${STORQ_BIN} ${STORQ_PYTHON})
set_tests_properties(e2e_precision PROPERTIES LABELS "e2e" TIMEOUT 90 RUN_SERIAL TRUE
  ENVIRONMENT "${STORQ_MPI_ENV}")
# The memory budget (estimate, limit and its source) and trace inputs, refused before any file;
# each model's estimate is checked against the memory a replication really touches.
add_test(NAME e2e_memory COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/e2e_memory.sh ${STORQ_BIN} ${STORQ_PYTHON})
set_tests_properties(e2e_memory PROPERTIES LABELS "e2e" TIMEOUT 300 RUN_SERIAL TRUE
  ENVIRONMENT "${STORQ_MPI_ENV}")
# storq theory and storq info output: formats, summary, quantiles, theory column (issue 13)
add_test(NAME e2e_views COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/e2e_views.sh ${STORQ_BIN} ${STORQ_PYTHON})
set_tests_properties(e2e_views PROPERTIES LABELS "e2e" TIMEOUT 120)
add_test(NAME e2e_option_values
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/e2e_option_values.sh ${STORQ_BIN} ${STORQ_PYTHON})
set_tests_properties(e2e_option_values PROPERTIES LABELS "e2e" TIMEOUT 120
  ENVIRONMENT "${STORQ_MPI_ENV}")
# storq theory refuses the options of storq run by name (QA of 2026-12-05).
add_test(NAME e2e_qa_cli COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/e2e_qa_cli.sh ${STORQ_BIN})
set_tests_properties(e2e_qa_cli PROPERTIES LABELS "e2e" TIMEOUT 60)
# The record of the units is written as they run: a killed run keeps its blocks of rows.
add_test(NAME e2e_units_streamed COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/e2e_units_streamed.sh ${STORQ_BIN} ${STORQ_PYTHON})
set_tests_properties(e2e_units_streamed PROPERTIES LABELS "e2e" TIMEOUT 300 RUN_SERIAL TRUE)
# The guarded readers' limit is on progress: a healthy file that takes longer is read.
add_test(NAME e2e_check_progress COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/e2e_check_progress.sh ${STORQ_BIN} ${STORQ_PYTHON})
set_tests_properties(e2e_check_progress PROPERTIES LABELS "e2e" TIMEOUT 240)
