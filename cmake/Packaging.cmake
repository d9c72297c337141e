# The Debian package: `cpack -G DEB` in a release build (cmake --preset package).
# Runtime dependencies come from dpkg-shlibdeps on the installed executables,
# never typed by hand; packaging/README.md explains every field and lintian tag.
set(GAPSCOPE_PACKAGE_MAINTAINER "Gapscope maintainers <maintainers@gapscope.invalid>"
    CACHE STRING "Maintainer field of the Debian package")

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME gapscope)
set(CPACK_PACKAGE_VENDOR "The Gapscope authors")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "find which op made an on-device ML model drift")
set(CPACK_PACKAGE_INSTALL_DIRECTORY gapscope)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
# Directories 0755 whatever the builder's umask (lintian: non-standard-dir-perm).
set(CPACK_INSTALL_DEFAULT_DIRECTORY_PERMISSIONS
    OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)

set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT) # gapscope_<version>_<arch>.deb
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${GAPSCOPE_PACKAGE_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# The graph view runs Graphviz's dot as a program (a layout can be abandoned by
# killing it); shlibdeps sees only the libraries.
set(CPACK_DEBIAN_PACKAGE_DEPENDS "graphviz")
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
# The long description, below the synopsis (CPACK_PACKAGE_DESCRIPTION_SUMMARY);
# CPack indents it and turns the empty line into Debian's " .".
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
    "Gapscope reads what an ExecuTorch runtime dumped (ETDump and debug buffer),
the ETRecord and an ahead-of-time reference capture, aligns runtime and
reference intermediate outputs by debug handle with ExecuTorch's own rules,
and shows the gap per op: a sortable table, heatmaps, a gap chart, and PNG,
CSV and HTML reports.

The package holds the desktop app (gapscope), its command-line twin for CI
(gapscope-cli) and the desktop integration that opens .etdp files in it. The
Python exporter that writes the reference capture (gapscope-capture) is
installed with pip.")

include(CPack)
