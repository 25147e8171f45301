# Run by `cmake --install` (install(CODE) in cmake/install.cmake): installs the batch script
# STORQ_SCRIPT into STORQ_SCRIPT_DEST with its default binary, the line `default_storq=storq`, set
# to the absolute path of the storq this install puts in STORQ_SCRIPT_BINDIR (both relative to
# the install prefix unless absolute). The script is written to STORQ_SCRIPT_STAGE first and
# installed from there with file(INSTALL), which adds DESTDIR and records it in the manifest.
foreach(var STORQ_SCRIPT_DEST STORQ_SCRIPT_BINDIR)
  if(NOT IS_ABSOLUTE "${${var}}")
    set(${var} "${CMAKE_INSTALL_PREFIX}/${${var}}")
  endif()
  # a relative --prefix is taken from the directory cmake --install runs in
  get_filename_component(${var} "${${var}}" ABSOLUTE)
endforeach()
set(storq_bin "${STORQ_SCRIPT_BINDIR}/storq")
file(READ "${STORQ_SCRIPT}" storq_text)
string(REPLACE "'" "'\\''" storq_quoted "${storq_bin}") # for a single-quoted shell word
string(REPLACE "\ndefault_storq=storq\n" "\ndefault_storq='${storq_quoted}'\n" storq_installed
       "${storq_text}")
if(storq_installed STREQUAL storq_text)
  message(FATAL_ERROR "${STORQ_SCRIPT}: no line 'default_storq=storq' to set to ${storq_bin}")
endif()
# One staging folder per destination: concurrent installs to different prefixes (the tests, CPack)
# must not write each other's copy.
string(SHA1 storq_key "$ENV{DESTDIR}|${STORQ_SCRIPT_DEST}|${storq_bin}")
get_filename_component(storq_name "${STORQ_SCRIPT}" NAME)
set(storq_staged "${STORQ_SCRIPT_STAGE}/${storq_key}/${storq_name}")
file(WRITE "${storq_staged}" "${storq_installed}")
file(INSTALL "${storq_staged}" DESTINATION "${STORQ_SCRIPT_DEST}"
     FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE
                      WORLD_READ WORLD_EXECUTE)
file(REMOVE_RECURSE "${STORQ_SCRIPT_STAGE}/${storq_key}")
