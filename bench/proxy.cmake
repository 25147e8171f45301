add_executable(bench_proxy ${CMAKE_CURRENT_SOURCE_DIR}/bench_proxy.c)
target_link_libraries(bench_proxy PRIVATE storq::core)
target_compile_options(bench_proxy PRIVATE ${STORQ_WARNINGS})
