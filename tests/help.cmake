# Help, the man page (docs/storq.1 must be what `storq --man` generates) and the install rules.
add_test(NAME e2e_help COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/e2e_help.sh $<TARGET_FILE:storq>
         ${CMAKE_SOURCE_DIR} ${CMAKE_BINARY_DIR})
set_tests_properties(e2e_help PROPERTIES LABELS "e2e" TIMEOUT 60)
