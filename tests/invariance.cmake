# Rank/thread invariance: one test per decomposition, invariance_<case>_r<ranks>t<threads>, each
# compared bit for bit with its case's 1-rank 1-thread run. That reference run is a fixture set-up
# test (invariance_<case>_r1t1), so running one decomposition alone (ctest -R) runs it first.
set(STORQ_INVARIANCE_DIR ${CMAKE_CURRENT_BINARY_DIR}/invariance)

# storq_invariance(CASE LABEL TIMEOUT DECOMPOSITION...), each decomposition as r<ranks>t<threads>.
function(storq_invariance name label timeout)
  foreach(decomposition r1t1 ${ARGN})
    string(REGEX MATCH "^r([0-9]+)t([0-9]+)$" match ${decomposition})
    set(ranks ${CMAKE_MATCH_1})
    set(threads ${CMAKE_MATCH_2})
    set(test invariance_${name}_${decomposition})
    add_test(NAME ${test}
             COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/e2e_invariance.sh $<TARGET_FILE:storq> ${STORQ_PYTHON}
                     ${STORQ_INVARIANCE_DIR} ${name} ${ranks} ${threads})
    math(EXPR cores "${ranks} * ${threads}")
    # PROCESSORS: CTest keeps that many of its -j slots for the test (all of them when it asks
    # for more), so on 2 cores a 2-core decomposition runs alone. The lock keeps two mpiruns
    # apart: each binds its first rank to the same core.
    set_tests_properties(${test} PROPERTIES LABELS "invariance;${label}" TIMEOUT ${timeout}
      PROCESSORS ${cores} RESOURCE_LOCK mpirun ENVIRONMENT "${STORQ_MPI_ENV}")
    if(decomposition STREQUAL "r1t1")
      set_tests_properties(${test} PROPERTIES FIXTURES_SETUP invariance_${name})
    else()
      set_tests_properties(${test} PROPERTIES FIXTURES_REQUIRED invariance_${name})
    endif()
  endforeach()
endfunction()

storq_invariance(supermarket supermarket 30 r1t2 r2t1 r2t2 r3t1 r3t2)
storq_invariance(supermarket_transient supermarket 30 r3t2)
storq_invariance(cluster cluster 30 r3t2)
storq_invariance(forkjoin forkjoin 30 r1t2 r3t2)
storq_invariance(proxy proxy 30 r1t2 r3t2)
storq_invariance(threads threads 30 r1t2 r3t2)
storq_invariance(mixed supermarket 30 r1t2 r2t1 r2t2 r3t1 r3t2)
storq_invariance(precision supermarket 60 r1t2 r2t2 r3t2)

# Every registered model at its defaults (a new model is covered without editing a test).
add_test(NAME invariance_every_model
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/e2e_invariance_models.sh $<TARGET_FILE:storq> ${STORQ_PYTHON})
set_tests_properties(invariance_every_model PROPERTIES LABELS "invariance" TIMEOUT 300
  PROCESSORS 2 RESOURCE_LOCK mpirun ENVIRONMENT "${STORQ_MPI_ENV}")
