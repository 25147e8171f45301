add_executable(bench_memory_floor ${CMAKE_CURRENT_SOURCE_DIR}/bench_memory_floor.c)
target_link_libraries(bench_memory_floor PRIVATE storq::core)
target_compile_options(bench_memory_floor PRIVATE ${STORQ_WARNINGS})
