add_executable(bench_supermarket ${CMAKE_CURRENT_SOURCE_DIR}/bench_supermarket.c)
target_link_libraries(bench_supermarket PRIVATE storq::core)
target_compile_options(bench_supermarket PRIVATE ${STORQ_WARNINGS})
