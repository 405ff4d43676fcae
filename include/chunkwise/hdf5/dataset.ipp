// The definitions of chunkwise/hdf5/dataset.hpp's functions that are not templates: included at the end
// of that header (header-only, the default), or compiled once into the hdf5 library
// (CHUNKWISE_HDF5_SEPARATE_COMPILATION; docs/installing.md, "Header-only or compiled").
#pragma once

namespace chunkwise::h5 {

CHUNKWISE_HDF5_DECL auto dataset::with(read_options opt) const -> dataset {
    dataset d = *this;
    d.opt_ = opt;
    return d;
}

CHUNKWISE_HDF5_DECL auto dataset::chunks() const -> std::vector<std::size_t> {
    if (!s_->chunk.empty()) return s_->chunk;
    std::vector<std::size_t> one_row = s_->dims;
    one_row[0] = 1;
    return one_row;
}

CHUNKWISE_HDF5_DECL auto dataset::attrs() const -> attributes {
    detail::library_lock lock;
    return detail::read_attributes(s_->dset_h.get(), s_->file, s_->path);
}

CHUNKWISE_HDF5_DECL auto dataset::dimensions() const -> std::vector<std::string> {
    detail::library_lock lock;
    return detail::read_dimensions(s_->dset_h.get(), s_->file, s_->path);
}

CHUNKWISE_HDF5_DECL auto dataset::stored_bytes() const -> std::uint64_t {
    detail::library_lock lock;
    const hsize_t bytes = H5Dget_storage_size(s_->dset_h.get());
    H5Eclear2(H5E_DEFAULT);
    return static_cast<std::uint64_t>(bytes);
}

}  // namespace chunkwise::h5
