# Job arrays: `storq run --task I/N` and `storq merge`, end to end.
add_test(NAME e2e_merge
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/e2e_merge.sh $<TARGET_FILE:storq> ${STORQ_PYTHON})
# It runs MPI jobs on the 2 cores: alone, like the other MPI tests.
set_tests_properties(e2e_merge PROPERTIES LABELS "e2e" TIMEOUT 240 RUN_SERIAL TRUE
  ENVIRONMENT "${STORQ_MPI_ENV}")
# The job-array batch script and its dependent merge on the local Slurm cluster (skipped without).
add_test(NAME e2e_slurm_array
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/e2e_slurm_array.sh $<TARGET_FILE:storq> ${STORQ_PYTHON})
set_tests_properties(e2e_slurm_array PROPERTIES LABELS "slurm" TIMEOUT 300 SKIP_RETURN_CODE 77 RUN_SERIAL TRUE
  ENVIRONMENT "${STORQ_MPI_ENV}")
# An output that is a link to nothing (run -o, merge OUT) is named as such; a merge missing a
# task gives advice that, followed as written, yields the single job's file.
add_test(NAME e2e_qa_outputs
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/e2e_qa_outputs.sh $<TARGET_FILE:storq> ${STORQ_PYTHON})
set_tests_properties(e2e_qa_outputs PROPERTIES LABELS "e2e" TIMEOUT 60 ENVIRONMENT "${STORQ_MPI_ENV}")
