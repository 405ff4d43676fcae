#pragma once
/// \file
/// `chunkwise::zarr::write` and `write_blocks`: arrays and block results into a new Zarr store
/// (v2 or v3, sharded or not), each chunk or shard file written by one worker with no lock, under
/// a temporary name renamed into place.

#include <chunkwise/detail/zarr/write.hpp>
#include <chunkwise/gather.hpp>
#include <chunkwise/map_blocks.hpp>
#include <chunkwise/partial_results.hpp>
#include <chunkwise/partition.hpp>
#include <chunkwise/policy.hpp>
#include <chunkwise/zarr/error.hpp>

#include <cstddef>
#include <exception>
#include <filesystem>
#include <mutex>
#include <string>
#include <type_traits>
#include <vector>

namespace chunkwise::zarr {

/// How `write` and `write_blocks` store an array.
struct write_options {
    /// Chunk shape (one extent per axis); empty: about 1 MiB of rows, every other axis whole.
    std::vector<std::size_t> chunk;
    /// "" (none), "gzip", "zstd", "blosc" (its lz4; "blosc:zstd", "blosc:lz4hc", "blosc:zlib",
    /// "blosc:blosclz" pick another), and in format 2 also "zlib", "lz4", "bz2" (numcodecs' ids).
    std::string codec{};
    int level = 0;         ///< the codec's level; 0: its default (gzip, zlib, zstd, bz2 1; Blosc 5)
    bool shuffle = false;  ///< byte shuffle: Blosc's own, else (format 2) numcodecs' shuffle filter
    int format = 2;        ///< Zarr format: 2 or 3
    /// Format 3 only: the shard shape (a multiple of `chunk` on every axis); empty: no sharding.
    std::vector<std::size_t> shard{};
};

/// Why these options cannot be written by this build ("" if they can): a format other than 2 or
/// 3, a codec the format has not, a level out of range, shuffle where the format has no filter
/// for it, a shard shape in format 2, or a codec built without its library (naming the package).
inline std::string options_problem(const write_options& o) {
    if (o.format != 2 && o.format != 3) return "format must be 2 or 3, got " + std::to_string(o.format);
    const std::string name = o.codec.substr(0, o.codec.find(':'));
    const std::string inner = o.codec.find(':') == std::string::npos ? "" : o.codec.substr(o.codec.find(':') + 1);
    const bool v2_only = name == "zlib" || name == "lz4" || name == "bz2";
    if (!name.empty() && name != "gzip" && name != "zstd" && name != "blosc" && !v2_only)
        return "codec '" + o.codec + "' is not one of gzip, zstd, blosc[:NAME], zlib, lz4, bz2";
    if (o.format == 3 && v2_only) return "codec '" + name + "' is not a Zarr v3 codec: use format 2, or gzip, zstd or blosc";
    if (!inner.empty() && name != "blosc") return "codec '" + o.codec + "': only blosc takes ':NAME'";
    if (name == "blosc" && h5::detail::blosc_code(inner) < 0) return "codec '" + o.codec + "' names a Blosc codec that is not one of lz4, lz4hc, zstd, zlib, blosclz";
    if (o.level < 0 || o.level > (name == "zstd" ? 22 : 9)) return "level " + std::to_string(o.level) + " is out of range for codec '" + o.codec + "'";
    if (o.shuffle && o.format == 3 && name != "blosc") return "shuffle in format 3 needs codec blosc (v3 has no shuffle filter)";
    if (!o.shard.empty() && o.format != 3) return "shards need format 3";
#if !defined(CHUNKWISE_USE_ZSTD)
    if (name == "zstd") return "codec 'zstd' needs chunkwise built with libzstd (Debian: libzstd-dev)";
#endif
#if !defined(CHUNKWISE_USE_BLOSC)
    if (name == "blosc") return "codec 'blosc' needs chunkwise built with libblosc (Debian: libblosc-dev)";
#endif
#if !defined(CHUNKWISE_USE_LZ4)
    if (name == "lz4") return "codec 'lz4' needs chunkwise built with liblz4 (Debian: liblz4-dev)";
#endif
#if !defined(CHUNKWISE_USE_BZIP2)
    if (name == "bz2") return "codec 'bz2' needs chunkwise built with libbz2 (Debian: libbz2-dev)";
#endif
    return {};
}

namespace detail {

/// The options checked against an array's shape: the chunk and shard shapes completed.
struct plan {
    std::vector<std::size_t> shape, chunk, grid;  // grid: the shard where sharded, else the chunk
    encoder enc;
    int format = 2;
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
        p.chunk[0] = std::clamp<std::size_t>((std::size_t{1} << 20) / std::max<std::size_t>(row, 1), 1, std::max<std::size_t>(shape[0], 1));
        for (std::size_t d = 1; d < shape.size(); ++d) p.chunk[d] = std::max<std::size_t>(shape[d], 1);
    }
    if (p.chunk.size() != shape.size())
        throw error(store, "", "chunk of rank " + std::to_string(p.chunk.size()) + " for an array of rank " + std::to_string(shape.size()));
    for (std::size_t c : p.chunk)
        if (c == 0) throw error(store, "", "a chunk extent of 0");
    p.grid = o.shard.empty() ? p.chunk : o.shard;
    if (p.grid.size() != shape.size()) throw error(store, "", "shard of another rank than the array");
    for (std::size_t d = 0; d < shape.size(); ++d)
        if (p.grid[d] == 0 || p.grid[d] % p.chunk[d] != 0) throw error(store, "", "the shard shape is not a multiple of the chunk shape");
    const std::string name = o.codec.substr(0, o.codec.find(':'));
    p.enc.name = name;
    p.enc.cname = h5::detail::blosc_codec_name(h5::detail::blosc_code(o.codec.find(':') == std::string::npos ? "" : o.codec.substr(o.codec.find(':') + 1)));
    p.enc.level = o.level != 0 ? o.level : name == "blosc" ? 5 : 1;
    p.enc.shuffle = o.shuffle;
    p.enc.item = sizeof(T);
    return p;
}

/// Writes the metadata file.
template <class T>
void write_metadata(const std::string& store, const plan& p) {
    prepare_store(store);
    const auto [name, text] = metadata_text<T>(p.shape, p.grid, p.chunk, p.enc, p.format);
    write_file(store, name, reinterpret_cast<const unsigned char*>(text.data()), text.size());
}

/// Encodes and writes every chunk (or shard) whose grid row is `g0`, from the slabs.
template <class T>
void write_grid_row(const std::string& store, const plan& p, const std::vector<slab<T>>& slabs, std::size_t g0) {
    const std::size_t rank = p.shape.size();
    std::vector<std::size_t> count(rank), at(rank, 0), origin(rank), inner_origin(rank), pos(rank);
    for (std::size_t d = 0; d < rank; ++d) count[d] = std::max<std::size_t>((p.shape[d] + p.grid[d] - 1) / p.grid[d], 1);
    meta m;
    m.format = p.format;
    m.separator = p.format == 3 ? '/' : '.';
    m.v3_default_keys = p.format == 3;
    std::vector<T> values;
    std::vector<unsigned char> encoded, file;
    at[0] = g0;
    while (true) {
        for (std::size_t d = 0; d < rank; ++d) origin[d] = at[d] * p.grid[d];
        const std::string key = chunk_key(m, at);
        try {
            if (p.grid == p.chunk) {
                assemble<T>(slabs, p.shape, origin, p.chunk, values);
                encode_bytes(p.enc, reinterpret_cast<const unsigned char*>(values.data()), values.size() * sizeof(T), file);
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
                        encode_bytes(p.enc, reinterpret_cast<const unsigned char*>(values.data()), values.size() * sizeof(T), encoded);
                        off = file.size();
                        n = encoded.size();
                        file.insert(file.end(), encoded.begin(), encoded.end());
                    }
                    for (int b = 0; b < 8; ++b) {
                        index[16 * k + static_cast<std::size_t>(b)] = static_cast<unsigned char>(off >> (8 * b));
                        index[16 * k + 8 + static_cast<std::size_t>(b)] = static_cast<unsigned char>(n >> (8 * b));
                    }
                }
                write_le32(index.data() + 16 * inner, crc32c(index.data(), 16 * inner));
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

/// Shape of one block's result: its array shape, or {size} for a vector.
template <class R>
std::vector<std::size_t> shape_of(const R& r) {
    if constexpr (requires { r.shape(); }) {
        const auto& s = r.shape();
        return std::vector<std::size_t>(s.begin(), s.end());
    } else {
        return {r.size()};
    }
}

}  // namespace detail

/// Writes `array` (an xtensor container, row-major; or a std::vector, 1-D) as a new Zarr array in
/// the directory `path`: created where missing; an existing Zarr array or group there is replaced,
/// anything else refused. Every chunk file goes under a temporary name, then is renamed into place.
/// \throws zarr::error naming the store (and the chunk where one failed) if the options do not fit
///         the array, the store is a file or not writable, or the disk is full
template <class Array>
void write(const std::filesystem::path& path, const Array& array, const write_options& opt = {}) {
    using T = std::remove_cv_t<typename Array::value_type>;
    static_assert(std::is_arithmetic_v<T> && !std::is_same_v<T, bool>, "chunkwise::zarr::write: arithmetic values (not bool)");
    const std::string store = path.string();
    const detail::plan p = detail::make_plan<T>(store, detail::shape_of(array), opt);
    detail::write_metadata<T>(store, p);
    const std::vector<detail::slab<T>> slabs{{0, p.shape[0], array.data()}};
    for (std::size_t g = 0; g * p.grid[0] < p.shape[0]; ++g) detail::write_grid_row<T>(store, p, slabs, g);
}

}  // namespace chunkwise::zarr
