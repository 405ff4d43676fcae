// The definitions of chunkwise/detail/zarr/open.hpp's functions that are not templates: included at the end
// of that header (header-only, the default), or compiled once into the zarr library
// (CHUNKWISE_ZARR_SEPARATE_COMPILATION; docs/installing.md, "Header-only or compiled").
#pragma once

namespace chunkwise::zarr::detail {

CHUNKWISE_ZARR_DECL std::string nesting_problem(const std::string& text, std::size_t most) {
    std::size_t depth = 0;
    bool in_string = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (in_string) {
            if (c == '\\') {
                ++i;
            } else if (c == '"') {
                in_string = false;
            }
        } else if (c == '"') {
            in_string = true;
        } else if (c == '[' || c == '{') {
            if (++depth > most) return "nests JSON values deeper than " + std::to_string(most) + " levels";
        } else if ((c == ']' || c == '}') && depth > 0) {
            --depth;
        }
    }
    return {};
}

CHUNKWISE_ZARR_DECL json load_json(const std::string& store, const std::filesystem::path& file) {
    namespace posix = chunkwise::detail::posix;
    const std::string name = file.filename().string();
    posix::open_outcome how{};
    const int fd = posix::open_regular(file, O_RDONLY, 0, how);
    if (fd < 0) {
        if (how == posix::open_outcome::not_regular)
            throw error(store, "", name + " is " + posix::file_kind(file) + ", not a metadata file");
        throw error(store, "", name + " cannot be opened: " + std::strerror(errno));
    }
    fd_guard guard{fd};
    struct stat st {};
    if (::fstat(fd, &st) != 0) throw error(store, "", name + " cannot be read: " + std::strerror(errno));
    const auto size = static_cast<std::uint64_t>(st.st_size);
    if (size > metadata_most_bytes)
        throw error(store, "",
                    name + " holds " + std::to_string(size) + " bytes, more than a metadata file may (" +
                        std::to_string(metadata_most_bytes) + ")");
    std::string text(static_cast<std::size_t>(size), '\0');
    if (posix::pread_full(fd, text.data(), text.size(), 0) != static_cast<std::ptrdiff_t>(text.size()))
        throw error(store, "", name + " cannot be read whole: " + std::strerror(errno));
    if (const std::string why = nesting_problem(text, metadata_most_depth); !why.empty())
        throw error(store, "", name + " " + why);
    try {
        return json::parse(text);
    } catch (const std::exception& e) {
        throw error(store, "", name + " is not valid JSON: " + bounded_text(e.what()));
    }
}

CHUNKWISE_ZARR_DECL std::optional<json> consolidated(const std::string& store) {
    namespace fs = std::filesystem;
    std::error_code ec;
    const fs::path at = fs::absolute(fs::path(store), ec).lexically_normal();
    const fs::path parent = at.parent_path();
    if (!path_exists(parent / ".zmetadata")) return std::nullopt;
    const json z = load_json(store, parent / ".zmetadata");
    if (!z.is_object() || !z.contains("metadata") || !z["metadata"].is_object()) return std::nullopt;
    const std::string key = at.filename().string() + "/.zarray";
    if (!z["metadata"].contains(key)) return std::nullopt;
    json entry = z["metadata"][key];
    const std::string attrs = at.filename().string() + "/.zattrs";
    if (z["metadata"].contains(attrs)) entry["chunkwise:attributes"] = z["metadata"][attrs];
    return std::optional<json>(std::in_place, std::move(entry));
}

CHUNKWISE_ZARR_DECL void open_metadata(state& s) {
    namespace fs = std::filesystem;
    const fs::path path(s.store);
    std::error_code ec;
    const auto st = fs::status(path, ec);
    if (!fs::exists(st)) throw error(s.store, "", "no such store (directory)");
    if (!fs::is_directory(st)) throw error(s.store, "", "is a file, not a directory store");
    if (path_exists(path / "zarr.json")) {
        s.m = parsed_from(s.store, "zarr.json",
                          [&] { return parse_v3(s.store, load_json(s.store, path / "zarr.json")); });
    } else if (path_exists(path / ".zarray")) {
        s.m = parsed_from(s.store, ".zarray", [&] { return parse_v2(s.store, load_json(s.store, path / ".zarray")); });
        if (path_exists(path / ".zattrs")) s.m.attributes = load_json(s.store, path / ".zattrs");
    } else if (std::optional<json> c = consolidated(s.store)) {
        json attrs = c->contains("chunkwise:attributes") ? (*c)["chunkwise:attributes"] : json::object();
        c->erase("chunkwise:attributes");
        s.m = parsed_from(s.store, "its group's .zmetadata", [&] { return parse_v2(s.store, *c); });
        s.m.attributes = std::move(attrs);
    } else if (path_exists(path / ".chunkwise-unfinished")) {
        throw error(s.store, "",
                    "an unfinished write: chunkwise began writing this store and did not finish "
                    "(killed, or failed): it holds no array; write it again");
    } else {
        throw error(s.store, "", "holds neither .zarray nor zarr.json (not a Zarr array)");
    }
    check_grid(s.store, s.m);
    if (s.m.shape.empty()) throw error(s.store, "", "a 0-d array: chunkwise reads arrays of 1 or more axes");
}

}  // namespace chunkwise::zarr::detail
