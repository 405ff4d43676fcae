#pragma once
// Internal: what an h5::dataset view shares between its copies: the open file and dataset, the
// geometry (checked against size_t overflow), the element type, the storage layout, the filter
// pipeline with each filter's parameters, the file descriptor(s) the raw bytes are read from, and
// the cache of chunk locations (file, address, stored size, filter mask) learnt through the probe
// driver, once per chunk, under the library lock.
#include <chunkwise/detail/hdf5/chunk_index.hpp>
#include <chunkwise/detail/hdf5/header_check.hpp>
#include <chunkwise/detail/hdf5/library.hpp>
#include <chunkwise/detail/hdf5/names.hpp>
#include <chunkwise/detail/hdf5/probe_driver.hpp>
#include <chunkwise/detail/hdf5/types.hpp>
#include <chunkwise/hdf5/error.hpp>

#include <hdf5.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <limits>
#include <memory>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

namespace chunkwise::h5::detail {

enum class storage { contiguous, chunked, other };

/// One filter of the pipeline, in the order HDF5 applies them when writing.
struct filter_step {
    int id = 0;
    std::size_t param = 0;  // shuffle: the element size it shuffles by
    std::string name;
};

/// Where one chunk's bytes are.
struct chunk_location {
    enum class kind : std::uint8_t {
        unknown,  // not probed yet
        stored,   // at address, size bytes, in file
        absent,   // never written: HDF5 gives fill values
    };
    kind state = kind::unknown;
    std::uint32_t mask = 0;  // filters skipped for this chunk (bit i: filter i)
    int fd = -1;             // the file it lives in (owned by dataset_state)
    std::uint64_t address = 0;
    std::uint64_t size = 0;
};


/// Product of v, or false on size_t overflow.
inline bool checked_product(const std::vector<std::size_t>& v, std::size_t& out, std::size_t from = 0) {
    std::size_t p = 1;
    for (std::size_t i = from; i < v.size(); ++i) {
        if (__builtin_mul_overflow(p, v[i], &p)) return false;
    }
    out = p;
    return true;
}

/// The probe driver's record of the file `object` lives in, or null where that file was opened
/// through another driver. Valid while the object is open. Call with the lock held.
inline const probe_file* probed_file_of(hid_t object) {
    handle fid(H5Iget_file_id(object), H5Fclose);
    if (!fid.valid()) return nullptr;
    handle fapl(H5Fget_access_plist(fid.get()), H5Pclose);
    void* vfd = nullptr;
    const probe_file* f = nullptr;
    if (fapl.valid() && H5Pget_driver(fapl.get()) == probe_driver::id() &&
        H5Fget_vfd_handle(fid.get(), fapl.get(), &vfd) >= 0 && vfd != nullptr) {
        // The driver hands out &probe_file::fd.
        f = reinterpret_cast<const probe_file*>(static_cast<const char*>(vfd) - offsetof(probe_file, fd));
    }
    H5Eclear2(H5E_DEFAULT);
    return f;
}

struct dataset_state {
    std::string file, path;
    handle file_h, dset_h, dcpl_h;
    handle file_type;    // the dataset's own type: enums are read through it (no conversion)
    handle stored_type;  // the stored values' type (an enum's base), for H5Tconvert
    std::vector<std::size_t> dims;
    std::vector<std::size_t> chunk;  // empty: not chunked
    element_type type;
    std::size_t element_bytes = 0;  // bytes per stored element, whatever its type
    std::string type_defect;        // why the stored type cannot be read ("" if it can)
    bool ragged = false;            // variable-length sequences of numbers (read_ragged)
    element_type ragged_base;       // their element type (ragged only)
    storage layout = storage::other;
    std::vector<filter_step> filters;
    std::vector<std::string> filter_names;
    bool decodable = false;  // every filter is one chunkwise decodes itself
    bool probing = false;    // the dataset's file is open through the probe driver
    mutable bool listed = false;       // every stored chunk's location learnt in one pass (H5Dchunk_iter)
    mutable bool listing_tried = false;
    haddr_t contiguous_address = HADDR_UNDEF;
    int contiguous_fd = -1;          // for pread of contiguous data
    bool storage_outside = false;    // contiguous data said to lie past the file's allocated space
    bool writes_fill = true;         // HDF5 writes the fill value into reads of chunks never written
    std::string fill_defect;         // why the fill value cannot be known ("" if it can)
    std::size_t row_elements = 1;    // elements per row (product of dims[1..])
    std::size_t chunk_elements = 0;  // elements per chunk
    std::size_t chunk_bytes = 0;     // decoded bytes per chunk
    std::vector<std::size_t> grid;   // chunks along each axis
    std::uint64_t total_chunks = 0;

    // The chunk location cache: pages of 4096 entries, allocated when first touched; filled and
    // read only under the library lock (readers copy what they need out of it).
    static constexpr std::size_t page_size = 4096;
    mutable std::vector<std::unique_ptr<chunk_location[]>> pages;
    mutable std::vector<std::pair<std::pair<dev_t, ino_t>, int>> files;  // files chunks live in, dup'ed

    dataset_state() = default;
    dataset_state(const dataset_state&) = delete;
    dataset_state& operator=(const dataset_state&) = delete;
    ~dataset_state() {
        for (auto& f : files) ::close(f.second);
        if (contiguous_fd >= 0) ::close(contiguous_fd);
    }

    [[noreturn]] void fail(const std::string& message) const { throw error(file, path, message); }

    /// An fd (owned here) for the file `f` a probe named. Call with the lock held.
    int fd_for(const probe_file& f) const {
        const std::pair<dev_t, ino_t> id{f.device, f.inode};
        for (const auto& e : files) {
            if (e.first == id) return e.second;
        }
        const int fd = ::fcntl(f.fd, F_DUPFD_CLOEXEC, 0);
        if (fd < 0) fail(std::string("cannot duplicate a file descriptor: ") + std::strerror(errno));
        files.emplace_back(id, fd);
        return fd;
    }

    /// Where chunk `linear` (row-major in the chunk grid) at element offset `offset` is. The
    /// first call lists every chunk in one pass where HDF5 can (then a chunk not listed was never
    /// written); else each chunk is learnt through the probe driver the first time. Call with the
    /// lock held.
    chunk_location locate(std::uint64_t linear, const hsize_t* offset) const {
        if (!listing_tried) list_all();
        chunk_location* slot = nullptr;
        if (!pages.empty()) {
            auto& page = pages[static_cast<std::size_t>(linear / page_size)];
            if (!page && listed) return chunk_location{chunk_location::kind::absent};
            if (!page) page = std::make_unique<chunk_location[]>(page_size);
            slot = &page[static_cast<std::size_t>(linear % page_size)];
            if (slot->state != chunk_location::kind::unknown) return *slot;
            if (listed) return chunk_location{chunk_location::kind::absent};
        }
        if (!probing) fail("chunk locations are unknown (no probe driver and no chunk listing)");
        chunk_location loc = probe(offset);
        if (slot != nullptr) *slot = loc;
        return loc;
    }

    /// Lists every stored chunk (H5Dchunk_iter) into the cache, once, where HDF5 can and its
    /// addresses give the bytes HDF5 reads; then `listed`. Call with the lock held.
    void list_all() const {
        listing_tried = true;
        if (pages.empty() || !has_chunk_iter) return;
        auto chunks = list_chunks(dset_h.get(), chunk, grid);
        if (!chunks) return;
        if (chunks->empty()) {
            listed = true;  // nothing written yet: every chunk reads as the fill value
            return;
        }
        const int fd = file_fd();
        if (fd < 0) return;
        std::vector<hsize_t> offset(dims.size());
        auto offset_of = [&](std::uint64_t linear) {
            for (std::size_t d = dims.size(); d-- > 0;) {
                offset[d] = static_cast<hsize_t>(linear % grid[d]) * chunk[d];
                linear /= grid[d];
            }
            return offset.data();
        };
        handle fid(H5Iget_file_id(dset_h.get()), H5Fclose);
        const auto shift = listing_shift(dset_h.get(), fid.get(), fd, chunks->front(), offset_of(chunks->front().linear));
        if (!shift) return;
        // The listing walks the whole index, H5Dread looks each chunk up: in a damaged index the
        // two can disagree. Used only where every listed chunk is found where it is listed (and,
        // for up to 2^16 chunks, no other chunk is found).
        std::vector<bool> seen(total_chunks <= (1u << 16) ? static_cast<std::size_t>(total_chunks) : 0);
        for (const indexed_chunk& c : *chunks) {
            hsize_t size = 0;
            if (H5Dget_chunk_storage_size(dset_h.get(), offset_of(c.linear), &size) < 0 || size != c.size) {
                H5Eclear2(H5E_DEFAULT);
                return;
            }
            if (!seen.empty()) seen[static_cast<std::size_t>(c.linear)] = true;
        }
        for (std::size_t k = 0; k < seen.size(); ++k) {
            hsize_t size = 0;
            if (!seen[k] && H5Dget_chunk_storage_size(dset_h.get(), offset_of(k), &size) >= 0 && size > 0) return;
            H5Eclear2(H5E_DEFAULT);
        }
        for (const indexed_chunk& c : *chunks) {
            auto& page = pages[static_cast<std::size_t>(c.linear / page_size)];
            if (!page) page = std::make_unique<chunk_location[]>(page_size);
            page[static_cast<std::size_t>(c.linear % page_size)] =
                chunk_location{chunk_location::kind::stored, c.mask, fd, c.address + *shift, c.size};
        }
        listed = true;
    }

private:
    /// An fd (owned here) for the file the dataset lives in, or -1. Call with the lock held.
    int file_fd() const {
        if (const probe_file* f = probed_file_of(dset_h.get())) return fd_for(*f);
        // Opened through HDF5's own driver: the file by the name HDF5 gives it.
        handle fid(H5Iget_file_id(dset_h.get()), H5Fclose);
        const ssize_t n = fid.valid() ? H5Fget_name(fid.get(), nullptr, 0) : -1;
        if (n <= 0) return -1;
        std::string name(static_cast<std::size_t>(n) + 1, '\0');
        H5Fget_name(fid.get(), name.data(), name.size());
        name.resize(static_cast<std::size_t>(n));
        const int fd = ::open(name.c_str(), O_RDONLY | O_CLOEXEC);
        struct stat st {};
        if (fd < 0 || ::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
            if (fd >= 0) ::close(fd);
            return -1;
        }
        for (const auto& e : files) {
            if (e.first == std::pair<dev_t, ino_t>{st.st_dev, st.st_ino}) {
                ::close(fd);
                return e.second;
            }
        }
        files.emplace_back(std::pair<dev_t, ino_t>{st.st_dev, st.st_ino}, fd);
        return fd;
    }

    chunk_location probe(const hsize_t* offset) const {
        chunk_location loc;
        probe_record rec;
        std::uint32_t mask = 0;
        alignas(16) unsigned char unused[64];  // the probe driver writes nothing here
        herr_t rc = 0;
        {
            probe_scope scope(rec);
            rc = direct_read_chunk(dset_h.get(), offset, &mask, unused, std::numeric_limits<std::size_t>::max());
        }
        if (rc >= 0 && rec.reads == 1 && rec.file != nullptr && rec.address != HADDR_UNDEF) {
            loc.state = chunk_location::kind::stored;
            loc.mask = mask;
            loc.fd = fd_for(*rec.file);
            loc.address = rec.address;
            loc.size = rec.size;
            return loc;
        }
        const std::string why = last_error();
        // Never written? Asked of HDF5 (a stored size of 0, no address), not read from its messages.
        if (rc < 0 && never_written(dset_h.get(), offset).value_or(false)) {
            loc.state = chunk_location::kind::absent;  // fill values
            return loc;
        }
        // An allocated chunk HDF5 cannot read where its index says (outside the file's allocated
        // space, or nothing to read): corrupted. Left to H5Dread, such reads fail or not
        // depending on what was read before; an error every time is the reproducible answer.
        std::string at = "(";
        for (std::size_t d = 0; d < dims.size(); ++d) at += (d ? ", " : "") + std::to_string(offset[d]);
        fail("chunk at " + at + ") cannot be read where the chunk index puts it (corrupted?)" +
             (why.empty() ? std::string() : ": " + why));
    }
};

/// Checks that s.path names a dataset; otherwise throws naming the nearest existing group and
/// what it holds. Call with the lock held.
inline void check_dataset_path(const dataset_state& s) {
    std::string prefix;
    std::string walked = "/";
    std::size_t pos = 1;
    const std::string& path = s.path;
    if (path == "/") s.fail("the root group '/' is not a dataset");
    while (pos <= path.size()) {
        std::size_t next = path.find('/', pos);
        if (next == std::string::npos) next = path.size();
        const std::string part = path.substr(pos, next - pos);
        pos = next + 1;
        prefix += "/" + part;
        const htri_t exists = H5Lexists(s.file_h.get(), prefix.c_str(), H5P_DEFAULT);
        if (exists <= 0) {
            H5Eclear2(H5E_DEFAULT);
            const auto members = group_members(s.file_h.get(), walked);
            s.fail("no dataset '" + path + "': '" + part + "' is not in group '" + walked + "', which holds " +
                   (members.empty() ? std::string("nothing") : join(members)));
        }
        const bool last = pos > path.size();
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
    int deflates = 0;
    for (int i = 0; i < nfilters; ++i) {
        unsigned flags = 0, values[8] = {};
        std::size_t nvalues = 8;
        char name[64];
        const H5Z_filter_t id =
            H5Pget_filter2(dcpl.get(), static_cast<unsigned>(i), &flags, &nvalues, values, sizeof name, name, nullptr);
        filter_step step{static_cast<int>(id), 0, filter_name(static_cast<int>(id))};
        if (id == H5Z_FILTER_DEFLATE) {
            // HDF5 checks the level even when reading (one parameter, 0-9), and so does chunkwise
            // (H5Dread then reports it).
            ++deflates;
            if (nvalues != 1 || values[0] > 9) s->decodable = false;
        } else if (id == H5Z_FILTER_SHUFFLE) {
            // HDF5 shuffles by its one parameter (set to the type's size when the dataset was
            // made); it refuses other parameter counts and 0, and so does chunkwise (H5Dread).
            if (nvalues != 1 || values[0] == 0) {
                s->decodable = false;
            } else {
                step.param = values[0];
            }
        } else {
            s->decodable = false;
        }
        s->filter_names.push_back(step.name);
        s->filters.push_back(std::move(step));
    }
    if (deflates > 1) s->decodable = false;
    H5Eclear2(H5E_DEFAULT);

    s->dcpl_h = std::move(dcpl);
    if (s->layout == storage::chunked) {
        s->probing = probed_file_of(s->dset_h.get()) != nullptr;
        // Without the probe driver, chunk locations come only from a listing: made now, so that
        // decodes_in_worker can say which path reads serve.
        if (!s->probing && s->decodable) s->list_all();
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
        if (const probe_file* f = probed_file_of(s->dset_h.get())) {
            const bool inside = s->contiguous_address <= f->eoa && total_bytes <= f->eoa - s->contiguous_address;
            s->storage_outside = !inside;
            if (inside) s->contiguous_fd = ::fcntl(f->fd, F_DUPFD_CLOEXEC, 0);
        }
    }
    return s;
}

}  // namespace chunkwise::h5::detail
