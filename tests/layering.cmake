# The layers are enforced by the build: a kernel or toolkit source that includes mpi.h, hdf5.h or
# an io/ header fails to compile. Each probe is a target left out of the default build; its test
# builds it and passes only when the compiler says it cannot find that header ("mpi.h: No such
# file", any other failure fails the test). The control probe must build.
set(header_of_mpi "mpi\\.h: ") # gcc: "fatal error: mpi.h: No such file or directory"
set(header_of_hdf5 "hdf5\\.h: ")
set(header_of_io "h5_writer\\.h: ")
foreach(layer toolkit kernels)
  foreach(probe mpi hdf5 io toolkit)
    set(target layering_${layer}_${probe})
    add_library(${target} OBJECT EXCLUDE_FROM_ALL ${CMAKE_CURRENT_SOURCE_DIR}/layering/includes_${probe}.c)
    # The probe gets exactly the layer's usage requirements (its include paths), nothing more.
    target_link_libraries(${target} PRIVATE storq_${layer})
    add_test(NAME ${target}
             COMMAND ${CMAKE_COMMAND} --build ${CMAKE_BINARY_DIR} --target ${target})
    set_tests_properties(${target} PROPERTIES LABELS "layering" TIMEOUT 60 RESOURCE_LOCK build_tree)
    if(NOT probe STREQUAL "toolkit")
      set_tests_properties(${target} PROPERTIES PASS_REGULAR_EXPRESSION "${header_of_${probe}}")
    endif()
  endforeach()
endforeach()
add_test(NAME layering_includes COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/layering/check_includes.sh)
set_tests_properties(layering_includes PROPERTIES LABELS "layering" TIMEOUT 30)

# No source file over 700 lines (docs/architecture.md).
add_test(NAME layering_file_lengths COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/layering/check_file_lengths.sh)
set_tests_properties(layering_file_lengths PROPERTIES LABELS "layering" TIMEOUT 30)
