#pragma once
// Internal: reads of variable-length sequences (h5::dataset::read_ragged). Their values live in
// HDF5's global heap, which only HDF5 reads: H5Dread under the lock into HDF5-allocated records,
// the copy into one flat array outside it, the records given back to HDF5 under it again.
#include <chunkwise/detail/hdf5/library.hpp>
#include <chunkwise/detail/hdf5/state.hpp>
#include <chunkwise/detail/hdf5/types.hpp>
#include <chunkwise/hdf5/ragged.hpp>

#include <hdf5.h>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <new>
#include <string>
#include <vector>

namespace chunkwise::h5::detail {

/// Records [begin, end) of a 1-D variable-length dataset, converted to T by HDF5's rules. Records
/// of enums (h5py's bool) and bitfields are read as their stored base integers, as h5py reads them: through the
/// enum type itself (no enum-to-enum mapping), then converted as integers.
template <class T>
ragged<T> read_vlen(const dataset_state& s, std::size_t begin, std::size_t end) {
    const std::size_t count = end - begin;
    if (count == 0) return {};
    std::vector<hvl_t> records;
    try {
        records.resize(count);
    } catch (const std::bad_alloc&) {
        s.fail("cannot allocate the descriptors of " + std::to_string(count) + " records");
    }
    const auto what = [&] { return "records [" + std::to_string(begin) + ", " + std::to_string(end) + ")"; };
    handle mem_type, mspace, enum_base;
    std::size_t enum_width = 0;  // bytes per stored enum value (enums only)
    {
        library_lock lock;
        if (s.ragged_base.via_base) {
            handle enum_type(H5Tget_super(s.file_type.get()), H5Tclose);
            if (enum_type.valid()) {
                enum_base = s.ragged_base.is_enum ? handle(H5Tget_super(enum_type.get()), H5Tclose)
                                                  : bitfield_as_integer(enum_type.get());
                enum_width = H5Tget_size(enum_type.get());
                mem_type = handle(H5Tvlen_create(enum_type.get()), H5Tclose);
            }
            if (!enum_base.valid() || enum_width == 0) s.fail("reading " + what() + " failed: " + last_error());
        } else {
            mem_type = handle(H5Tvlen_create(native_type<T>()), H5Tclose);
        }
        handle fspace(H5Dget_space(s.dset_h.get()), H5Sclose);
        const hsize_t start = begin, n = count;
        mspace = handle(H5Screate_simple(1, &n, nullptr), H5Sclose);
        if (!mem_type.valid() || !fspace.valid() || !mspace.valid() ||
            H5Sselect_hyperslab(fspace.get(), H5S_SELECT_SET, &start, nullptr, &n, nullptr) < 0 ||
            H5Dread(s.dset_h.get(), mem_type.get(), mspace.get(), fspace.get(), H5P_DEFAULT, records.data()) < 0) {
            s.fail("reading " + what() + " failed: " + last_error());
        }
    }
    // HDF5 allocated every record: give them back however this function ends.
    struct reclaim {
        hid_t type, space;
        std::vector<hvl_t>& records;
        ~reclaim() {
            library_lock lock;
#if H5_VERSION_GE(1, 12, 0)
            H5Treclaim(type, space, H5P_DEFAULT, records.data());
#else
            H5Dvlen_reclaim(type, space, H5P_DEFAULT, records.data());
#endif
        }
    } give_back{mem_type.get(), mspace.get(), records};

    std::vector<std::size_t> offsets(count + 1, 0);
    for (std::size_t i = 0; i < count; ++i) {
        if (records[i].len > 0 && records[i].p == nullptr) s.fail("reading " + what() + " gave a record without data");
        offsets[i + 1] = offsets[i] + records[i].len;
    }
    std::vector<T> values;
    try {
        values.resize(offsets[count]);
    } catch (const std::bad_alloc&) {
        s.fail("cannot allocate " + std::to_string(offsets[count]) + " values for " + what());
    }
    if (!s.ragged_base.via_base) {
        for (std::size_t i = 0; i < count; ++i) {
            if (records[i].len > 0) std::memcpy(values.data() + offsets[i], records[i].p, records[i].len * sizeof(T));
        }
        return ragged<T>(std::move(values), std::move(offsets));
    }
    // Enums and bitfields: the stored integers side by side, converted to T in place by HDF5's integer rules.
    const std::size_t width = std::max(enum_width, sizeof(T));
    std::vector<unsigned char> bytes;
    try {
        bytes.resize(offsets[count] * width);
    } catch (const std::bad_alloc&) {
        s.fail("cannot allocate " + std::to_string(offsets[count] * width) + " bytes for " + what());
    }
    for (std::size_t i = 0; i < count; ++i) {
        if (records[i].len > 0)
            std::memcpy(bytes.data() + offsets[i] * enum_width, records[i].p, records[i].len * enum_width);
    }
    if (offsets[count] > 0) {
        library_lock lock;
        if (H5Tconvert(enum_base.get(), native_type<T>(), offsets[count], bytes.data(), nullptr, H5P_DEFAULT) < 0) {
            s.fail("converting the enum values of " + what() + " failed: " + last_error());
        }
        std::memcpy(values.data(), bytes.data(), offsets[count] * sizeof(T));
    }
    return ragged<T>(std::move(values), std::move(offsets));
}

}  // namespace chunkwise::h5::detail
