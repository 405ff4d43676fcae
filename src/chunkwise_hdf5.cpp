// libchunkwise_hdf5: the hdf5 component's functions that are not templates, compiled once
// (CMake: CHUNKWISE_BUILD_LIBRARIES=ON, target chunkwise::hdf5_compiled). A program that copies
// include/ compiles this file, or its one line, with CHUNKWISE_HDF5_SEPARATE_COMPILATION.
#include <chunkwise/hdf5/src.hpp>
