add_executable(bench_cluster ${CMAKE_CURRENT_SOURCE_DIR}/bench_cluster.c)
target_link_libraries(bench_cluster PRIVATE storq::core)
target_compile_options(bench_cluster PRIVATE ${STORQ_WARNINGS})
