# Install rules and the CMake package: chunkwiseConfig.cmake, its version file, one targets file
# for the core and one per component.
include(CMakePackageConfigHelpers)

set(CHUNKWISE_CMAKE_INSTALL_DIR "${CMAKE_INSTALL_DATADIR}/cmake/chunkwise" CACHE STRING
    "Where chunkwise's CMake package files are installed, relative to the prefix")

install(DIRECTORY "${PROJECT_SOURCE_DIR}/include/chunkwise" DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}")
install(TARGETS chunkwise EXPORT chunkwiseTargets)
install(EXPORT chunkwiseTargets NAMESPACE chunkwise:: DESTINATION "${CHUNKWISE_CMAKE_INSTALL_DIR}")
foreach(_comp IN LISTS CHUNKWISE_COMPONENTS)
  install(TARGETS chunkwise_${_comp} EXPORT chunkwise_${_comp}Targets)
  install(EXPORT chunkwise_${_comp}Targets NAMESPACE chunkwise:: DESTINATION "${CHUNKWISE_CMAKE_INSTALL_DIR}")
  install(FILES "${PROJECT_BINARY_DIR}/chunkwise-${_comp}-deps.cmake" DESTINATION "${CHUNKWISE_CMAKE_INSTALL_DIR}")
endforeach()

configure_package_config_file(
  "${PROJECT_SOURCE_DIR}/cmake/chunkwiseConfig.cmake.in"
  "${PROJECT_BINARY_DIR}/chunkwiseConfig.cmake"
  INSTALL_DESTINATION "${CHUNKWISE_CMAKE_INSTALL_DIR}")
# 0.x: a minor release may break the API, so only the same minor version is compatible.
write_basic_package_version_file(
  "${PROJECT_BINARY_DIR}/chunkwiseConfigVersion.cmake"
  COMPATIBILITY SameMinorVersion
  ARCH_INDEPENDENT)
install(FILES "${PROJECT_BINARY_DIR}/chunkwiseConfig.cmake" "${PROJECT_BINARY_DIR}/chunkwiseConfigVersion.cmake"
        DESTINATION "${CHUNKWISE_CMAKE_INSTALL_DIR}")
install(FILES "${PROJECT_SOURCE_DIR}/LICENSE" DESTINATION "${CMAKE_INSTALL_DATADIR}/doc/chunkwise")
