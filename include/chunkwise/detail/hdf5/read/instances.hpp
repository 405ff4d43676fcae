#pragma once
// Internal: the read paths of every element type, compiled once in compiled mode. The library
// (<chunkwise/hdf5/src.hpp>) instantiates read_box, read_selected and read_vlen for each
// arithmetic type; a program compiled with CHUNKWISE_HDF5_SEPARATE_COMPILATION declares them
// extern, so that it compiles none of them itself.
#include <chunkwise/detail/core/compiled.hpp>
#include <chunkwise/detail/hdf5/read/box.hpp>
#include <chunkwise/detail/hdf5/read/ragged.hpp>
#include <chunkwise/detail/hdf5/read/select.hpp>
#include <chunkwise/detail/hdf5/state.hpp>

#include <cstddef>
#include <vector>

/// The read paths of element type T: `extern` declares them, nothing defines them.
#define CHUNKWISE_HDF5_READ_INSTANCES(EXTERN, T)                                                        \
    EXTERN template void read_box<T>(const dataset_state&, const std::size_t*, const std::size_t*, T*); \
    EXTERN template void read_selected<T>(const dataset_state&, std::size_t, std::size_t, std::size_t,  \
                                          const std::vector<std::size_t>&, T*);                         \
    EXTERN template ragged<T> read_vlen<T>(const dataset_state&, std::size_t, std::size_t);

#if !CHUNKWISE_HDF5_HEADER_ONLY
namespace chunkwise::h5::detail {
#define CHUNKWISE_HDF5_EXTERN_READ(T) CHUNKWISE_HDF5_READ_INSTANCES(extern, T)
CHUNKWISE_ARITHMETIC_TYPES(CHUNKWISE_HDF5_EXTERN_READ)
#undef CHUNKWISE_HDF5_EXTERN_READ
}  // namespace chunkwise::h5::detail
#endif
