# proxy kernel: differential test against a plain event-driven implementation, statistical
# validation against the exact cases and the paper's claims, and the CLI's usage errors.
storq_unit_test(test_proxy_reference test_proxy_reference.c)
target_include_directories(test_proxy_reference PRIVATE ${CMAKE_SOURCE_DIR}/kernels)
set_tests_properties(test_proxy_reference PROPERTIES TIMEOUT 60 LABELS "proxy;reference")
