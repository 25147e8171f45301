add_executable(bench_forkjoin ${CMAKE_CURRENT_SOURCE_DIR}/bench_forkjoin.c)
target_link_libraries(bench_forkjoin PRIVATE storq::core)
target_compile_options(bench_forkjoin PRIVATE ${STORQ_WARNINGS})
