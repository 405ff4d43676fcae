// libchunkwise_zarr: the zarr component's functions that are not templates, compiled once
// (CMake: CHUNKWISE_BUILD_LIBRARIES=ON, target chunkwise::zarr_compiled). A program that copies
// include/ compiles this file, or its one line, with CHUNKWISE_ZARR_SEPARATE_COMPILATION.
#include <chunkwise/zarr/src.hpp>
