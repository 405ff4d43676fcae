# Makes the HDF5 installs a consumer on another system would see, from the one chunkwise was
# built with: <WORK_DIR>/pc-only (a PKG_CONFIG_LIBDIR holding only hdf5.pc, as upstream and Spack
# builds name it), <WORK_DIR>/pc-none (an empty one) and <WORK_DIR>/root (an HDF5_ROOT prefix:
# include/ and lib/libhdf5.so, as an upstream `make install` lays them out).
# Variables: WORK_DIR, PC_FILE (the .pc file chunkwise used), INCLUDE_DIR, LIBRARY.
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}/pc-only" "${WORK_DIR}/pc-none" "${WORK_DIR}/root/include" "${WORK_DIR}/root/lib")
file(READ "${PC_FILE}" _pc)
file(WRITE "${WORK_DIR}/pc-only/hdf5.pc" "${_pc}")
file(GLOB _headers "${INCLUDE_DIR}/*.h")
foreach(_h IN LISTS _headers)
  get_filename_component(_name "${_h}" NAME)
  file(CREATE_LINK "${_h}" "${WORK_DIR}/root/include/${_name}" SYMBOLIC)
endforeach()
file(CREATE_LINK "${LIBRARY}" "${WORK_DIR}/root/lib/libhdf5.so" SYMBOLIC)
