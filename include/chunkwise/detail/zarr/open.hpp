#pragma once
// Internal: opening a Zarr array: the store checked (a directory), its metadata found (zarr.json,
// .zarray with .zattrs, or the parent's consolidated .zmetadata) and read within bounds (a regular
// file of at most 256 MiB, JSON nested at most 64 deep: nothing recursive ever walks deeper), then
// parsed (detail/zarr/metadata.hpp) and its grid checked.
#include <chunkwise/detail/core/compiled.hpp>
#include <chunkwise/detail/core/posix_io.hpp>
#include <chunkwise/detail/zarr/metadata_v3.hpp>
#include <chunkwise/detail/zarr/read.hpp>
#include <chunkwise/zarr/error.hpp>

#include <cerrno>
#include <cstddef>
#include <cstring>
#include <filesystem>
#include <optional>
#include <string>

namespace chunkwise::zarr::detail {

/// The most bytes a metadata file may hold, and the deepest nesting of its JSON.
inline constexpr std::size_t metadata_most_bytes = std::size_t{256} << 20;
inline constexpr std::size_t metadata_most_depth = 64;

/// "" where `text` nests its arrays and objects at most `most` deep, else why not.
CHUNKWISE_ZARR_DECL std::string nesting_problem(const std::string& text, std::size_t most);

/// The JSON of the metadata file `file` of `store`, read within the bounds above.
/// \throws zarr::error naming the store and the file: not a regular file (a directory, a FIFO),
///         unreadable, too large, nested too deep, or not valid JSON
CHUNKWISE_ZARR_DECL json load_json(const std::string& store, const std::filesystem::path& file);

/// True where `p` exists (whatever it is).
inline bool path_exists(const std::filesystem::path& p) {
    std::error_code ec;
    return std::filesystem::exists(std::filesystem::symlink_status(p, ec));
}

/// The array's entry in the parent directory's consolidated metadata (.zmetadata), if any.
CHUNKWISE_ZARR_DECL std::optional<json> consolidated(const std::string& store);

/// parse(), its zarr::error naming `file` (zarr.json, .zarray, .zmetadata) where it does not.
template <class F>
meta parsed_from(const std::string& store, const std::string& file, F&& parse) {
    try {
        return parse();
    } catch (const error& e) {
        const std::string prefix = "[chunkwise.zarr] " + store + ": ", what = e.what();
        const std::string message = what.rfind(prefix, 0) == 0 ? what.substr(prefix.size()) : what;
        if (message.find(file) != std::string::npos) throw;
        throw error(store, "", file + ": " + message);
    }
}

/// Opens s.store's metadata into s.m. \throws zarr::error as zarr::array's constructor
CHUNKWISE_ZARR_DECL void open_metadata(state& s);

}  // namespace chunkwise::zarr::detail

#if CHUNKWISE_ZARR_HEADER_ONLY
#include <chunkwise/detail/zarr/open.ipp>
#endif
