# Finds the HDF5 C library for chunkwise::hdf5 without needing a C compiler (C++-only projects).
# Used by chunkwise's own build and by the installed package (chunkwise-hdf5-deps.cmake).
#
#   chunkwise_find_hdf5(<flavour> <first pkg-config module or "">)
#
# <flavour> (CMake option CHUNKWISE_HDF5_FLAVOR):
#   serial | openmpi | mpich  only that Debian/Ubuntu build (pkg-config hdf5-serial, hdf5-openmpi,
#                             hdf5-mpich);
#   AUTO                      HDF5_ROOT (CMake or environment variable) when set, else pkg-config
#                             <first>, hdf5-serial, hdf5-openmpi, hdf5-mpich, hdf5, else hdf5.h and
#                             libhdf5 where find_package(HDF5) looks: HDF5_DIR (environment, as Cray's
#                             modules set it), CMAKE_PREFIX_PATH and the system paths.
#
# On success creates the imported target chunkwise::hdf5_c (include folder, library, and MPI for
# a parallel build: detected from H5pubconf.h's H5_HAVE_PARALLEL) and sets, in the caller's scope,
#   chunkwise_hdf5_c_FOUND  TRUE
#   CHUNKWISE_HDF5_PKG      the pkg-config module used, or "" when found by path
#   CHUNKWISE_HDF5_HOW      one line: how and where it was found (for messages)
#   CHUNKWISE_HDF5_PARALLEL TRUE for a parallel (MPI) build of HDF5
#   CHUNKWISE_HDF5_HEADER_DIR  the folder of the hdf5.h found
#   CHUNKWISE_HDF5_INCLUDE_DIR, CHUNKWISE_HDF5_LIBRARY  when found by path
# On failure chunkwise_hdf5_c_FOUND is FALSE and CHUNKWISE_HDF5_NOT_FOUND_MESSAGE names everything
# looked for and how to point at an install.

# Version and parallel flag of the hdf5.h in <dir>: sets _cw_h5_version ("" if unreadable) and
# _cw_h5_parallel.
function(_chunkwise_hdf5_inspect dir)
  set(_version "")
  set(_parallel FALSE)
  if(EXISTS "${dir}/H5public.h")
    file(STRINGS "${dir}/H5public.h" _lines REGEX "^#define H5_VERS_(MAJOR|MINOR|RELEASE)[ \t]+[0-9]+")
    foreach(_part MAJOR MINOR RELEASE)
      string(REGEX MATCH "H5_VERS_${_part}[ \t]+([0-9]+)" _ "${_lines}")
      set(_${_part} "${CMAKE_MATCH_1}")
    endforeach()
    if(NOT _MAJOR STREQUAL "")
      set(_version "${_MAJOR}.${_MINOR}.${_RELEASE}")
    endif()
  endif()
  if(EXISTS "${dir}/H5pubconf.h")
    file(STRINGS "${dir}/H5pubconf.h" _par REGEX "^#define H5_HAVE_PARALLEL[ \t]+1")
    if(_par)
      set(_parallel TRUE)
    endif()
  endif()
  set(_cw_h5_version "${_version}" PARENT_SCOPE)
  set(_cw_h5_parallel ${_parallel} PARENT_SCOPE)
endfunction()

# The folder of the hdf5.h a pkg-config module points at (its -I folders, else /usr/include).
function(_chunkwise_hdf5_header_dir prefix out)
  foreach(_dir IN LISTS ${prefix}_INCLUDE_DIRS ${prefix}_INCLUDEDIR)
    if(EXISTS "${_dir}/hdf5.h")
      set(${out} "${_dir}" PARENT_SCOPE)
      return()
    endif()
  endforeach()
  set(${out} "/usr/include" PARENT_SCOPE)
endfunction()

macro(_chunkwise_hdf5_fail text)
  set(chunkwise_hdf5_c_FOUND FALSE PARENT_SCOPE)
  set(CHUNKWISE_HDF5_NOT_FOUND_MESSAGE "${text}" PARENT_SCOPE)
  return()
endmacro()

function(chunkwise_find_hdf5 flavour first_pkg)
  string(CONCAT _hint_text "Point chunkwise at an HDF5 install with -DHDF5_ROOT=<prefix> (the folder holding "
                "include/hdf5.h and lib/libhdf5.so) or by adding <prefix>/lib/pkgconfig to PKG_CONFIG_PATH; "
                "choose a Debian/Ubuntu build with -DCHUNKWISE_HDF5_FLAVOR=serial|openmpi|mpich "
                "(apt-get install libhdf5-dev, libhdf5-openmpi-dev or libhdf5-mpich-dev).")
  set(_root "")
  if(DEFINED HDF5_ROOT AND NOT HDF5_ROOT STREQUAL "")
    set(_root "${HDF5_ROOT}")
  elseif(DEFINED ENV{HDF5_ROOT} AND NOT "$ENV{HDF5_ROOT}" STREQUAL "")
    set(_root "$ENV{HDF5_ROOT}")
  endif()

  set(_pkgs "")
  set(_by_path TRUE)
  if(flavour STREQUAL "serial")
    set(_pkgs hdf5-serial)
    set(_by_path FALSE)
  elseif(flavour STREQUAL "openmpi")
    set(_pkgs hdf5-openmpi)
    set(_by_path FALSE)
  elseif(flavour STREQUAL "mpich")
    set(_pkgs hdf5-mpich)
    set(_by_path FALSE)
  elseif(flavour STREQUAL "AUTO" OR flavour STREQUAL "")
    if(_root STREQUAL "")
      set(_pkgs ${first_pkg} hdf5-serial hdf5-openmpi hdf5-mpich hdf5)
      list(REMOVE_DUPLICATES _pkgs)
    endif()
  else()
    _chunkwise_hdf5_fail("CHUNKWISE_HDF5_FLAVOR is '${flavour}'; it must be AUTO, serial, openmpi or mpich.")
  endif()

  set(_looked "")
  set(_found_pkg "")
  set(_how "")
  set(_include_dir "")
  set(_library "")
  if(_pkgs)
    find_package(PkgConfig QUIET)
    list(JOIN _pkgs ", " _pkg_text)
    if(NOT PKG_CONFIG_FOUND)
      list(APPEND _looked "pkg-config modules ${_pkg_text} (pkg-config itself was not found)")
    else()
      list(APPEND _looked "pkg-config modules ${_pkg_text} (PKG_CONFIG_PATH='$ENV{PKG_CONFIG_PATH}')")
      foreach(_pkg IN LISTS _pkgs)
        string(MAKE_C_IDENTIFIER "_chunkwise_probe_${_pkg}" _probe)
        pkg_check_modules(${_probe} QUIET ${_pkg})
        if(${_probe}_FOUND)
          set(_found_pkg "${_pkg}")
          break()
        endif()
      endforeach()
    endif()
  endif()

  if(_found_pkg)
    if(NOT TARGET PkgConfig::CHUNKWISE_HDF5)
      pkg_check_modules(CHUNKWISE_HDF5 QUIET IMPORTED_TARGET GLOBAL ${_found_pkg})
    endif()
    _chunkwise_hdf5_header_dir(${_probe} _dir)
    set(_how "pkg-config module ${_found_pkg} (${_dir})")
  elseif(_by_path)
    set(_opts "")
    if(NOT _root STREQUAL "")
      set(_hints "${_root}")
      set(_opts NO_DEFAULT_PATH)
      set(_where "HDF5_ROOT=${_root}")
    else()
      set(_hints "")
      if(DEFINED ENV{HDF5_DIR} AND NOT "$ENV{HDF5_DIR}" STREQUAL "")
        set(_hints "$ENV{HDF5_DIR}")
      endif()
      set(_where "HDF5_DIR='$ENV{HDF5_DIR}', CMAKE_PREFIX_PATH='${CMAKE_PREFIX_PATH}' and the system paths")
    endif()
    list(APPEND _looked "hdf5.h and libhdf5 under ${_where}")
    unset(_include_dir)
    unset(_library)
    find_path(_include_dir hdf5.h HINTS ${_hints} PATH_SUFFIXES include include/hdf5/serial ${_opts} NO_CACHE)
    find_library(_library NAMES hdf5 hdf5_serial hdf5-shared HINTS ${_hints}
                 PATH_SUFFIXES lib lib64 hdf5/serial ${_opts} NO_CACHE)
    if(_include_dir AND _library)
      set(_dir "${_include_dir}")
      set(_how "hdf5.h in ${_include_dir}, ${_library} (${_where})")
    else()
      set(_include_dir "")
      set(_library "")
    endif()
  endif()

  if(_how STREQUAL "")
    list(JOIN _looked "; then " _looked_text)
    _chunkwise_hdf5_fail("HDF5 was not found. Looked for ${_looked_text}. ${_hint_text}")
  endif()

  _chunkwise_hdf5_inspect("${_dir}")
  if(_cw_h5_version STREQUAL "")
    _chunkwise_hdf5_fail("the HDF5 found by ${_how} has no readable H5public.h. ${_hint_text}")
  endif()
  if(_cw_h5_version VERSION_LESS "1.10.5")
    _chunkwise_hdf5_fail("chunkwise needs HDF5 1.10.5 or newer; ${_how} is ${_cw_h5_version}. ${_hint_text}")
  endif()
  if(_cw_h5_parallel)
    # A parallel build's hdf5.h includes mpi.h. MPICH and OpenMPI both work: FindMPI asks the
    # MPI compiler wrapper (set MPI_HOME or MPI_CXX_COMPILER to choose one).
    find_package(MPI QUIET COMPONENTS CXX)
    if(NOT MPI_CXX_FOUND)
      _chunkwise_hdf5_fail("the HDF5 found (${_how}) is a parallel build and needs MPI for C++, which was not found "
                           "(set MPI_HOME or MPI_CXX_COMPILER; Debian/Ubuntu: apt-get install libopenmpi-dev). ${_hint_text}")
    endif()
  endif()

  if(NOT TARGET chunkwise::hdf5_c)
    add_library(chunkwise::hdf5_c INTERFACE IMPORTED GLOBAL)
    if(_found_pkg)
      target_link_libraries(chunkwise::hdf5_c INTERFACE PkgConfig::CHUNKWISE_HDF5)
    else()
      target_include_directories(chunkwise::hdf5_c INTERFACE "${_include_dir}")
      target_link_libraries(chunkwise::hdf5_c INTERFACE "${_library}")
      if(_library MATCHES "\\.a$")
        # A static libhdf5 needs what it was linked with (zlib; dl and m on Linux).
        find_package(ZLIB QUIET)
        target_link_libraries(chunkwise::hdf5_c INTERFACE $<TARGET_NAME_IF_EXISTS:ZLIB::ZLIB> ${CMAKE_DL_LIBS} m)
      endif()
    endif()
    if(_cw_h5_parallel)
      target_link_libraries(chunkwise::hdf5_c INTERFACE MPI::MPI_CXX)
    endif()
  endif()

  set(chunkwise_hdf5_c_FOUND TRUE PARENT_SCOPE)
  set(CHUNKWISE_HDF5_PKG "${_found_pkg}" PARENT_SCOPE)
  set(CHUNKWISE_HDF5_HOW "HDF5 ${_cw_h5_version} from ${_how}" PARENT_SCOPE)
  set(CHUNKWISE_HDF5_PARALLEL ${_cw_h5_parallel} PARENT_SCOPE)
  set(CHUNKWISE_HDF5_HEADER_DIR "${_dir}" PARENT_SCOPE)
  set(CHUNKWISE_HDF5_INCLUDE_DIR "${_include_dir}" PARENT_SCOPE)
  set(CHUNKWISE_HDF5_LIBRARY "${_library}" PARENT_SCOPE)
endfunction()

# The codec libraries (libdeflate, LZ4, Zstandard, Blosc, bzip2), shared with the zarr component.
include("${CMAKE_CURRENT_LIST_DIR}/chunkwise-find-codecs.cmake")
