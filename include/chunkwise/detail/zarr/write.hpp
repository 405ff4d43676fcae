#pragma once
// Internal: writing Zarr stores. The metadata each format wants for write_options (v2 .zarray
// with numcodecs' compressor and filters; v3 zarr.json with bytes, a compressor and optionally
// sharding_indexed with a crc32c-checked index at the end), the encoding of one chunk, and the
// write of one file under a temporary name renamed into place, so a reader (or a rerun) never
// sees half a chunk.
#include <chunkwise/detail/zarr/codecs.hpp>
#include <chunkwise/zarr/error.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <bit>
#include <cerrno>
#include <cstddef>
#include <cstring>
#include <filesystem>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

namespace chunkwise::zarr::detail {

/// numpy's v2 dtype string of T in this machine's byte order ("<f8").
template <class T>
std::string v2_dtype() {
    const char order = sizeof(T) == 1 ? '|' : std::endian::native == std::endian::little ? '<' : '>';
    const char kind = std::is_same_v<T, bool> ? 'b' : std::is_floating_point_v<T> ? 'f' : std::is_signed_v<T> ? 'i' : 'u';
    return std::string(1, order) + kind + std::to_string(sizeof(T));
}
/// v3's data_type name of T.
template <class T>
std::string v3_dtype() {
    if constexpr (std::is_same_v<T, bool>) return "bool";
    return std::string(std::is_floating_point_v<T> ? "float" : std::is_signed_v<T> ? "int" : "uint") + std::to_string(sizeof(T) * 8);
}

/// What a write encodes: the compressor's name (v2 numcodecs id / v3 name), its inner codec
/// (Blosc), level, and whether bytes are shuffled (by Blosc, or a shuffle filter before).
struct encoder {
    std::string name;  // "" for none
    std::string cname;
    int level = 0;
    bool shuffle = false;
    std::size_t item = 1;
};

/// Encodes [in, in + n) with `e` into out (which may be `in`'s copy where nothing is done).
inline void encode_bytes(const encoder& e, const unsigned char* in, std::size_t n, std::vector<unsigned char>& out) {
    std::vector<unsigned char> shuffled;
    if (e.shuffle && e.name != "blosc" && e.item > 1) {
        shuffled.resize(n);
        hd::shuffle_bytes(in, shuffled.data(), n, e.item);
        in = shuffled.data();
    }
    if (e.name.empty()) {
        out.assign(in, in + n);
    } else if (e.name == "gzip") {
        gzip_bytes(in, n, out, e.level);
    } else if (e.name == "zlib") {
        out.resize(hd::deflate_bytes(in, n, out, e.level));
    } else if (e.name == "zstd") {
#if defined(CHUNKWISE_USE_ZSTD)
        hd::zstd_encode(in, n, out, e.level);
#endif
    } else if (e.name == "blosc") {
#if defined(CHUNKWISE_USE_BLOSC)
        hd::blosc_encode(in, n, out, e.item, e.level, e.shuffle ? hd::blosc_shuffle::byte : hd::blosc_shuffle::none,
                         e.cname.c_str());
#endif
    } else if (e.name == "bz2") {
#if defined(CHUNKWISE_USE_BZIP2)
        hd::bzip2_encode(in, n, out, e.level);
#endif
    } else if (e.name == "lz4") {
#if defined(CHUNKWISE_USE_LZ4)
        if (n > static_cast<std::size_t>(LZ4_MAX_INPUT_SIZE)) throw std::runtime_error("a chunk too large for LZ4");
        out.resize(4 + static_cast<std::size_t>(LZ4_compressBound(static_cast<int>(n))));
        write_le32(out.data(), static_cast<std::uint32_t>(n));
        const int got = LZ4_compress_default(reinterpret_cast<const char*>(in), reinterpret_cast<char*>(out.data() + 4),
                                             static_cast<int>(n), static_cast<int>(out.size() - 4));
        if (got <= 0) throw std::runtime_error("LZ4 encoding failed");
        out.resize(4 + static_cast<std::size_t>(got));
#endif
    }
}

/// Writes `bytes` as the file store/key: into a temporary name beside it, closed with every
/// error checked, then renamed over the key. Nothing is left under a temporary name on failure.
inline void write_file(const std::string& store, const std::string& key, const unsigned char* data, std::size_t n) {
    namespace fs = std::filesystem;
    const fs::path target = fs::path(store) / key;
    std::error_code ec;
    fs::create_directories(target.parent_path(), ec);
    static std::atomic<unsigned long> serial{0};
    const std::string tmp = target.string() + ".partial." + std::to_string(::getpid()) + "." + std::to_string(serial++);
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) throw error(store, key, std::string("cannot be written: ") + std::strerror(errno));
    std::string problem;
    std::size_t done = 0;
    while (done < n) {
        const ssize_t put = ::write(fd, data + done, n - done);
        if (put < 0 && errno == EINTR) continue;
        if (put <= 0) {
            problem = std::string("cannot be written: ") + (put < 0 ? std::strerror(errno) : "no progress");
            break;
        }
        done += static_cast<std::size_t>(put);
    }
    if (::close(fd) != 0 && problem.empty()) problem = std::string("cannot be written: ") + std::strerror(errno);
    if (problem.empty() && std::rename(tmp.c_str(), target.c_str()) != 0)
        problem = std::string("cannot be renamed into place: ") + std::strerror(errno);
    if (!problem.empty()) {
        ::unlink(tmp.c_str());
        throw error(store, key, problem);
    }
}

/// Makes `store` ready for a new array: created where missing, emptied where it holds a Zarr
/// array or group already (as zarr-python's mode "w"); refused where it is a file or a directory
/// holding anything else.
inline void prepare_store(const std::string& store) {
    namespace fs = std::filesystem;
    std::error_code ec;
    const auto st = fs::status(store, ec);
    if (fs::exists(st)) {
        if (!fs::is_directory(st)) throw error(store, "", "is a file, not a directory store");
        bool empty = true, zarr = false;
        for (const auto& e : fs::directory_iterator(store, ec)) {
            empty = false;
            const std::string n = e.path().filename().string();
            if (n == ".zarray" || n == "zarr.json" || n == ".zgroup") zarr = true;
        }
        if (ec) throw error(store, "", "cannot be listed: " + ec.message());
        if (!empty && !zarr) throw error(store, "", "exists and holds files that are not a Zarr array: not overwritten");
        for (const auto& e : fs::directory_iterator(store, ec)) {
            fs::remove_all(e.path(), ec);
            if (ec) throw error(store, "", "cannot remove the old array's " + e.path().filename().string() + ": " + ec.message());
        }
    } else {
        fs::create_directories(store, ec);
        if (ec) throw error(store, "", "cannot be created: " + ec.message());
    }
}

/// The metadata file's name and text for an array of T of `shape` written with `chunk` (the
/// grid's: the shard where sharded) and `e`.
template <class T>
std::pair<std::string, std::string> metadata_text(const std::vector<std::size_t>& shape, const std::vector<std::size_t>& grid,
                                                  const std::vector<std::size_t>& inner, const encoder& e, int format) {
    json compressor;
    if (format == 2) {
        if (e.name == "blosc") compressor = {{"id", "blosc"}, {"cname", e.cname}, {"clevel", e.level}, {"shuffle", e.shuffle ? 1 : 0}, {"blocksize", 0}};
        else if (e.name == "lz4") compressor = {{"id", "lz4"}, {"acceleration", 1}};
        else if (!e.name.empty()) compressor = {{"id", e.name}, {"level", e.level}};
        json filters;
        if (e.shuffle && e.name != "blosc") filters = json::array({{{"id", "shuffle"}, {"elementsize", sizeof(T)}}});
        json z = {{"zarr_format", 2}, {"shape", shape}, {"chunks", grid}, {"dtype", v2_dtype<T>()},
                  {"compressor", compressor}, {"fill_value", 0}, {"filters", filters}, {"order", "C"},
                  {"dimension_separator", "."}};
        return {".zarray", z.dump(4)};
    }
    json codecs = json::array({{{"name", "bytes"}, {"configuration", {{"endian", std::endian::native == std::endian::little ? "little" : "big"}}}}});
    if (sizeof(T) == 1) codecs[0].erase("configuration");
    if (e.name == "blosc")
        codecs.push_back({{"name", "blosc"}, {"configuration", {{"cname", e.cname}, {"clevel", e.level}, {"shuffle", e.shuffle ? "shuffle" : "noshuffle"}, {"typesize", sizeof(T)}, {"blocksize", 0}}}});
    else if (e.name == "zstd")
        codecs.push_back({{"name", "zstd"}, {"configuration", {{"level", e.level}, {"checksum", false}}}});
    else if (e.name == "gzip")
        codecs.push_back({{"name", "gzip"}, {"configuration", {{"level", e.level}}}});
    if (inner != grid) {
        json index = json::array({{{"name", "bytes"}, {"configuration", {{"endian", "little"}}}}, {{"name", "crc32c"}}});
        codecs = json::array({{{"name", "sharding_indexed"},
                               {"configuration", {{"chunk_shape", inner}, {"codecs", codecs}, {"index_codecs", index}, {"index_location", "end"}}}}});
    }
    json z = {{"zarr_format", 3}, {"node_type", "array"}, {"shape", shape}, {"data_type", v3_dtype<T>()},
              {"chunk_grid", {{"name", "regular"}, {"configuration", {{"chunk_shape", grid}}}}},
              {"chunk_key_encoding", {{"name", "default"}, {"configuration", {{"separator", "/"}}}}},
              {"fill_value", std::is_same_v<T, bool> ? json(false) : json(0)}, {"codecs", codecs}, {"attributes", json::object()},
              {"storage_transformers", json::array()}};
    return {"zarr.json", z.dump(4)};
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
void assemble(const std::vector<slab<T>>& slabs, const std::vector<std::size_t>& shape, const std::vector<std::size_t>& origin,
              const std::vector<std::size_t>& extent, std::vector<T>& out) {
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
                std::memcpy(out.data() + dst + (lo[last] - origin[last]), s.data + src + lo[last], (hi[last] - lo[last]) * sizeof(T));
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
