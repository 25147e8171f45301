# Output files and faults: one writer per output (OUT.h5.lock), and a full disk.
add_test(NAME e2e_lock COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/e2e_lock.sh $<TARGET_FILE:storq> ${STORQ_PYTHON})
set_tests_properties(e2e_lock PROPERTIES LABELS "e2e" TIMEOUT 180 ENVIRONMENT "${STORQ_MPI_ENV}")

# A full disk, simulated by a preloaded shim that makes writes past a size fail with ENOSPC.
add_library(storq_full_disk_shim MODULE ${CMAKE_CURRENT_SOURCE_DIR}/full_disk_shim.c)
target_link_libraries(storq_full_disk_shim PRIVATE ${CMAKE_DL_LIBS})
target_compile_options(storq_full_disk_shim PRIVATE ${STORQ_WARNINGS})
add_test(NAME e2e_full_disk COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/e2e_full_disk.sh $<TARGET_FILE:storq>
         ${STORQ_PYTHON} shim $<TARGET_FILE:storq_full_disk_shim>)
# 40 s alone under load 7; 90 s was reached once in a full ctest -j2 with other builds beside it
set_tests_properties(e2e_full_disk PROPERTIES LABELS "e2e" TIMEOUT 300 ENVIRONMENT "${STORQ_MPI_ENV}")
# The same on a real small file system (a tmpfs): needs root and permission to mount, else skipped.
add_test(NAME e2e_full_disk_tmpfs COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/e2e_full_disk.sh $<TARGET_FILE:storq>
         ${STORQ_PYTHON} tmpfs)
set_tests_properties(e2e_full_disk_tmpfs PROPERTIES LABELS "e2e" TIMEOUT 60 SKIP_RETURN_CODE 77
  ENVIRONMENT "${STORQ_MPI_ENV}")
