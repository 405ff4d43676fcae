#pragma once
// Internal: what an h5::dataset view shares between its copies: the open file and dataset, the
// geometry (checked against size_t overflow), the element type, the storage layout, the filter
// pipeline with each filter's parameters, the file descriptor(s) the raw bytes are read from, and
// the cache of chunk locations (file, address, stored size, filter mask) learnt through the probe
// driver, once per chunk, under the library lock.
#include <chunkwise/detail/core/compiled.hpp>
#include <chunkwise/detail/hdf5/filters/plugin.hpp>
#include <chunkwise/detail/hdf5/codecs.hpp>
#include <chunkwise/detail/hdf5/format/chunk_index.hpp>
#include <chunkwise/detail/hdf5/format/object_header.hpp>
#include <chunkwise/detail/hdf5/library.hpp>
#include <chunkwise/detail/hdf5/names.hpp>
#include <chunkwise/detail/hdf5/read/locate.hpp>
#include <chunkwise/detail/hdf5/read/probe_driver.hpp>
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
    std::vector<unsigned> cd;        // its parameters (client data), as stored
    std::string name;                // its usual name (filters/codec.hpp)
    const codec* decoder = nullptr;  // chunkwise's decoder (filters/table.hpp); null: HDF5 decodes
    H5Z_func_t plugin = nullptr;     // else an installed plugin's, called in the worker (filters/plugin.hpp)
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
CHUNKWISE_HDF5_DECL bool checked_product(const std::vector<std::size_t>& v, std::size_t& out, std::size_t from = 0);

/// The probe driver's record of the file `object` lives in, or null where that file was opened
/// through another driver. Valid while the object is open. Call with the lock held.
CHUNKWISE_HDF5_DECL const probe_file* probed_file_of(hid_t object);

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
    /// What the pipeline may hold at each stage, from each codec's own worst case: stage_bound[i]
    /// the most bytes undoing filter i gives (what filters 0..i-1 make of a chunk at most),
    /// stage_bound.back() the most a stored chunk holds; `unbounded` past a filter without one.
    std::vector<std::size_t> stage_bound;
    std::vector<std::string> filter_names;
    bool decodable = false;                    // every filter is one chunkwise decodes itself
    std::string missing_filter;                // a filter neither chunkwise nor HDF5 can decode ("" if none)
    bool probing = false;                      // the dataset's file is open through the probe driver
    chunk_index index;                         // the file's own chunk index, walked by each read (no lock)
    index_kind index_type = index_kind::none;  // its type, where chunkwise reads it (walked or not)
    mutable bool listed = false;               // every stored chunk's location learnt in one pass (H5Dchunk_iter)
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
        const auto shift =
            listing_shift(dset_h.get(), fid.get(), fd, chunks->front(), offset_of(chunks->front().linear));
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

private:
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

}  // namespace chunkwise::h5::detail

#if CHUNKWISE_HDF5_HEADER_ONLY
#include <chunkwise/detail/hdf5/state.ipp>
#endif
