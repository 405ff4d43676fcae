// The definitions of chunkwise/detail/hdf5/header.hpp's functions that are not templates: included at the end
// of that header (header-only, the default), or compiled once into the hdf5 library
// (CHUNKWISE_HDF5_SEPARATE_COMPILATION; docs/installing.md, "Header-only or compiled").
#pragma once

namespace chunkwise::h5::detail {

CHUNKWISE_HDF5_DECL void read_element_type(dataset_state& s, hid_t type) {
    s.type = describe_type(type, s.type_defect);
    if (s.type.is_enum) {
        s.stored_type = handle(H5Tget_super(type), H5Tclose);
    } else if (H5Tget_class(type) == H5T_BITFIELD) {
        s.stored_type = bitfield_as_integer(type);
        if (!s.stored_type.valid() && s.type_defect.empty()) {
            s.type_defect = "a bitfield of " + std::to_string(H5Tget_size(type)) + " bytes";
        }
    } else {
        s.stored_type = handle(H5Tcopy(type), H5Tclose);
    }
    s.file_type = handle(H5Tcopy(type), H5Tclose);
    if (H5Tget_class(type) == H5T_VLEN) {
        handle base(H5Tget_super(type), H5Tclose);
        std::string base_defect;
        if (base.valid()) s.ragged_base = describe_type(base.get(), base_defect);
        // Enums (h5py's bool among them) are read as their base integers, as h5py reads them.
        s.ragged = base.valid() && base_defect.empty() && s.ragged_base.numeric;
        if (base.valid()) s.type.text += " of " + s.ragged_base.text;
        H5Eclear2(H5E_DEFAULT);
    }
}

CHUNKWISE_HDF5_DECL std::size_t read_extent(dataset_state& s, hid_t space, hid_t type) {
    if (H5Sget_simple_extent_type(space) == H5S_NULL) s.fail("has a null dataspace: it holds no values");
    const int rank = H5Sget_simple_extent_ndims(space);
    if (rank < 0) s.fail("cannot read the dataspace: " + last_error());
    if (rank == 0) s.fail("is a scalar dataset; chunkwise reads arrays of rank 1 or more");
    std::vector<hsize_t> dims(static_cast<std::size_t>(rank));
    H5Sget_simple_extent_dims(space, dims.data(), nullptr);
    for (hsize_t d : dims) {
        if (d > std::numeric_limits<std::size_t>::max()) s.fail("is too large: an axis exceeds size_t");
    }
    s.dims.assign(dims.begin(), dims.end());
    std::size_t total = 0, total_bytes = 0;
    const std::size_t element_bytes = std::max<std::size_t>(s.type.size, H5Tget_size(type));
    s.element_bytes = element_bytes;
    if (!checked_product(s.dims, total) ||
        __builtin_mul_overflow(total, std::max<std::size_t>(element_bytes, 1), &total_bytes) ||
        total_bytes > static_cast<std::size_t>(std::numeric_limits<std::ptrdiff_t>::max())) {
        s.fail("is too large: shape " + shape_text(s.dims) + " of " + std::to_string(element_bytes) +
               "-byte elements does not fit in this machine's address space");
    }
    if (!checked_product(s.dims, s.row_elements, 1) ||
        s.row_elements > std::numeric_limits<std::size_t>::max() / std::max<std::size_t>(element_bytes, 1)) {
        s.fail("is too large: a row of shape " + shape_text(s.dims) + " does not fit in this machine's address space");
    }
    return total_bytes;
}

CHUNKWISE_HDF5_DECL void read_layout(dataset_state& s, hid_t dcpl) {
    const int rank = static_cast<int>(s.dims.size());
    const H5D_layout_t layout = H5Pget_layout(dcpl);
    if (layout == H5D_CHUNKED) {
        std::vector<hsize_t> chunk(static_cast<std::size_t>(rank));
        if (H5Pget_chunk(dcpl, rank, chunk.data()) != rank) s.fail("cannot read the chunk shape: " + last_error());
        s.chunk.assign(chunk.begin(), chunk.end());
        std::size_t chunk_elements = 0;
        if (std::find(s.chunk.begin(), s.chunk.end(), 0) != s.chunk.end() ||
            !checked_product(s.chunk, chunk_elements) ||
            __builtin_mul_overflow(chunk_elements, std::max<std::size_t>(s.element_bytes, 1), &s.chunk_bytes)) {
            s.fail("has an impossible chunk shape " + shape_text(s.chunk) + " (corrupted?)");
        }
        s.chunk_elements = chunk_elements;
        s.layout = storage::chunked;
        s.grid.resize(s.dims.size());
        std::uint64_t count = 1;  // saturates: beyond 2^64 chunks nothing is cached anyway
        for (std::size_t d = 0; d < s.dims.size(); ++d) {
            s.grid[d] = s.dims[d] / s.chunk[d] + (s.dims[d] % s.chunk[d] != 0 ? 1 : 0);
            if (__builtin_mul_overflow(count, static_cast<std::uint64_t>(s.grid[d]), &count)) {
                count = std::numeric_limits<std::uint64_t>::max();
            }
        }
        s.total_chunks = count;
        if (s.total_chunks <= (std::uint64_t{1} << 32)) {
            s.pages.resize(
                static_cast<std::size_t>((s.total_chunks + dataset_state::page_size - 1) / dataset_state::page_size));
        }
    } else if (layout == H5D_CONTIGUOUS && H5Pget_external_count(dcpl) == 0) {
        s.layout = storage::contiguous;
        s.contiguous_address = H5Dget_offset(s.dset_h.get());  // undefined until written
        H5Eclear2(H5E_DEFAULT);
    }
}

CHUNKWISE_HDF5_DECL void read_fill(dataset_state& s, hid_t dcpl) {
    H5D_fill_time_t fill_time = H5D_FILL_TIME_IFSET;
    H5D_fill_value_t fill_status = H5D_FILL_VALUE_DEFAULT;
    if (H5Pget_fill_time(dcpl, &fill_time) >= 0 && H5Pfill_value_defined(dcpl, &fill_status) >= 0) {
        s.writes_fill = fill_time != H5D_FILL_TIME_NEVER && fill_status != H5D_FILL_VALUE_UNDEFINED;
    } else {
        s.fill_defect = "HDF5 cannot read its fill value message: " + last_error();
    }
    H5Eclear2(H5E_DEFAULT);
}

CHUNKWISE_HDF5_DECL std::string plugin_search_path() {
    std::string path;
    unsigned n = 0;
    if (H5PLsize(&n) >= 0) {
        for (unsigned i = 0; i < n; ++i) {
            char dir[4096] = {};
            if (H5PLget(i, dir, sizeof dir) <= 0) continue;
            if (!path.empty()) path += ':';  // (appended, not "x" + string: GCC 12 warns falsely at -O3)
            path += dir;
        }
    }
    H5Eclear2(H5E_DEFAULT);
    return path.empty() ? std::string("its default folder (HDF5_PLUGIN_PATH unset)") : path + " (HDF5_PLUGIN_PATH)";
}

CHUNKWISE_HDF5_DECL filter_step read_filter(const dataset_state& s, hid_t dcpl, int i) {
    unsigned flags = 0;
    std::vector<unsigned> values(16);
    std::size_t nvalues = values.size();
    char name[256] = {};
    H5Z_filter_t id =
        H5Pget_filter2(dcpl, static_cast<unsigned>(i), &flags, &nvalues, values.data(), sizeof name, name, nullptr);
    if (id >= 0 && nvalues > values.size() && nvalues <= 4096) {  // more parameters than room: again
        values.resize(nvalues);
        id =
            H5Pget_filter2(dcpl, static_cast<unsigned>(i), &flags, &nvalues, values.data(), sizeof name, name, nullptr);
    }
    if (id < 0) s.fail("cannot read filter " + std::to_string(i) + " of the pipeline: " + last_error());
    values.resize(std::min(nvalues, values.size()));
    filter_step step;
    step.id = static_cast<int>(id);
    step.cd = std::move(values);
    step.name = filter_name(step.id);
    return step;
}

CHUNKWISE_HDF5_DECL void read_filters(dataset_state& s, hid_t dcpl) {
    const int nfilters = H5Pget_nfilters(dcpl);
    if (nfilters < 0) s.fail("cannot read the filter pipeline: " + last_error());
    s.decodable = true;
    for (int i = 0; i < nfilters; ++i) {
        filter_step step = read_filter(s, dcpl, i);
        const codec* c = find_codec(step.id);
        const std::string refused = c == nullptr ? std::string("no decoder in chunkwise") : c->accepts(step.cd);
        if (!refused.empty() || plugin_first(step.id)) step.plugin = worker_plugin(step.id);
        if (step.plugin != nullptr) {
            step.decoder = nullptr;
        } else if (refused.empty()) {
            step.decoder = c;
        } else {
            s.decodable = false;
            if (H5Zfilter_avail(static_cast<H5Z_filter_t>(step.id)) <= 0 && s.missing_filter.empty()) {
                const std::string provider = filter_provider(step.id);
                s.missing_filter = "needs HDF5 filter " + std::to_string(step.id) + " (" + step.name +
                                   "), which neither chunkwise (" + refused +
                                   ") nor this HDF5 can decode: its plugin is not installed" +
                                   (provider.empty() ? std::string() : " (" + provider + ")") +
                                   "; HDF5 looks for plugins in " + plugin_search_path();
            }
        }
        s.filter_names.push_back(step.name);
        s.filters.push_back(std::move(step));
    }
    H5Eclear2(H5E_DEFAULT);
    // (filters decoded by a plugin or by HDF5 use their codec's bound where chunkwise has one)
    s.stage_bound.assign(1, s.chunk_bytes);
    for (const filter_step& f : s.filters) {
        const codec* c = find_codec(f.id);
        const std::size_t before = s.stage_bound.back();
        s.stage_bound.push_back(c == nullptr || c->max_encoded == nullptr || before == unbounded
                                    ? unbounded
                                    : c->max_encoded(f.cd, before));
    }
}

}  // namespace chunkwise::h5::detail
