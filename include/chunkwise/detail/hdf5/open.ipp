// The definitions of chunkwise/detail/hdf5/open.hpp's functions that are not templates: included at the end
// of that header (header-only, the default), or compiled once into the hdf5 library
// (CHUNKWISE_HDF5_SEPARATE_COMPILATION; docs/installing.md, "Header-only or compiled").
#pragma once

namespace chunkwise::h5::detail {

CHUNKWISE_HDF5_DECL void check_dataset_path(const dataset_state& s) {
    std::string prefix;
    std::string walked = "/";
    const std::string& path = s.path;
    const std::vector<std::string> parts = path_parts(path);
    if (parts.empty()) s.fail("the root group '/' is not a dataset");
    for (std::size_t i = 0; i < parts.size(); ++i) {
        const std::string& part = parts[i];
        prefix += "/" + part;
        const htri_t exists = H5Lexists(s.file_h.get(), prefix.c_str(), H5P_DEFAULT);
        if (exists <= 0) {
            H5Eclear2(H5E_DEFAULT);
            const auto members = group_members(s.file_h.get(), walked);
            s.fail("no dataset '" + path + "': '" + part + "' is not in group '" + walked + "', which holds " +
                   (members.empty() ? std::string("nothing") : join(members)));
        }
        const bool last = i + 1 == parts.size();
        if (last) {
            // Opening a dataset whose layout message is damaged can crash HDF5 1.10 itself.
            if (const probe_file* f = probed_file_of(s.file_h.get())) {
                const std::string defect = dataset_layout_defect(s.file_h.get(), prefix, f->fd);
                if (!defect.empty())
                    s.fail("has a damaged layout message (" + defect + "; HDF5 would crash opening it)");
            }
        }
        H5I_type_t kind = H5I_BADID;
        {
            handle object(H5Oopen(s.file_h.get(), prefix.c_str(), H5P_DEFAULT), H5Oclose);
            if (!object.valid()) s.fail("cannot open '" + prefix + "': " + last_error());
            kind = H5Iget_type(object.get());
        }
        if (last && kind == H5I_GROUP) {
            const auto members = group_members(s.file_h.get(), prefix);
            s.fail("is a group, not a dataset; it holds " + (members.empty() ? std::string("nothing") : join(members)));
        }
        if (last && kind != H5I_DATASET) s.fail("is not a dataset (a named datatype?)");
        if (!last && kind != H5I_GROUP) s.fail("'" + prefix + "' is not a group");
        walked = prefix;
    }
}

CHUNKWISE_HDF5_DECL const std::string& index_walk_unused_because() {
    static const std::string why = [] {
        const char* env = std::getenv("CHUNKWISE_HDF5_INDEX");
        return env != nullptr && std::strcmp(env, "off") == 0 ? std::string("CHUNKWISE_HDF5_INDEX=off") : std::string();
    }();
    return why;
}

CHUNKWISE_HDF5_DECL chunk_index find_chunk_index(const dataset_state& s) {
    if (s.dims.empty() || s.layout != storage::chunked) return {};
    const hid_t dset = s.dset_h.get();
    haddr_t header = HADDR_UNDEF;
    H5O_type_t type = H5O_TYPE_UNKNOWN;
    unsigned long fileno = 0;
    if (!object_address(dset, ".", header, type, fileno) || header == HADDR_UNDEF || type != H5O_TYPE_DATASET)
        return {};
    handle fid(H5Iget_file_id(dset), H5Fclose);
    handle fcpl(fid.valid() ? H5Fget_create_plist(fid.get()) : H5I_INVALID_HID, H5Pclose);
    std::size_t sizeof_addr = 0, sizeof_size = 0;
    hsize_t userblock = 0;
    unsigned ik = 0;
    haddr_t eoa = HADDR_UNDEF;
    const bool known = fcpl.valid() && H5Pget_sizes(fcpl.get(), &sizeof_addr, &sizeof_size) >= 0 &&
                       H5Pget_userblock(fcpl.get(), &userblock) >= 0 && H5Pget_istore_k(fcpl.get(), &ik) >= 0;
    H5Eclear2(H5E_DEFAULT);
    if (!known || sizeof_addr < 2 || sizeof_addr > 8 || sizeof_size < 2 || sizeof_size > 8 || ik == 0 ||
        ik > (1u << 15)) {
        return {};
    }
    // The end of the allocated space, relative: from the probe driver (which keeps it as a file
    // offset), else from HDF5.
    const probe_file* pf = probed_file_of(dset);
    if (pf != nullptr) {
        if (pf->eoa < userblock) return {};
        eoa = pf->eoa - userblock;
    } else if (H5Fget_eoa(fid.get(), &eoa) < 0 || eoa == HADDR_UNDEF) {
        H5Eclear2(H5E_DEFAULT);
        return {};
    }
    const int fd = pf != nullptr ? s.fd_for(*pf) : s.file_fd();
    if (fd < 0) return {};
    chunk_index ix;
    ix.fd = fd;
    ix.base = userblock;
    ix.eoa = eoa;
    ix.addr_size = static_cast<unsigned>(sizeof_addr);
    ix.len_size = static_cast<unsigned>(sizeof_size);
    ix.max_entries = 2 * ik;
    ix.grid.assign(s.grid.begin(), s.grid.end());
    const header_reader r(fd, userblock, static_cast<unsigned>(sizeof_addr), static_cast<unsigned>(sizeof_size));
    const std::vector<unsigned char> layout = layout_message(r, header);
    if (!layout.empty() && layout[0] == 3) {
        if (!read_btree_layout(layout, s.chunk, ix)) return {};
        ix.kind = index_kind::btree1;
    } else if (!layout.empty() && layout[0] >= 4) {
        // Chunks along each axis at the maximum extent (0: unlimited).
        const std::size_t n = s.dims.size();
        std::vector<hsize_t> cur(n), max(n);
        handle space(H5Dget_space(dset), H5Sclose);
        if (!space.valid() || H5Sget_simple_extent_dims(space.get(), cur.data(), max.data()) != static_cast<int>(n)) {
            H5Eclear2(H5E_DEFAULT);
            return {};
        }
        std::vector<std::uint64_t> maxgrid(n);
        for (std::size_t d = 0; d < n; ++d) {
            maxgrid[d] = max[d] == H5S_UNLIMITED ? 0 : (max[d] + s.chunk[d] - 1) / s.chunk[d];
            if (max[d] != H5S_UNLIMITED && maxgrid[d] == 0) return {};
        }
        const std::string wrong = read_v4_index(layout, s.chunk, maxgrid, !s.filters.empty(), ix);
        if (!wrong.empty()) s.fail("its chunk index is damaged: " + wrong);
        if (ix.kind == index_kind::none) return {};
    } else {
        return {};
    }

    // The first stored chunk, as the walk finds it and as HDF5 reads it.
    const std::size_t n = s.dims.size();
    std::vector<std::uint64_t> from(n, 0), to(n);
    for (std::size_t d = 0; d < n; ++d) to[d] = s.grid[d] == 0 ? 0 : s.grid[d] - 1;
    bool any = false;
    indexed_chunk first;
    std::vector<hsize_t> offset(n);
    index_walk walk(ix, from.data(), to.data());
    const bool walked =
        walk.run([&](const std::uint64_t* at, std::uint64_t address, std::uint64_t size, std::uint32_t mask) {
            any = true;
            first = indexed_chunk{0, address, size, mask};
            for (std::size_t d = 0; d < n; ++d) offset[d] = static_cast<hsize_t>(at[d] * s.chunk[d]);
            return false;
        });
    if (!walk.damage().empty()) s.fail("its chunk index is damaged: " + walk.damage());
    if (!walked) return {};
    if (any) {
        hsize_t stored = 0;
        if (H5Dget_chunk_storage_size(dset, offset.data(), &stored) < 0 || stored != first.size) {
            H5Eclear2(H5E_DEFAULT);
            return {};
        }
        const auto shift = listing_shift(dset, fid.get(), fd, first, offset.data());
        if (!shift || *shift != 0) return {};
    }
    return ix;
}

CHUNKWISE_HDF5_DECL void learn_chunk_index(dataset_state& s) {
    chunk_index ix = find_chunk_index(s);
    s.index_type = ix.kind;
    if (index_walk_unused_because().empty()) s.index = std::move(ix);
}

CHUNKWISE_HDF5_DECL void open_file(dataset_state& s, const std::filesystem::path& file) {
    std::error_code ec;
    if (!std::filesystem::exists(file, ec)) s.fail("no such file");
    if (std::filesystem::is_directory(file, ec)) s.fail("is a directory, not an HDF5 file");
    std::string why;  // HDF5's reason, taken before closing anything clears it
    {
        handle fapl = probe_fapl();
        s.file_h = handle(H5Fopen(s.file.c_str(), H5F_ACC_RDONLY, fapl.valid() ? fapl.get() : H5P_DEFAULT), H5Fclose);
        if (!s.file_h.valid() && fapl.valid()) {
            H5Eclear2(H5E_DEFAULT);  // HDF5's own driver may still open it (then no chunk probing)
            s.file_h = handle(H5Fopen(s.file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
        }
        if (!s.file_h.valid()) why = last_error();
    }
    if (!s.file_h.valid()) {
        const auto bytes = std::filesystem::file_size(file, ec);
        throw error(s.file, "",
                    "cannot open as an HDF5 file (not HDF5, truncated or corrupted; " +
                        (ec ? std::string("size unknown") : std::to_string(bytes) + " bytes") + ")" +
                        (why.empty() ? std::string() : ": " + why));
    }
}

CHUNKWISE_HDF5_DECL void prepare_chunked(dataset_state& s) {
    s.probing = probed_file_of(s.dset_h.get()) != nullptr;
    // Chunk locations from the file's own index where the reads can walk it; else (without
    // the probe driver) from a listing made now, so that decodes_in_worker can say which
    // path reads serve.
    learn_chunk_index(s);
    if (!s.index.usable() && !s.probing && s.decodable) s.list_all();
    std::size_t chunks_per_row = 1;
    for (std::size_t d = 1; d < s.dims.size(); ++d)
        chunks_per_row = std::min<std::size_t>(chunks_per_row * s.grid[d], 1u << 20);
    const std::size_t nbytes = std::clamp<std::size_t>(
        std::min<std::size_t>(chunks_per_row, 4096) * std::min<std::size_t>(s.chunk_bytes, 1u << 28) * 2,
        std::size_t{1} << 20, std::size_t{1} << 30);
    handle dapl(H5Pcreate(H5P_DATASET_ACCESS), H5Pclose);
    H5Pset_chunk_cache(dapl.get(), std::max<std::size_t>(521, std::min<std::size_t>(chunks_per_row, 1u << 16) * 20),
                       nbytes, 1.0);
    handle reopened(H5Dopen2(s.file_h.get(), s.path.c_str(), dapl.get()), H5Dclose);
    if (reopened.valid()) s.dset_h = std::move(reopened);
    H5Eclear2(H5E_DEFAULT);
}

CHUNKWISE_HDF5_DECL void locate_contiguous(dataset_state& s, std::size_t total_bytes) {
    haddr_t eoa = HADDR_UNDEF;
    int fd = -1;
    if (const probe_file* f = probed_file_of(s.dset_h.get())) {
        eoa = f->eoa;
        fd = f->fd;
    } else {
        handle fid(H5Iget_file_id(s.dset_h.get()), H5Fclose);
        handle fcpl(fid.valid() ? H5Fget_create_plist(fid.get()) : H5I_INVALID_HID, H5Pclose);
        hsize_t userblock = 0;
        if (fcpl.valid() && H5Pget_userblock(fcpl.get(), &userblock) >= 0 && H5Fget_eoa(fid.get(), &eoa) >= 0 &&
            eoa != HADDR_UNDEF && eoa <= std::numeric_limits<haddr_t>::max() - userblock) {
            eoa += userblock;
            fd = s.file_fd();
        } else {
            eoa = HADDR_UNDEF;
        }
        H5Eclear2(H5E_DEFAULT);
    }
    if (eoa != HADDR_UNDEF && fd >= 0) {
        const bool inside = s.contiguous_address <= eoa && total_bytes <= eoa - s.contiguous_address;
        s.storage_outside = !inside;
        if (inside) s.contiguous_fd = ::fcntl(fd, F_DUPFD_CLOEXEC, 0);
    }
}

CHUNKWISE_HDF5_DECL std::shared_ptr<const dataset_state> open_dataset(const std::filesystem::path& file,
                                                                      const std::string& path) {
    auto s = std::make_shared<dataset_state>();
    s->file = file.string();
    s->path = normalize_path(path);
    library_lock lock;
    open_file(*s, file);
    check_dataset_path(*s);
    s->dset_h = handle(H5Dopen2(s->file_h.get(), s->path.c_str(), H5P_DEFAULT), H5Dclose);
    if (!s->dset_h.valid()) s->fail("cannot open the dataset: " + last_error());
    if (H5Aexists(s->dset_h.get(), unfinished_mark) > 0)
        s->fail(
            std::string("an unfinished write: chunkwise was writing this dataset and did not finish (it carries the "
                        "attribute ") +
            unfinished_mark + "); write it again");
    handle type(H5Dget_type(s->dset_h.get()), H5Tclose);
    handle space(H5Dget_space(s->dset_h.get()), H5Sclose);
    handle dcpl(H5Dget_create_plist(s->dset_h.get()), H5Pclose);
    if (!type.valid() || !space.valid() || !dcpl.valid()) s->fail("cannot read the dataset's header: " + last_error());
    read_element_type(*s, type.get());
    const std::size_t total_bytes = read_extent(*s, space.get(), type.get());
    read_layout(*s, dcpl.get());
    read_fill(*s, dcpl.get());
    read_filters(*s, dcpl.get());
    s->dcpl_h = std::move(dcpl);
    if (s->layout == storage::chunked) prepare_chunked(*s);
    if (s->layout == storage::contiguous && s->contiguous_address != HADDR_UNDEF) locate_contiguous(*s, total_bytes);
    return s;
}

}  // namespace chunkwise::h5::detail
