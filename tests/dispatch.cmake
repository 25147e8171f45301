# The hand-out of units and the transfer of results (mpi/dispatch.c, mpi/transfer.c) under
# mpirun, over shared memory and over tcp (how ranks on different nodes talk), oversubscribed.
add_executable(test_dispatch ${CMAKE_CURRENT_SOURCE_DIR}/test_dispatch.c)
target_link_libraries(test_dispatch PRIVATE storq::core)
target_include_directories(test_dispatch PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
target_compile_options(test_dispatch PRIVATE ${STORQ_WARNINGS})
foreach(btl vader tcp)
  add_test(NAME test_dispatch_${btl}
           COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 4 --mca btl self,${btl}
                   $<TARGET_FILE:test_dispatch>)
  set_tests_properties(test_dispatch_${btl} PROPERTIES LABELS "unit;mpi" TIMEOUT 60
    RESOURCE_LOCK mpirun ENVIRONMENT "${STORQ_MPI_ENV}")
endforeach()
