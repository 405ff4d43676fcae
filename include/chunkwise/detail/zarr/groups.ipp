// The definitions of chunkwise/detail/zarr/groups.hpp's functions: included at the end of that header (header-only,
// the default), or compiled once into the zarr library (CHUNKWISE_ZARR_SEPARATE_COMPILATION; docs/installing.md,
// "Header-only or compiled").
#pragma once

namespace chunkwise::zarr::detail {

CHUNKWISE_ZARR_DECL void refuse_inside_array(const std::string& store) {
    namespace fs = std::filesystem;
    std::error_code ec;
    const fs::path at = fs::absolute(fs::path(store), ec).lexically_normal();
    fs::path up = (at.has_filename() ? at : at.parent_path()).parent_path();
    for (int depth = 0; depth < 256 && !up.empty(); ++depth, up = up.parent_path()) {
        bool array = fs::is_regular_file(up / ".zarray", ec);
        if (!array && fs::is_regular_file(up / "zarr.json", ec)) {
            const json z = load_json(up.string(), up / "zarr.json");
            array = z.is_object() && z.contains("node_type") && z["node_type"] == "array";
        }
        if (array)
            throw error(store, "", "lies inside the Zarr array " + up.string() + ": no array or group is made there");
        if (up == up.root_path()) break;
    }
}

CHUNKWISE_ZARR_DECL void consolidate(const std::string& store, const std::map<std::string, json>& files) {
    namespace fs = std::filesystem;
    std::error_code ec;
    const fs::path at = fs::absolute(fs::path(store), ec).lexically_normal();
    const fs::path node = at.has_filename() ? at : at.parent_path();
    std::string prefix;  // the node's key in the directory being looked at
    fs::path dir = node;
    for (int depth = 0; depth < 256; ++depth) {
        if (fs::is_regular_file(dir / ".zmetadata", ec)) {
            const dir_lock lock(dir);
            json z = load_json(dir.string(), dir / ".zmetadata");
            if (z.is_object() && z.contains("metadata") && z["metadata"].is_object()) {
                for (const auto& [name, content] : files) z["metadata"][prefix + name] = content;
                const std::string text = z.dump(4, ' ', true);
                write_file(dir.string(), ".zmetadata", reinterpret_cast<const unsigned char*>(text.data()),
                           text.size());
            }
        }
        if (dir == dir.root_path() || !dir.has_parent_path()) break;
        prefix = dir.filename().string() + "/" + prefix;
        dir = dir.parent_path();
        if (!fs::is_regular_file(dir / ".zgroup", ec)) break;  // consolidated metadata lists a group's members
    }
}

}  // namespace chunkwise::zarr::detail
