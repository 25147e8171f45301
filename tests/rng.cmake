# Random numbers and distributions.
storq_unit_test(test_rng test_rng.c)
set_tests_properties(test_rng PROPERTIES LABELS "unit" TIMEOUT 30)
# Mostly sampling checks against moments, KS and chi-square bounds.
storq_unit_test(test_distribution test_distribution.c)
set_tests_properties(test_distribution PROPERTIES LABELS "statistical" TIMEOUT 40)

# Raw generator outputs for the comparisons with numpy and pcg-cpp.
add_executable(rng_dump rng_dump.c)
target_link_libraries(rng_dump PRIVATE storq::core)
target_compile_options(rng_dump PRIVATE ${STORQ_WARNINGS})

# Number for number against numpy's PCG64DXSM and PCG64.
add_test(NAME rng_numpy
         COMMAND ${STORQ_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/rng_numpy_check.py
                 $<TARGET_FILE:rng_dump>)
set_tests_properties(rng_numpy PROPERTIES LABELS "reference" TIMEOUT 30)

# Number for number against the PCG authors' C++ library (header-only, Debian libpcg-cpp-dev).
find_path(STORQ_PCG_CPP_INCLUDE pcg_random.hpp)
if(STORQ_PCG_CPP_INCLUDE)
  add_executable(rng_pcgcpp_ref rng_pcgcpp_ref.cpp)
  target_include_directories(rng_pcgcpp_ref PRIVATE ${STORQ_PCG_CPP_INCLUDE})
  target_compile_options(rng_pcgcpp_ref PRIVATE ${STORQ_WARNINGS})
  set_target_properties(rng_pcgcpp_ref PROPERTIES CXX_STANDARD 14 CXX_STANDARD_REQUIRED ON)
  add_test(NAME rng_pcgcpp
           COMMAND ${STORQ_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/rng_numpy_check.py
                   $<TARGET_FILE:rng_dump> --pcgcpp $<TARGET_FILE:rng_pcgcpp_ref>)
  set_tests_properties(rng_pcgcpp PROPERTIES LABELS "reference" TIMEOUT 30)
else()
  message(WARNING "pcg_random.hpp not found (Debian: libpcg-cpp-dev): test rng_pcgcpp skipped")
endif()
