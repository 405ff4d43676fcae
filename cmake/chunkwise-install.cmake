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
  if(TARGET chunkwise_${_comp}_compiled)
    # compiled mode: chunkwise::<comp>_compiled comes with the component (find_package COMPONENTS <comp>)
    install(TARGETS chunkwise_${_comp}_compiled EXPORT chunkwise_${_comp}Targets
            ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}")
  endif()
  install(EXPORT chunkwise_${_comp}Targets NAMESPACE chunkwise:: DESTINATION "${CHUNKWISE_CMAKE_INSTALL_DIR}")
  install(FILES "${PROJECT_BINARY_DIR}/chunkwise-${_comp}-deps.cmake" DESTINATION "${CHUNKWISE_CMAKE_INSTALL_DIR}")
endforeach()
if("hdf5" IN_LIST CHUNKWISE_COMPONENTS)
  install(FILES "${PROJECT_SOURCE_DIR}/cmake/chunkwise-find-hdf5.cmake" DESTINATION "${CHUNKWISE_CMAKE_INSTALL_DIR}")
endif()
if("hdf5" IN_LIST CHUNKWISE_COMPONENTS OR "zarr" IN_LIST CHUNKWISE_COMPONENTS)
  install(FILES "${PROJECT_SOURCE_DIR}/cmake/chunkwise-find-codecs.cmake" DESTINATION "${CHUNKWISE_CMAKE_INSTALL_DIR}")
endif()

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

# pkg-config files for users outside CMake (docs: README "Using it in your project"):
#   chunkwise.pc (core), chunkwise-mpi.pc, chunkwise-hdf5.pc and chunkwise-zarr.pc (components). Relocatable: the
#   prefix is found from the .pc file's own folder. MPI: compile with the MPI compiler wrapper
#   (mpicxx); the .pc adds Boost.MPI. HDF5: requires the HDF5 pkg-config module this build used,
#   or names the header folder and library it found by path (HDF5_ROOT).
set(CHUNKWISE_PKGCONFIG_INSTALL_DIR "${CMAKE_INSTALL_DATADIR}/pkgconfig" CACHE STRING
    "Where chunkwise's pkg-config files are installed, relative to the prefix")
set(_pc_head "prefix=\${pcfiledir}/../..\nincludedir=\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}\n\n")
file(CONFIGURE OUTPUT "${PROJECT_BINARY_DIR}/pkgconfig/chunkwise.pc" @ONLY CONTENT
"${_pc_head}Name: chunkwise
Description: split-apply-combine over blocks on threads and MPI ranks (header-only C++20)
Version: @PROJECT_VERSION@
Cflags: -std=c++20 -pthread -I\${includedir}
Libs: -pthread
")
set(_pc_files "${PROJECT_BINARY_DIR}/pkgconfig/chunkwise.pc")
if("mpi" IN_LIST CHUNKWISE_COMPONENTS)
  file(CONFIGURE OUTPUT "${PROJECT_BINARY_DIR}/pkgconfig/chunkwise-mpi.pc" @ONLY CONTENT
"${_pc_head}Name: chunkwise-mpi
Description: chunkwise's MPI component (mpi_policy, hybrid_policy; Boost.MPI); compile with mpicxx
Version: @PROJECT_VERSION@
Requires: chunkwise
Libs: -lboost_mpi -lboost_serialization
")
  list(APPEND _pc_files "${PROJECT_BINARY_DIR}/pkgconfig/chunkwise-mpi.pc")
endif()
# The codec libraries a component decodes with (libdeflate where `libdeflate`, then `codecs`),
# added to its .pc's Requires (pkg-config modules) or Libs, and their macros to its Cflags.
macro(chunkwise_pc_codecs libdeflate codecs)
  if(${libdeflate})
    string(APPEND _pc_cflags " -DCHUNKWISE_USE_LIBDEFLATE=1")
    if(TARGET PkgConfig::CHUNKWISE_LIBDEFLATE)
      string(APPEND _pc_requires " libdeflate")
    else()
      get_target_property(_pc_deflate chunkwise::libdeflate INTERFACE_LINK_LIBRARIES)
      string(APPEND _pc_libs " ${_pc_deflate}")
    endif()
  endif()
  foreach(_codec IN LISTS ${codecs})
    string(TOUPPER "${_codec}" _upper)
    string(APPEND _pc_cflags " -DCHUNKWISE_USE_${_upper}=1")
    list(GET CHUNKWISE_CODEC_${_codec} 0 _module)
    if(TARGET PkgConfig::CHUNKWISE_CODEC_${_upper})
      string(APPEND _pc_requires " ${_module}")
    else()
      get_target_property(_pc_codec chunkwise::${_codec} INTERFACE_LINK_LIBRARIES)
      string(APPEND _pc_libs " ${_pc_codec}")
    endif()
  endforeach()
  get_target_property(_pc_xtensor_includes xtensor INTERFACE_INCLUDE_DIRECTORIES)
  foreach(_dir IN LISTS _pc_xtensor_includes)
    if(_dir AND NOT _dir MATCHES "^\\$<" AND NOT _dir STREQUAL "/usr/include")
      string(APPEND _pc_cflags " -I${_dir}")
    endif()
  endforeach()
endmacro()
if("hdf5" IN_LIST CHUNKWISE_COMPONENTS)
  set(_pc_requires "chunkwise ${CHUNKWISE_HDF5_PKG} zlib")
  set(_pc_cflags "")
  set(_pc_libs "")
  if(CHUNKWISE_HDF5_PKG STREQUAL "")
    string(APPEND _pc_cflags " -I${CHUNKWISE_HDF5_INCLUDE_DIR}")
    string(APPEND _pc_libs " ${CHUNKWISE_HDF5_LIBRARY}")
  endif()
  chunkwise_pc_codecs(CHUNKWISE_HDF5_LIBDEFLATE CHUNKWISE_HDF5_CODECS)
  file(CONFIGURE OUTPUT "${PROJECT_BINARY_DIR}/pkgconfig/chunkwise-hdf5.pc" @ONLY CONTENT
"${_pc_head}Name: chunkwise-hdf5
Description: chunkwise's HDF5 component (h5::dataset, chunk-aligned reads; @CHUNKWISE_HDF5_HOW@, xtensor)
Version: @PROJECT_VERSION@
Requires: ${_pc_requires}
Cflags:${_pc_cflags}
Libs:${_pc_libs}
")
  list(APPEND _pc_files "${PROJECT_BINARY_DIR}/pkgconfig/chunkwise-hdf5.pc")
endif()
if("zarr" IN_LIST CHUNKWISE_COMPONENTS)
  set(_pc_requires "chunkwise nlohmann_json zlib")
  set(_pc_cflags "")
  set(_pc_libs "")
  chunkwise_pc_codecs(CHUNKWISE_ZARR_LIBDEFLATE CHUNKWISE_ZARR_CODECS)
  file(CONFIGURE OUTPUT "${PROJECT_BINARY_DIR}/pkgconfig/chunkwise-zarr.pc" @ONLY CONTENT
"${_pc_head}Name: chunkwise-zarr
Description: chunkwise's Zarr component (zarr::array, zarr::write_blocks; Zarr v2 and v3, nlohmann_json, xtensor)
Version: @PROJECT_VERSION@
Requires: ${_pc_requires}
Cflags:${_pc_cflags}
Libs:${_pc_libs}
")
  list(APPEND _pc_files "${PROJECT_BINARY_DIR}/pkgconfig/chunkwise-zarr.pc")
endif()
# Compiled mode: chunkwise-<comp>-compiled.pc, the component's flags and its library.
foreach(_comp IN LISTS CHUNKWISE_COMPONENTS)
  if(TARGET chunkwise_${_comp}_compiled)
    string(TOUPPER "${_comp}" _upper)
    file(CONFIGURE OUTPUT "${PROJECT_BINARY_DIR}/pkgconfig/chunkwise-${_comp}-compiled.pc" @ONLY CONTENT
"${_pc_head}libdir=\${prefix}/${CMAKE_INSTALL_LIBDIR}

Name: chunkwise-${_comp}-compiled
Description: chunkwise's ${_comp} component in compiled mode (libchunkwise_${_comp})
Version: @PROJECT_VERSION@
Requires: chunkwise-${_comp}
Cflags: -DCHUNKWISE_${_upper}_SEPARATE_COMPILATION=1
Libs: -L\${libdir} -lchunkwise_${_comp}
")
    list(APPEND _pc_files "${PROJECT_BINARY_DIR}/pkgconfig/chunkwise-${_comp}-compiled.pc")
  endif()
endforeach()
install(FILES ${_pc_files} DESTINATION "${CHUNKWISE_PKGCONFIG_INSTALL_DIR}")
