#pragma once
// Internal: opening a dataset: the path checked group by group (naming what exists), the file
// opened through the probe driver where it can be, the header read and checked (type, shape,
// layout, fill value, filters), the chunk cache sized, the raw bytes' file descriptor found.
#include <chunkwise/detail/hdf5/format/index_walk.hpp>
#include <chunkwise/detail/hdf5/state.hpp>

#include <hdf5.h>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <memory>
#include <string>
#include <system_error>
#include <vector>

namespace chunkwise::h5::detail {

/// Checks that s.path names a dataset; otherwise throws naming the nearest existing group and
/// what it holds. Call with the lock held.
inline void check_dataset_path(const dataset_state& s) {
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

/// "" when reads may walk the file's own chunk index, else why not (CHUNKWISE_HDF5_INDEX=off,
/// read once).
inline const std::string& index_walk_unused_because() {
    static const std::string why = [] {
        const char* env = std::getenv("CHUNKWISE_HDF5_INDEX");
        return env != nullptr && std::strcmp(env, "off") == 0 ? std::string("CHUNKWISE_HDF5_INDEX=off") : std::string();
    }();
    return why;
}

/// Where the chunked dataset's chunk index is, where it has one the reads can walk
/// (format/chunk_index.hpp): the layout message read from the file the dataset lives in, the
/// index's own header read and checked, then the first stored chunk the walk finds checked
/// against HDF5 (its stored size, and its bytes where HDF5 reads them); an unusable index
/// otherwise. An index whose structures the format does not allow is an h5::error, before HDF5
/// is asked to trust it. Call with the lock held.
inline chunk_index find_chunk_index(const dataset_state& s) {
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

/// Learns s.index (find_chunk_index); with CHUNKWISE_HDF5_INDEX=off it is only checked, and the
/// reads ask HDF5. Call with the lock held.
inline void learn_chunk_index(dataset_state& s) {
    chunk_index ix = find_chunk_index(s);
    s.index_type = ix.kind;
    if (index_walk_unused_because().empty()) s.index = std::move(ix);
}

/// The folders HDF5 searches for filter plugins, for messages ("HDF5_PLUGIN_PATH or ..."). Call
/// with the lock held.
inline std::string plugin_search_path() {
    std::string path;
    unsigned n = 0;
    if (H5PLsize(&n) >= 0) {
        for (unsigned i = 0; i < n; ++i) {
            char dir[4096] = {};
            if (H5PLget(i, dir, sizeof dir) > 0) path += (path.empty() ? "" : ":") + std::string(dir);
        }
    }
    H5Eclear2(H5E_DEFAULT);
    return path.empty() ? std::string("its default folder (HDF5_PLUGIN_PATH unset)") : path + " (HDF5_PLUGIN_PATH)";
}

inline std::shared_ptr<const dataset_state> open_dataset(const std::filesystem::path& file, const std::string& path) {
    auto s = std::make_shared<dataset_state>();
    s->file = file.string();
    s->path = normalize_path(path);
    std::error_code ec;
    if (!std::filesystem::exists(file, ec)) s->fail("no such file");
    if (std::filesystem::is_directory(file, ec)) s->fail("is a directory, not an HDF5 file");

    library_lock lock;
    std::string why;  // HDF5's reason, taken before closing anything clears it
    {
        handle fapl = probe_fapl();
        s->file_h = handle(H5Fopen(s->file.c_str(), H5F_ACC_RDONLY, fapl.valid() ? fapl.get() : H5P_DEFAULT), H5Fclose);
        if (!s->file_h.valid() && fapl.valid()) {
            H5Eclear2(H5E_DEFAULT);  // HDF5's own driver may still open it (then no chunk probing)
            s->file_h = handle(H5Fopen(s->file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
        }
        if (!s->file_h.valid()) why = last_error();
    }
    if (!s->file_h.valid()) {
        const auto bytes = std::filesystem::file_size(file, ec);
        throw error(s->file, "",
                    "cannot open as an HDF5 file (not HDF5, truncated or corrupted; " +
                        (ec ? std::string("size unknown") : std::to_string(bytes) + " bytes") + ")" +
                        (why.empty() ? std::string() : ": " + why));
    }
    check_dataset_path(*s);

    s->dset_h = handle(H5Dopen2(s->file_h.get(), s->path.c_str(), H5P_DEFAULT), H5Dclose);
    if (!s->dset_h.valid()) s->fail("cannot open the dataset: " + last_error());
    handle type(H5Dget_type(s->dset_h.get()), H5Tclose);
    handle space(H5Dget_space(s->dset_h.get()), H5Sclose);
    handle dcpl(H5Dget_create_plist(s->dset_h.get()), H5Pclose);
    if (!type.valid() || !space.valid() || !dcpl.valid()) s->fail("cannot read the dataset's header: " + last_error());
    s->type = describe_type(type.get(), s->type_defect);
    if (s->type.is_enum) {
        s->stored_type = handle(H5Tget_super(type.get()), H5Tclose);
    } else if (H5Tget_class(type.get()) == H5T_BITFIELD) {
        s->stored_type = bitfield_as_integer(type.get());
        if (!s->stored_type.valid() && s->type_defect.empty()) {
            s->type_defect = "a bitfield of " + std::to_string(H5Tget_size(type.get())) + " bytes";
        }
    } else {
        s->stored_type = handle(H5Tcopy(type.get()), H5Tclose);
    }
    s->file_type = handle(H5Tcopy(type.get()), H5Tclose);
    if (H5Tget_class(type.get()) == H5T_VLEN) {
        handle base(H5Tget_super(type.get()), H5Tclose);
        std::string base_defect;
        if (base.valid()) s->ragged_base = describe_type(base.get(), base_defect);
        // Enums (h5py's bool among them) are read as their base integers, as h5py reads them.
        s->ragged = base.valid() && base_defect.empty() && s->ragged_base.numeric;
        if (base.valid()) s->type.text += " of " + s->ragged_base.text;
        H5Eclear2(H5E_DEFAULT);
    }

    if (H5Sget_simple_extent_type(space.get()) == H5S_NULL) s->fail("has a null dataspace: it holds no values");
    const int rank = H5Sget_simple_extent_ndims(space.get());
    if (rank < 0) s->fail("cannot read the dataspace: " + last_error());
    if (rank == 0) s->fail("is a scalar dataset; chunkwise reads arrays of rank 1 or more");
    std::vector<hsize_t> dims(static_cast<std::size_t>(rank));
    H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr);
    for (hsize_t d : dims) {
        if (d > std::numeric_limits<std::size_t>::max()) s->fail("is too large: an axis exceeds size_t");
    }
    s->dims.assign(dims.begin(), dims.end());
    // Every element count and byte count a read can compute must fit in size_t (as h5py refuses).
    std::size_t total = 0, total_bytes = 0;
    const std::size_t element_bytes = std::max<std::size_t>(s->type.size, H5Tget_size(type.get()));
    s->element_bytes = element_bytes;
    if (!checked_product(s->dims, total) ||
        __builtin_mul_overflow(total, std::max<std::size_t>(element_bytes, 1), &total_bytes) ||
        total_bytes > static_cast<std::size_t>(std::numeric_limits<std::ptrdiff_t>::max())) {
        s->fail("is too large: shape " + shape_text(s->dims) + " of " + std::to_string(element_bytes) +
                "-byte elements does not fit in this machine's address space");
    }
    if (!checked_product(s->dims, s->row_elements, 1) ||
        s->row_elements > std::numeric_limits<std::size_t>::max() / std::max<std::size_t>(element_bytes, 1)) {
        s->fail("is too large: a row of shape " + shape_text(s->dims) +
                " does not fit in this machine's address space");
    }

    const H5D_layout_t layout = H5Pget_layout(dcpl.get());
    if (layout == H5D_CHUNKED) {
        std::vector<hsize_t> chunk(static_cast<std::size_t>(rank));
        if (H5Pget_chunk(dcpl.get(), rank, chunk.data()) != rank)
            s->fail("cannot read the chunk shape: " + last_error());
        s->chunk.assign(chunk.begin(), chunk.end());
        std::size_t chunk_elements = 0;
        if (std::find(s->chunk.begin(), s->chunk.end(), 0) != s->chunk.end() ||
            !checked_product(s->chunk, chunk_elements) ||
            __builtin_mul_overflow(chunk_elements, std::max<std::size_t>(element_bytes, 1), &s->chunk_bytes)) {
            s->fail("has an impossible chunk shape " + shape_text(s->chunk) + " (corrupted?)");
        }
        s->chunk_elements = chunk_elements;
        s->layout = storage::chunked;
        s->grid.resize(s->dims.size());
        std::uint64_t count = 1;  // saturates: beyond 2^64 chunks nothing is cached anyway
        for (std::size_t d = 0; d < s->dims.size(); ++d) {
            s->grid[d] = s->dims[d] / s->chunk[d] + (s->dims[d] % s->chunk[d] != 0 ? 1 : 0);
            if (__builtin_mul_overflow(count, static_cast<std::uint64_t>(s->grid[d]), &count)) {
                count = std::numeric_limits<std::uint64_t>::max();
            }
        }
        s->total_chunks = count;
        if (s->total_chunks <= (std::uint64_t{1} << 32)) {
            s->pages.resize(
                static_cast<std::size_t>((s->total_chunks + dataset_state::page_size - 1) / dataset_state::page_size));
        }
    } else if (layout == H5D_CONTIGUOUS && H5Pget_external_count(dcpl.get()) == 0) {
        s->layout = storage::contiguous;
        s->contiguous_address = H5Dget_offset(s->dset_h.get());  // undefined until written
        H5Eclear2(H5E_DEFAULT);
    }

    // Chunks never written read as the fill value, except where HDF5 leaves the reader's buffer
    // as it was (fill time "never", or no fill value): chunkwise then gives 0.
    // Where HDF5 cannot even say whether there is a fill value, its message is damaged (and
    // H5Pget_fill_value crashes HDF5 1.10 on some such files): never ask for it then.
    H5D_fill_time_t fill_time = H5D_FILL_TIME_IFSET;
    H5D_fill_value_t fill_status = H5D_FILL_VALUE_DEFAULT;
    if (H5Pget_fill_time(dcpl.get(), &fill_time) >= 0 && H5Pfill_value_defined(dcpl.get(), &fill_status) >= 0) {
        s->writes_fill = fill_time != H5D_FILL_TIME_NEVER && fill_status != H5D_FILL_VALUE_UNDEFINED;
    } else {
        s->fill_defect = "HDF5 cannot read its fill value message: " + last_error();
    }
    H5Eclear2(H5E_DEFAULT);

    const int nfilters = H5Pget_nfilters(dcpl.get());
    if (nfilters < 0) s->fail("cannot read the filter pipeline: " + last_error());
    s->decodable = true;
    for (int i = 0; i < nfilters; ++i) {
        unsigned flags = 0;
        std::vector<unsigned> values(16);
        std::size_t nvalues = values.size();
        char name[256] = {};
        H5Z_filter_t id = H5Pget_filter2(dcpl.get(), static_cast<unsigned>(i), &flags, &nvalues, values.data(),
                                         sizeof name, name, nullptr);
        if (id >= 0 && nvalues > values.size() && nvalues <= 4096) {  // more parameters than room: again
            values.resize(nvalues);
            id = H5Pget_filter2(dcpl.get(), static_cast<unsigned>(i), &flags, &nvalues, values.data(), sizeof name,
                                name, nullptr);
        }
        if (id < 0) s->fail("cannot read filter " + std::to_string(i) + " of the pipeline: " + last_error());
        values.resize(std::min(nvalues, values.size()));
        filter_step step;
        step.id = static_cast<int>(id);
        step.cd = std::move(values);
        step.name = filter_name(step.id);
        // The filters chunkwise decodes (filters/table.hpp), where it accepts their parameters;
        // any other makes HDF5 decode the dataset (which checks the same parameters).
        const codec* c = find_codec(step.id);
        const std::string refused = c == nullptr ? std::string("no decoder in chunkwise") : c->accepts(step.cd);
        // Else (or first, where CHUNKWISE_HDF5_PLUGIN_FIRST asks) an installed plugin shown to be
        // safe in the worker (filters/plugin.hpp).
        if (!refused.empty() || plugin_first(step.id)) step.plugin = worker_plugin(step.id);
        if (step.plugin != nullptr) {
            step.decoder = nullptr;
        } else if (refused.empty()) {
            step.decoder = c;
        } else {
            s->decodable = false;
            // ... and where HDF5 cannot decode it either, reads fail naming the plugin to install.
            if (H5Zfilter_avail(id) <= 0 && s->missing_filter.empty()) {
                const std::string provider = filter_provider(step.id);
                s->missing_filter = "needs HDF5 filter " + std::to_string(step.id) + " (" + step.name +
                                    "), which neither chunkwise (" + refused +
                                    ") nor this HDF5 can decode: its plugin is "
                                    "not installed" +
                                    (provider.empty() ? std::string() : " (" + provider + ")") +
                                    "; HDF5 looks for plugins in " + plugin_search_path();
            }
        }
        s->filter_names.push_back(step.name);
        s->filters.push_back(std::move(step));
    }
    H5Eclear2(H5E_DEFAULT);
    // Each stage's bound: the codec's worst case of what the stages before it make (filters
    // decoded by a plugin or by HDF5 use their codec's bound where chunkwise has one).
    s->stage_bound.assign(1, s->chunk_bytes);
    for (const filter_step& f : s->filters) {
        const codec* c = find_codec(f.id);
        const std::size_t before = s->stage_bound.back();
        s->stage_bound.push_back(c == nullptr || c->max_encoded == nullptr || before == unbounded
                                     ? unbounded
                                     : c->max_encoded(f.cd, before));
    }

    s->dcpl_h = std::move(dcpl);
    if (s->layout == storage::chunked) {
        s->probing = probed_file_of(s->dset_h.get()) != nullptr;
        // Chunk locations from the file's own index where the reads can walk it; else (without
        // the probe driver) from a listing made now, so that decodes_in_worker can say which
        // path reads serve.
        learn_chunk_index(*s);
        if (!s->index.usable() && !s->probing && s->decodable) s->list_all();
        // Whatever H5Dread reads gets a chunk cache that holds one row of chunks, not 1 MiB.
        std::size_t chunks_per_row = 1;
        for (std::size_t d = 1; d < s->dims.size(); ++d)
            chunks_per_row = std::min<std::size_t>(chunks_per_row * s->grid[d], 1u << 20);
        const std::size_t nbytes = std::clamp<std::size_t>(
            std::min<std::size_t>(chunks_per_row, 4096) * std::min<std::size_t>(s->chunk_bytes, 1u << 28) * 2,
            std::size_t{1} << 20, std::size_t{1} << 30);
        handle dapl(H5Pcreate(H5P_DATASET_ACCESS), H5Pclose);
        H5Pset_chunk_cache(dapl.get(), std::max<std::size_t>(521, std::min<std::size_t>(chunks_per_row, 1u << 16) * 20),
                           nbytes, 1.0);
        handle reopened(H5Dopen2(s->file_h.get(), s->path.c_str(), dapl.get()), H5Dclose);
        if (reopened.valid()) s->dset_h = std::move(reopened);
        H5Eclear2(H5E_DEFAULT);
    }
    if (s->layout == storage::contiguous && s->contiguous_address != HADDR_UNDEF) {
        // pread from the file the dataset lives in (an external link may lead to another), only
        // where HDF5 itself would read these bytes without complaint (inside its allocated space).
        // Data said to lie outside it is corrupted: H5Dread then fails or not depending on what
        // was read before, so chunkwise refuses every read of it.
        // Without the probe driver: the file by the name HDF5 gives it, and HDF5's end of the
        // allocated space (relative to the user block, as H5Dget_offset is not).
        haddr_t eoa = HADDR_UNDEF;
        int fd = -1;
        if (const probe_file* f = probed_file_of(s->dset_h.get())) {
            eoa = f->eoa;
            fd = f->fd;
        } else {
            handle fid(H5Iget_file_id(s->dset_h.get()), H5Fclose);
            handle fcpl(fid.valid() ? H5Fget_create_plist(fid.get()) : H5I_INVALID_HID, H5Pclose);
            hsize_t userblock = 0;
            if (fcpl.valid() && H5Pget_userblock(fcpl.get(), &userblock) >= 0 && H5Fget_eoa(fid.get(), &eoa) >= 0 &&
                eoa != HADDR_UNDEF && eoa <= std::numeric_limits<haddr_t>::max() - userblock) {
                eoa += userblock;
                fd = s->file_fd();
            } else {
                eoa = HADDR_UNDEF;
            }
            H5Eclear2(H5E_DEFAULT);
        }
        if (eoa != HADDR_UNDEF && fd >= 0) {
            const bool inside = s->contiguous_address <= eoa && total_bytes <= eoa - s->contiguous_address;
            s->storage_outside = !inside;
            if (inside) s->contiguous_fd = ::fcntl(fd, F_DUPFD_CLOEXEC, 0);
        }
    }
    return s;
}

}  // namespace chunkwise::h5::detail
