#pragma once
// Internal: the filters HDF5 users meet that chunkwise does not decode: HDF5's own szip, n-bit and
// scale-offset (HDF5 decodes them, under its lock), and plugins without a Debian 12 package (LZO,
// ZFP, SZ, VBZ, Blosc2: reads fail naming where the plugin comes from, unless it is installed).
// Each is a codec with no decoder, for messages and the doctor.
#include <chunkwise/detail/codecs/codec.hpp>

namespace chunkwise::detail::codecs {

inline const codec szip_codec{
    .id = 4, .name = "szip", .provider = "HDF5 built with szip or libaec", .accepts = decoded_by_hdf5};
inline const codec nbit_codec{.id = 5, .name = "nbit", .provider = "built into HDF5", .accepts = decoded_by_hdf5};
inline const codec scaleoffset_codec{
    .id = 6, .name = "scaleoffset", .provider = "built into HDF5", .accepts = decoded_by_hdf5};
inline const codec lzo_codec{.id = 305,
                             .name = "lzo",
                             .provider = "no Debian package (the HDF5 plugin of PyTables)",
                             .accepts = decoded_by_hdf5};
inline const codec zfp_codec{
    .id = 32013, .name = "zfp", .provider = "no Debian package (H5Z-ZFP, or hdf5plugin)", .accepts = decoded_by_hdf5};
inline const codec sz_codec{.id = 32017,
                            .name = "sz",
                            .provider = "no Debian package (SZ's HDF5 plugin, or hdf5plugin)",
                            .accepts = decoded_by_hdf5};
inline const codec vbz_codec{.id = 32020,
                             .name = "vbz",
                             .provider = "no Debian package (Oxford Nanopore's vbz plugin)",
                             .accepts = decoded_by_hdf5};
inline const codec blosc2_codec{
    .id = 32026, .name = "blosc2", .provider = "no Debian 12 package (hdf5plugin)", .accepts = decoded_by_hdf5};

}  // namespace chunkwise::detail::codecs
