# Finds the codec libraries chunkwise decodes chunks with (HDF5 filters and Zarr codecs alike):
# chunkwise_find_libdeflate() and chunkwise_find_codec(NAME MODULE HEADER LIBRARIES...), with
# CHUNKWISE_CODECS the list of optional ones. Included by chunkwise-find-hdf5.cmake and by the
# zarr component.

# libdeflate (chunkwise's fast inflate for deflated chunks): pkg-config libdeflate, else
# libdeflate.h and libdeflate where find_library looks (CMAKE_PREFIX_PATH, system paths).
# On success creates chunkwise::libdeflate and sets chunkwise_libdeflate_FOUND in the caller's scope.
function(chunkwise_find_libdeflate)
  if(TARGET chunkwise::libdeflate)
    set(chunkwise_libdeflate_FOUND TRUE PARENT_SCOPE)
    return()
  endif()
  find_package(PkgConfig QUIET)
  if(PKG_CONFIG_FOUND)
    pkg_check_modules(CHUNKWISE_LIBDEFLATE QUIET IMPORTED_TARGET GLOBAL libdeflate)
  endif()
  if(TARGET PkgConfig::CHUNKWISE_LIBDEFLATE)
    add_library(chunkwise::libdeflate INTERFACE IMPORTED GLOBAL)
    target_link_libraries(chunkwise::libdeflate INTERFACE PkgConfig::CHUNKWISE_LIBDEFLATE)
  else()
    find_path(_include_dir libdeflate.h NO_CACHE)
    find_library(_library NAMES deflate libdeflate NO_CACHE)
    if(NOT _include_dir OR NOT _library)
      set(chunkwise_libdeflate_FOUND FALSE PARENT_SCOPE)
      return()
    endif()
    add_library(chunkwise::libdeflate INTERFACE IMPORTED GLOBAL)
    target_include_directories(chunkwise::libdeflate INTERFACE "${_include_dir}")
    target_link_libraries(chunkwise::libdeflate INTERFACE "${_library}")
  endif()
  set(chunkwise_libdeflate_FOUND TRUE PARENT_SCOPE)
endfunction()

# A codec library chunkwise decodes HDF5 filters with, optional (LZ4, Zstandard, Blosc, bzip2):
# pkg-config MODULE where it has one ("-": none), else HEADER and one of the LIBRARIES where find_path and
# find_library look. On success creates chunkwise::NAME and sets chunkwise_NAME_FOUND in the
# caller's scope.
#   chunkwise_find_codec(lz4 liblz4 lz4.h lz4)
function(chunkwise_find_codec name module header)
  if(TARGET chunkwise::${name})
    set(chunkwise_${name}_FOUND TRUE PARENT_SCOPE)
    return()
  endif()
  string(TOUPPER "${name}" _upper)
  find_package(PkgConfig QUIET)
  if(PKG_CONFIG_FOUND AND NOT module STREQUAL "-")
    pkg_check_modules(CHUNKWISE_CODEC_${_upper} QUIET IMPORTED_TARGET GLOBAL ${module})
  endif()
  if(TARGET PkgConfig::CHUNKWISE_CODEC_${_upper})
    add_library(chunkwise::${name} INTERFACE IMPORTED GLOBAL)
    target_link_libraries(chunkwise::${name} INTERFACE PkgConfig::CHUNKWISE_CODEC_${_upper})
  else()
    find_path(_include_dir ${header} NO_CACHE)
    find_library(_library NAMES ${ARGN} NO_CACHE)
    if(NOT _include_dir OR NOT _library)
      set(chunkwise_${name}_FOUND FALSE PARENT_SCOPE)
      return()
    endif()
    add_library(chunkwise::${name} INTERFACE IMPORTED GLOBAL)
    target_include_directories(chunkwise::${name} INTERFACE "${_include_dir}")
    target_link_libraries(chunkwise::${name} INTERFACE "${_library}")
  endif()
  set(chunkwise_${name}_FOUND TRUE PARENT_SCOPE)
endfunction()

# The codecs chunkwise knows: name, pkg-config module, header, library names; and the Debian
# package of each.
set(CHUNKWISE_CODECS lz4 zstd blosc bzip2)
set(CHUNKWISE_CODEC_lz4 liblz4 lz4.h lz4)
set(CHUNKWISE_CODEC_zstd libzstd zstd.h zstd)
set(CHUNKWISE_CODEC_blosc blosc blosc.h blosc)
set(CHUNKWISE_CODEC_bzip2 - bzlib.h bz2)  # (no pkg-config module: "-")
set(CHUNKWISE_CODEC_DEBIAN_lz4 liblz4-dev)
set(CHUNKWISE_CODEC_DEBIAN_zstd libzstd-dev)
set(CHUNKWISE_CODEC_DEBIAN_blosc libblosc-dev)
set(CHUNKWISE_CODEC_DEBIAN_bzip2 libbz2-dev)
