add_executable(bench_threads ${CMAKE_CURRENT_SOURCE_DIR}/bench_threads.c)
target_link_libraries(bench_threads PRIVATE storq::core)
target_compile_options(bench_threads PRIVATE ${STORQ_WARNINGS})
