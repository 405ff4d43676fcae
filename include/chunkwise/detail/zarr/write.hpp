#pragma once
// Internal: writing Zarr stores. The metadata each format wants for write_options (v2 .zarray
// with numcodecs' compressor and filters; v3 zarr.json with bytes, a compressor and optionally
// sharding_indexed with a crc32c-checked index at the end), each codec's entry from the codec
// floor, and the write of one file under a temporary name renamed into place, so a reader (or a
// rerun) never sees half a chunk.
#include <chunkwise/detail/core/compiled.hpp>
#include <chunkwise/detail/core/env_count.hpp>
#include <chunkwise/detail/codecs/pipeline.hpp>
#include <chunkwise/detail/core/posix_io.hpp>
#include <chunkwise/detail/zarr/codecs.hpp>
#include <chunkwise/store.hpp>
#include <chunkwise/zarr/error.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <bit>
#include <cerrno>
#include <condition_variable>
#include <cstdio>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <filesystem>
#include <limits>
#include <mutex>
#include <string>
#include <system_error>
#include <thread>
#include <type_traits>
#include <vector>

namespace chunkwise::zarr::detail {

/// numpy's kind of T: 'b' (bool), 'f' (floating point), 'i' (signed) or 'u' (unsigned).
template <class T>
constexpr char numpy_kind() {
    return std::is_same_v<T, bool> ? 'b' : std::is_floating_point_v<T> ? 'f' : std::is_signed_v<T> ? 'i' : 'u';
}
/// numpy's v2 dtype string of T in this machine's byte order ("<f8").
template <class T>
std::string v2_dtype() {
    const char order = sizeof(T) == 1 ? '|' : std::endian::native == std::endian::little ? '<' : '>';
    return std::string(1, order) + numpy_kind<T>() + std::to_string(sizeof(T));
}
/// v3's data_type name of T.
template <class T>
std::string v3_dtype() {
    if constexpr (std::is_same_v<T, bool>) return "bool";
    return std::string(std::is_floating_point_v<T> ? "float"
                       : std::is_signed_v<T>       ? "int"
                                                   : "uint") +
           std::to_string(sizeof(T) * 8);
}

/// How a write encodes each chunk: the codec floor's pipeline (shuffle, then the compressor), and
/// the compressor with its request as the metadata states them.
struct encoding {
    codecs::pipeline pipe;
    const codecs::codec* main = nullptr;  // null: no compressor
    codecs::encode_request request;       // main's, its level resolved
    bool shuffle_filter = false;          // a shuffle codec runs before main (v2 filter "shuffle")
    std::size_t item = 1;                 // bytes per value
};

/// The encoding of `w` (resolved and checked) for values of `item` bytes, with shuffle asked or not.
CHUNKWISE_ZARR_DECL encoding make_encoding(const codecs::write_codec& w, bool shuffle, std::size_t item,
                                           std::size_t chunk_bytes);

/// Removes files on threads of their own, so that a writer goes on encoding while the file system frees their
/// blocks: where it sends the disk a TRIM for each (ext4 mounted with `discard`), a removal waits for the disk.
/// finish() (and the destructor) wait until every file given is removed: a write that uses one returns with no
/// replaced file left behind.
class file_remover {
public:
    /// `threads` (at least 1) remove the files given, started at the first.
    explicit file_remover(unsigned threads) : wanted_(threads == 0 ? 1 : threads) {}
    file_remover(const file_remover&) = delete;
    file_remover& operator=(const file_remover&) = delete;
    ~file_remover() { finish(); }
    /// Removes `path` soon (the threads started at the first call); removed at once if no thread can be started.
    CHUNKWISE_ZARR_DECL void remove(std::string path);
    /// Waits until every file given is removed, and the threads have ended.
    CHUNKWISE_ZARR_DECL void finish() noexcept;

private:
    CHUNKWISE_ZARR_DECL void run() noexcept;
    unsigned wanted_;
    std::mutex m_;
    std::condition_variable cv_;
    std::deque<std::string> queue_;
    bool closing_ = false;
    std::vector<std::thread> threads_;
};

/// The threads that remove the files a Zarr update or append replaces, per writer: the environment variable
/// CHUNKWISE_ZARR_REMOVERS (read once; 0: each file removed by the writer, in turn), else 2.
struct removal_setting {
    unsigned threads = 2;
    std::string invalid;  ///< the variable's text where it is no count from 0 to 16 (open_existing refuses then)
};
CHUNKWISE_ZARR_DECL const removal_setting& removal_threads();

/// The calling thread's file_remover for the files that replace_file replaces (nullptr: removed at once). Set for
/// the length of a write by removals_deferred.
CHUNKWISE_ZARR_DECL file_remover*& deferred_removals() noexcept;

/// For its lifetime, the files that replace_file replaces in this thread are removed by a file_remover of its own
/// (removal_threads() of them; with 0, or a setting that is no count, removed at once); its end waits for them.
class removals_deferred {
public:
    removals_deferred() : remover_(removal_threads().threads), before_(deferred_removals()) {
        if (removal_threads().threads > 0 && removal_threads().invalid.empty()) deferred_removals() = &remover_;
    }
    removals_deferred(const removals_deferred&) = delete;
    removals_deferred& operator=(const removals_deferred&) = delete;
    ~removals_deferred() {
        deferred_removals() = before_;
        remover_.finish();
    }

private:
    file_remover remover_;
    file_remover* before_;
};

/// Moves the file `tmp` to `target`, replacing a regular file there atomically (the names swapped,
/// then the old file removed, where the kernel offers it, by the thread's deferred_removals() where it has one;
/// else rename). False with errno on failure.
CHUNKWISE_ZARR_DECL bool replace_file(const std::string& tmp, const std::string& target);

/// Writes `bytes` as the file store/key: into a temporary name beside it (never a FIFO or device:
/// posix::open_regular), closed with every error checked, then renamed over the key. Nothing is
/// left under a temporary name on failure.
CHUNKWISE_ZARR_DECL void write_file(const std::string& store, const std::string& key, const unsigned char* data,
                                    std::size_t n);

/// The file a store holds while chunkwise writes it: from before its first chunk until its
/// metadata is in place. A store with this file and no metadata is an unfinished write: readers say
/// so, and the next write of that store clears it.
inline constexpr const char* unfinished_marker = ".chunkwise-unfinished";

/// What the directory `store` holds: nothing (or does not exist), a Zarr array or group, an
/// unfinished chunkwise write, or other files. \throws zarr::error if it is a file or cannot be listed
enum class store_content { empty, zarr, unfinished, foreign };
CHUNKWISE_ZARR_DECL store_content content_of(const std::string& store);

/// Removes everything inside `store` (and the directory itself where `remove_dir`).
CHUNKWISE_ZARR_DECL void clear_store(const std::string& store, bool remove_dir);

/// The file of a store whose byte ranges its writers lock.
inline constexpr const char* lock_file = ".chunkwise-lock";

/// Locks on byte ranges of the store's lock file (Linux open file description locks, `fcntl F_OFD_SETLKW`): slot 0
/// guards the array's metadata and extent (exclusive to a write that makes the array, from its first check of the
/// store to its metadata, and to an append; shared by updates), slot 1 + g the grid row g of chunks (or shards)
/// while an append or update reads, merges and rewrites it. The kernel releases them when the holder ends, however it
/// ends: no lock outlives its process, and `lslocks` names the holder. Each object holds its own locks (threads and
/// processes alike).
class store_lock {
public:
    /// Holds nothing until open().
    store_lock() = default;
    /// Opens (creates) the lock file of `store`. \throws zarr::error where it cannot
    explicit store_lock(const std::string& store) { open(store); }
    /// Opens (creates) the lock file of the existing directory `store`. \throws zarr::error where it cannot
    void open(const std::string& store);
    ~store_lock();
    store_lock(const store_lock&) = delete;
    store_lock& operator=(const store_lock&) = delete;

    /// Waits for `slot`, exclusive or shared. \throws zarr::error where locking fails
    void lock(std::uint64_t slot, bool exclusive);
    /// Gives `slot` back.
    void unlock(std::uint64_t slot) noexcept;
    /// Gives every slot back (the lock file closed); open() may follow.
    void release() noexcept;

private:
    std::string store_;
    int fd_ = -1;
};

/// Makes `store` ready for a new array and marks it unfinished; returns true where it created the
/// directory. First it takes slot 0 of the store's lock in `hold`, exclusive, which the caller keeps
/// until the metadata is written: a second writer of the same store waits, then finds the array
/// made. An unfinished write there is cleared. Where it holds a Zarr array or group already,
/// `create` refuses and `replace` empties it first (zarr-python's mode "w"); anything else in it
/// is refused, whatever the mode.
CHUNKWISE_ZARR_DECL bool prepare_store(const std::string& store, write_mode mode, store_lock& hold);

/// Ends a write: the metadata file (`name`, `text`) put in place, then the unfinished mark removed.
CHUNKWISE_ZARR_DECL void finish_store(const std::string& store, const std::string& name, const std::string& text);

/// A codec's Zarr entry: {"id": NAME, ...config} (v2) or {"name": NAME, "configuration": {...}} (v3).
CHUNKWISE_ZARR_DECL json codec_entry(const codecs::codec& c, const codecs::encode_request& r, int format);

/// The metadata file's name and text for an array of T of `shape` written with `grid` chunks (the
/// shard where `sharded`; `inner` its chunks) and encoding `e`; format 3 carries `attributes` and,
/// where not null, `dimension_names`.
template <class T>
std::pair<std::string, std::string> metadata_text(const std::vector<std::size_t>& shape,
                                                  const std::vector<std::size_t>& grid,
                                                  const std::vector<std::size_t>& inner, const encoding& e, int format,
                                                  bool sharded, const json& attributes = json::object(),
                                                  const json& dimension_names = json(nullptr)) {
    if (format == 2) {
        json filters;
        codecs::encode_request shuffle_request;
        shuffle_request.elem_size = sizeof(T);
        if (e.shuffle_filter) filters = json::array({codec_entry(codecs::shuffle_codec, shuffle_request, 2)});
        const json compressor = e.main != nullptr ? codec_entry(*e.main, e.request, 2) : json();
        json z = {{"zarr_format", 2},          {"shape", shape},        {"chunks", grid},     {"dtype", v2_dtype<T>()},
                  {"compressor", compressor},  {"fill_value", nullptr}, {"filters", filters}, {"order", "C"},
                  {"dimension_separator", "."}};
        return {".zarray", z.dump(4, ' ', true)};
    }
    json codecs_list =
        json::array({{{"name", "bytes"},
                      {"configuration", {{"endian", std::endian::native == std::endian::little ? "little" : "big"}}}}});
    if (sizeof(T) == 1) codecs_list[0].erase("configuration");
    if (e.main != nullptr) codecs_list.push_back(codec_entry(*e.main, e.request, 3));
    if (sharded) {
        json index =
            json::array({{{"name", "bytes"}, {"configuration", {{"endian", "little"}}}}, {{"name", "crc32c"}}});
        codecs_list = json::array({{{"name", "sharding_indexed"},
                                    {"configuration",
                                     {{"chunk_shape", inner},
                                      {"codecs", codecs_list},
                                      {"index_codecs", index},
                                      {"index_location", "end"}}}}});
    }
    json z = {{"zarr_format", 3},
              {"node_type", "array"},
              {"shape", shape},
              {"data_type", v3_dtype<T>()},
              {"chunk_grid", {{"name", "regular"}, {"configuration", {{"chunk_shape", grid}}}}},
              {"chunk_key_encoding", {{"name", "default"}, {"configuration", {{"separator", "/"}}}}},
              {"fill_value", std::is_same_v<T, bool> ? json(false) : json(0)},
              {"codecs", codecs_list},
              {"attributes", attributes},
              {"storage_transformers", json::array()}};
    if (!dimension_names.is_null()) z["dimension_names"] = dimension_names;
    return {"zarr.json", z.dump(4, ' ', true)};
}

/// Rows [row0, row0 + rows) of the array, every other axis whole, row-major at `data`.
template <class T>
struct slab {
    std::size_t row0 = 0, rows = 0;
    const T* data = nullptr;
};

/// Copies into the chunk (or inner chunk) of `extent` at `origin` (zero-padded beyond the array) the
/// values the slabs hold; `inner` is the array's shape beyond axis 0.
template <class T>
void assemble(const std::vector<slab<T>>& slabs, const std::vector<std::size_t>& shape,
              const std::vector<std::size_t>& origin, const std::vector<std::size_t>& extent, std::vector<T>& out) {
    const std::size_t rank = shape.size();
    std::size_t elems = 1;
    for (std::size_t e : extent) elems *= e;
    out.assign(elems, T{});
    std::vector<std::size_t> astride(rank, 1), cstride(rank, 1);
    for (std::size_t d = rank; d-- > 1;) {
        astride[d - 1] = astride[d] * shape[d];
        cstride[d - 1] = cstride[d] * extent[d];
    }
    std::vector<std::size_t> lo(rank), hi(rank);
    for (std::size_t d = 0; d < rank; ++d) {
        lo[d] = origin[d];
        hi[d] = std::min(origin[d] + extent[d], shape[d]);
        if (lo[d] >= hi[d]) return;
    }
    for (const slab<T>& s : slabs) {
        const std::size_t r0 = std::max(lo[0], s.row0), r1 = std::min(hi[0], s.row0 + s.rows);
        if (r0 >= r1) continue;
        std::vector<std::size_t> i(rank);  // position in the box, axes 1.. (axis 0 loops outside)
        for (std::size_t r = r0; r < r1; ++r) {
            for (std::size_t d = 1; d < rank; ++d) i[d] = lo[d];
            while (true) {
                std::size_t src = (r - s.row0) * astride[0], dst = (r - origin[0]) * cstride[0];
                for (std::size_t d = 1; d + 1 < rank; ++d) {
                    src += i[d] * astride[d];
                    dst += (i[d] - origin[d]) * cstride[d];
                }
                const std::size_t last = rank - 1;
                if (rank == 1) {
                    out[dst] = s.data[src];
                    break;
                }
                std::memcpy(out.data() + dst + (lo[last] - origin[last]), s.data + src + lo[last],
                            (hi[last] - lo[last]) * sizeof(T));
                std::size_t d = last;
                while (d-- > 1) {
                    if (++i[d] < hi[d]) break;
                    i[d] = lo[d];
                }
                if (d == 0 || rank == 2) break;
            }
        }
    }
}

}  // namespace chunkwise::zarr::detail

#if CHUNKWISE_ZARR_HEADER_ONLY
#include <chunkwise/detail/zarr/write.ipp>
#endif
