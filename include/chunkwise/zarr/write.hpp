#pragma once
/// \file
/// `chunkwise::zarr::write` and `write_blocks`: arrays and block results into a new Zarr store
/// (v2 or v3, sharded or not), each chunk or shard file written by one worker with no lock, under
/// a temporary name renamed into place.

#include <chunkwise/detail/core/compiled.hpp>
#include <chunkwise/detail/zarr/attributes.hpp>
#include <chunkwise/detail/zarr/existing.hpp>
#include <chunkwise/detail/zarr/groups.hpp>
#include <chunkwise/detail/zarr/write.hpp>
#include <chunkwise/store.hpp>
#include <chunkwise/gather.hpp>
#include <chunkwise/map_blocks.hpp>
#include <chunkwise/partial_results.hpp>
#include <chunkwise/partition.hpp>
#include <chunkwise/policy.hpp>
#include <chunkwise/zarr/attributes.hpp>
#include <chunkwise/zarr/error.hpp>
#include <chunkwise/zarr/write_options.hpp>

#include <cstddef>
#include <exception>
#include <filesystem>
#include <mutex>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace chunkwise::zarr {

/// One chunk encoded as a write with `opt` stores it (its filters, then its compressor), alone: for tools and
/// benchmarks that measure the encoding apart from the store. Each thread uses its own encoder.
class chunk_encoder {
public:
    /// \throws std::invalid_argument naming the problem where this build cannot write `opt`
    chunk_encoder(const write_options& opt, std::size_t element_size, std::size_t chunk_bytes);

    /// The encoded bytes of the `chunk` bytes of one whole chunk (row-major); valid until the next call (they may be
    /// `chunk` itself, where nothing is applied).
    std::span<const unsigned char> encode(std::span<const unsigned char> chunk);

private:
    detail::codecs::pipeline pipeline_;
    std::vector<unsigned char> out_, scratch_;
};

namespace detail {

/// The options checked against an array's shape: the chunk and shard shapes completed.
struct plan {
    std::vector<std::size_t> shape, chunk, grid;  // grid: the shard where sharded, else the chunk
    encoding enc;
    int format = 2;
    bool sharded = false;  // sharding_indexed, as asked (a shard as large as a chunk included)
    write_mode mode = write_mode::create;
    json attributes = json::object();      // with _ARRAY_DIMENSIONS in format 2 where dimensions are named
    json dimension_names = json(nullptr);  // format 3: the names, else null
};

template <class T>
plan make_plan(const std::string& store, const std::vector<std::size_t>& shape, const write_options& o) {
    if (const std::string why = options_problem(o); !why.empty()) throw error(store, "", why);
    if (shape.empty()) throw error(store, "", "a 0-d array: write arrays of 1 or more axes");
    plan p;
    p.shape = shape;
    p.format = o.format;
    p.chunk = o.chunk;
    if (p.chunk.empty()) {
        std::size_t row = sizeof(T);
        for (std::size_t d = 1; d < shape.size(); ++d) row *= std::max<std::size_t>(shape[d], 1);
        p.chunk = shape;
        p.chunk[0] = std::clamp<std::size_t>((std::size_t{1} << 20) / std::max<std::size_t>(row, 1), 1,
                                             std::max<std::size_t>(shape[0], 1));
        for (std::size_t d = 1; d < shape.size(); ++d) p.chunk[d] = std::max<std::size_t>(shape[d], 1);
    }
    if (p.chunk.size() != shape.size())
        throw error(store, "",
                    "chunk of rank " + std::to_string(p.chunk.size()) + " for an array of rank " +
                        std::to_string(shape.size()));
    for (std::size_t c : p.chunk)
        if (c == 0) throw error(store, "", "a chunk extent of 0");
    p.grid = o.shard.empty() ? p.chunk : o.shard;
    p.sharded = !o.shard.empty();
    if (p.grid.size() != shape.size()) throw error(store, "", "shard of another rank than the array");
    for (std::size_t d = 0; d < shape.size(); ++d)
        if (p.grid[d] == 0 || p.grid[d] % p.chunk[d] != 0)
            throw error(store, "", "the shard shape is not a multiple of the chunk shape");
    std::size_t chunk_bytes = sizeof(T);
    for (std::size_t c : p.chunk) chunk_bytes *= c;
    p.enc = make_encoding(write_codec_of(o), o.shuffle, sizeof(T), chunk_bytes);
    p.mode = o.mode;
    p.attributes = attributes_json(store, o.attributes);
    if (const std::string why = chunkwise::detail::dimensions_problem(o.dimensions, shape.size()); !why.empty())
        throw error(store, "", why);
    if (!o.dimensions.empty()) {
        if (p.format == 2) {
            const json names = o.dimensions;
            if (p.attributes.contains("_ARRAY_DIMENSIONS") && p.attributes["_ARRAY_DIMENSIONS"] != names)
                throw error(store, "",
                            "attribute _ARRAY_DIMENSIONS " + shown(p.attributes["_ARRAY_DIMENSIONS"]) +
                                " differs from write_options::dimensions " + shown(names) + ": give the names once");
            p.attributes["_ARRAY_DIMENSIONS"] = names;
        } else {
            p.dimension_names = o.dimensions;
        }
    }
    refuse_inside_array(store);
    return p;
}

/// The options as text, to compare them across ranks.
CHUNKWISE_ZARR_DECL std::string options_text(const write_options& o);

/// Lists the finished array of plan `p` in the consolidated metadata (.zmetadata) of the format-2 groups above
/// it: after the write has ended, so that a failure here never removes the array.
/// \throws zarr::error saying the array is written and which .zmetadata could not be updated
CHUNKWISE_ZARR_DECL void list_in_groups(const std::string& store, const plan& p);

/// Writes the metadata file and ends the write (the store's unfinished mark removed); then
/// list_in_groups.
template <class T>
void write_metadata(const std::string& store, const plan& p) {
    const auto [name, text] =
        metadata_text<T>(p.shape, p.grid, p.chunk, p.enc, p.format, p.sharded, p.attributes, p.dimension_names);
    if (p.format == 2 && !p.attributes.empty()) {
        const std::string attrs = p.attributes.dump(4, ' ', true);  // ASCII, as zarr-python 2 reads it
        write_file(store, ".zattrs", reinterpret_cast<const unsigned char*>(attrs.data()), attrs.size());
    }
    finish_store(store, name, text);
}

/// `values` encoded by `e` into `out` (`scratch`: a second buffer the pipeline may use).
template <class T>
void encode_into(const encoding& e, const std::vector<T>& values, std::vector<unsigned char>& out,
                 std::vector<unsigned char>& scratch) {
    const auto* bytes = reinterpret_cast<const unsigned char*>(values.data());
    const auto [data, size] = codecs::encode_chunk(e.pipe, bytes, values.size() * sizeof(T), out, scratch);
    if (data == bytes) {
        out.assign(bytes, bytes + size);
    } else if (data != out.data()) {
        out.assign(data, data + size);
    } else {
        out.resize(size);
    }
}

/// Encodes and writes every chunk (or shard) whose grid row is `g0`, from the slabs.
template <class T>
void write_grid_row(const std::string& store, const plan& p, const std::vector<slab<T>>& slabs, std::size_t g0) {
    const std::size_t rank = p.shape.size();
    std::vector<std::size_t> count(rank), at(rank, 0), origin(rank), inner_origin(rank), pos(rank);
    for (std::size_t d = 0; d < rank; ++d)
        count[d] = std::max<std::size_t>((p.shape[d] + p.grid[d] - 1) / p.grid[d], 1);
    meta m;
    m.format = p.format;
    m.separator = p.format == 3 ? '/' : '.';
    m.v3_default_keys = p.format == 3;
    // Reused by each thread from call to call: fresh buffers of a chunk (shard) each cost their page faults again.
    thread_local std::vector<T> values;
    thread_local std::vector<unsigned char> encoded, file, scratch;
    at[0] = g0;
    while (true) {
        for (std::size_t d = 0; d < rank; ++d) origin[d] = at[d] * p.grid[d];
        const std::string key = chunk_key(m, at);
        try {
            if (!p.sharded) {
                assemble<T>(slabs, p.shape, origin, p.chunk, values);
                encode_into(p.enc, values, file, scratch);
            } else {
                std::size_t inner = 1;
                std::vector<std::size_t> per(rank);
                for (std::size_t d = 0; d < rank; ++d) inner *= (per[d] = p.grid[d] / p.chunk[d]);
                std::vector<unsigned char> index(16 * inner + 4);
                file.clear();
                for (std::size_t k = 0; k < inner; ++k) {
                    std::size_t rest = k;
                    for (std::size_t d = rank; d-- > 0;) {
                        pos[d] = rest % per[d];
                        rest /= per[d];
                        inner_origin[d] = origin[d] + pos[d] * p.chunk[d];
                    }
                    std::uint64_t off = std::numeric_limits<std::uint64_t>::max(), n = off;
                    bool inside = true;
                    for (std::size_t d = 0; d < rank; ++d) inside = inside && inner_origin[d] < p.shape[d];
                    if (inside) {
                        assemble<T>(slabs, p.shape, inner_origin, p.chunk, values);
                        // Copied once into the shard from wherever the pipeline left it (the values
                        // themselves where there is no codec).
                        const auto [data, size] =
                            codecs::encode_chunk(p.enc.pipe, reinterpret_cast<const unsigned char*>(values.data()),
                                                 values.size() * sizeof(T), encoded, scratch);
                        off = file.size();
                        n = size;
                        file.insert(file.end(), data, data + size);
                    }
                    for (int b = 0; b < 8; ++b) {
                        index[16 * k + static_cast<std::size_t>(b)] = static_cast<unsigned char>(off >> (8 * b));
                        index[16 * k + 8 + static_cast<std::size_t>(b)] = static_cast<unsigned char>(n >> (8 * b));
                    }
                }
                codecs::write_le32(index.data() + 16 * inner, codecs::crc32c(index.data(), 16 * inner));
                file.insert(file.end(), index.begin(), index.end());
            }
        } catch (const error&) {
            throw;
        } catch (const std::exception& e) {
            throw error(store, key, e.what());
        }
        write_file(store, key, file.data(), file.size());
        std::size_t d = rank;
        while (d-- > 1) {
            if (++at[d] < count[d]) break;
            at[d] = 0;
        }
        if (d == 0 || rank == 1) return;
    }
}

/// Grid row g of the array plan `p` describes, rewritten whole from `slabs` (this write's rows of it, [first, end))
/// under its lock in `locks` (slot 1 + g): its rows outside [first, end) read first from `now` (the array as it
/// stands) and kept. What append and update write with, from any thread or process.
template <class T>
void merge_grid_row(const std::string& store, const plan& p, const state& now, store_lock& locks, std::size_t g,
                    std::size_t first, std::size_t end, const std::vector<slab<T>>& slabs) {
    const std::size_t r0 = g * p.grid[0], r1 = std::min(r0 + p.grid[0], now.m.shape[0]);
    locks.lock(1 + g, true);
    std::vector<slab<T>> all;
    std::vector<T> kept;
    if ((r0 < first || r1 > end) && r0 < r1) {
        read_rows<T>(now, r0, r1, kept);
        all.push_back({r0, r1 - r0, kept.data()});
    }
    all.insert(all.end(), slabs.begin(), slabs.end());
    write_grid_row<T>(store, p, all, g);
    locks.unlock(1 + g);
}

/// Writes `shape` values of T at `data` (row-major) into the existing array at `store`, as `o.mode` (append or
/// update) asks: each grid row of chunks (shards) the rows touch is rewritten whole under its lock, the rows it keeps
/// read first; an append's new extent is written last, so a reader sees the old extent or the new one.
template <class T>
void write_existing(const std::string& store, const std::vector<std::size_t>& shape, const T* data,
                    const write_options& o) {
    constexpr char kind = numpy_kind<T>();
    if (!std::filesystem::is_directory(store)) (void)open_existing(store, shape, kind, sizeof(T), o);  // says why
    store_lock locks(store);
    locks.lock(0, o.mode == write_mode::append);  // the extent stays as it is while this write runs
    const existing_array e = open_existing(store, shape, kind, sizeof(T), o);
    const plan p = make_plan<T>(store, e.new_shape, e.options);
    check_encoding(store, e, metadata_text<T>(e.shape, p.grid, p.chunk, p.enc, p.format, p.sharded).second, o);
    const std::size_t rows = shape[0], first = e.first_row, unit = p.grid[0];
    if (rows > 0) {
        const removals_deferred removals;  // the chunk files replaced are removed while the next are encoded
        const state now = extended_state(store, e.new_shape[0]);
        const std::vector<slab<T>> slabs{{first, rows, data}};
        for (std::size_t g = first / unit; g * unit < first + rows; ++g)
            merge_grid_row<T>(store, p, now, locks, g, first, first + rows, slabs);
    }
    if (o.mode == write_mode::append) write_extent(store, e);
    if (!o.attributes.empty()) set_attributes(store, o.attributes);
}

/// The write path of element type T: `extern` declares it, nothing defines it (compiled mode, as
/// the reads in detail/zarr/read_box.hpp).
#define CHUNKWISE_ZARR_WRITE_INSTANCES(EXTERN, T)                                                                      \
    EXTERN template void write_grid_row<T>(const std::string&, const plan&, const std::vector<slab<T>>&, std::size_t); \
    EXTERN template void write_metadata<T>(const std::string&, const plan&);                                           \
    EXTERN template void write_existing<T>(const std::string&, const std::vector<std::size_t>&, const T*,              \
                                           const write_options&);                                                      \
    EXTERN template void merge_grid_row<T>(const std::string&, const plan&, const state&, store_lock&, std::size_t,    \
                                           std::size_t, std::size_t, const std::vector<slab<T>>&);
#if !CHUNKWISE_ZARR_HEADER_ONLY
/// One element type's write path, declared extern.
#define CHUNKWISE_ZARR_EXTERN_WRITE(T) CHUNKWISE_ZARR_WRITE_INSTANCES(extern, T)
CHUNKWISE_ARITHMETIC_TYPES(CHUNKWISE_ZARR_EXTERN_WRITE)
#undef CHUNKWISE_ZARR_EXTERN_WRITE
#endif

}  // namespace detail

/// Writes `array` (an xtensor container, row-major; or a std::vector, 1-D) as a new Zarr array in
/// the directory `path`: created where missing; an existing Zarr array or group there is refused
/// (write_mode::create, the default) or replaced (write_mode::replace), anything else refused.
/// Every chunk file goes under a temporary name, then is renamed into place; the metadata is
/// written last, so until the write ends the store is no array: it holds the mark
/// `.chunkwise-unfinished`, which readers report (and a killed write leaves). A write that fails
/// removes what it wrote.
/// With write_mode::append or write_mode::update it writes the rows into the existing array at
/// `path` instead (at its end, or from `opt.first_row`), in its own encoding, keeping every other
/// value of the chunks it touches: safe from many threads and processes at once (docs/writing.md,
/// "Write modes"); an append's new extent is written last.
/// \throws zarr::error naming the store (and the chunk where one failed) if the options do not fit
///         the array, the store is a file or not writable, or the disk is full; for append and
///         update, where no array is there, or its type, other axes, chunks, codecs or dimension
///         names differ from the values' and options', or rows lie past its end
template <class Array>
void write(const std::filesystem::path& path, const Array& array, const write_options& opt = {}) {
    using T = std::remove_cv_t<typename Array::value_type>;
    static_assert(std::is_arithmetic_v<T> && !std::is_same_v<T, bool>,
                  "chunkwise::zarr::write: arithmetic values (not bool)");
    const std::string store = path.string();
    if (opt.mode == write_mode::append || opt.mode == write_mode::update) {
        detail::write_existing<T>(store, chunkwise::detail::result_shape(array), array.data(), opt);
        return;
    }
    const detail::plan p = detail::make_plan<T>(store, chunkwise::detail::result_shape(array), opt);
    detail::store_lock hold;  // held until the metadata is written: a second writer of this store waits
    const bool created = detail::prepare_store(store, p.mode, hold);
    try {
        const std::vector<detail::slab<T>> slabs{{0, p.shape[0], array.data()}};
        for (std::size_t g = 0; g * p.grid[0] < p.shape[0]; ++g) detail::write_grid_row<T>(store, p, slabs, g);
        detail::write_metadata<T>(store, p);
    } catch (...) {
        try {
            detail::clear_store(store, created);  // nothing left that a reader or a rerun would trip on
        } catch (const error&) {
            // the write's own error says more; an unfinished mark stays where clearing failed
        }
        throw;
    }
    detail::list_in_groups(store, p);  // the array is finished: a failure here leaves it whole
}

}  // namespace chunkwise::zarr

#if CHUNKWISE_ZARR_HEADER_ONLY
#include <chunkwise/zarr/write.ipp>
#endif
