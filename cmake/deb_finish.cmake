# Run by CPack (CPACK_PRE_BUILD_SCRIPTS) on its staging tree, after the install and before the
# package is made: the files Debian policy asks of a .deb that `cmake --install` has no use for.
# The man page gzipped (policy 12.1), share/doc/storq/copyright (12.5) and the changelog (12.7):
# changelog.gz, or changelog.Debian.gz when a Debian revision is given (CPACK_DEBIAN_PACKAGE_RELEASE).
if(NOT CPACK_GENERATOR STREQUAL "DEB")
  return()
endif()
set(root "${CPACK_TEMPORARY_INSTALL_DIRECTORY}${CPACK_PACKAGING_INSTALL_PREFIX}")
find_program(gzip gzip REQUIRED)

file(GLOB_RECURSE pages "${root}/${CPACK_STORQ_MANDIR}/*.[1-9]")
foreach(page ${pages})
  # -n: no name or time stamp in the header, so the same page gives the same bytes
  execute_process(COMMAND ${gzip} -9nf "${page}" RESULT_VARIABLE status)
  if(status)
    message(FATAL_ERROR "gzip ${page}: ${status}")
  endif()
endforeach()

set(doc "${root}/${CPACK_STORQ_DOCDIR}")
configure_file("${CPACK_STORQ_COPYRIGHT}" "${doc}/copyright" COPYONLY)
set(version "${CPACK_PACKAGE_VERSION}")
set(changelog "${doc}/changelog")
if(CPACK_DEBIAN_PACKAGE_RELEASE)
  string(APPEND version "-${CPACK_DEBIAN_PACKAGE_RELEASE}")
  set(changelog "${doc}/changelog.Debian")
endif()
file(WRITE "${changelog}"
"${CPACK_PACKAGE_NAME} (${version}) unstable; urgency=medium

  * Built with CPack from the storq sources at commit ${CPACK_STORQ_COMMIT}.

 -- ${CPACK_PACKAGE_CONTACT}  ${CPACK_STORQ_CHANGELOG_DATE}
")
execute_process(COMMAND ${gzip} -9nf "${changelog}" RESULT_VARIABLE status)
if(status)
  message(FATAL_ERROR "gzip ${changelog}: ${status}")
endif()
