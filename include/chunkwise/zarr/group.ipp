// The definitions of chunkwise/zarr/group.hpp's functions: included at the end of that header (header-only, the
// default), or compiled once into the zarr library (CHUNKWISE_ZARR_SEPARATE_COMPILATION; docs/installing.md,
// "Header-only or compiled").
#pragma once

namespace chunkwise::zarr {

CHUNKWISE_ZARR_DECL void create_group(const std::filesystem::path& path, const attributes& attrs, int format) {
    using detail::json;
    const std::string store = path.string();
    if (format != 2 && format != 3)
        throw error(store, "", "Zarr format " + std::to_string(format) + ": groups are written in format 2 or 3");
    const json a = detail::attributes_json(store, attrs);
    detail::refuse_inside_array(store);
    switch (detail::content_of(store)) {
        case detail::store_content::foreign:
            throw error(store, "", "exists and holds files that are not a Zarr array or group: no group made there");
        case detail::store_content::unfinished:
            detail::clear_store(store, false);
            break;
        case detail::store_content::zarr: {
            const std::string node = detail::node_file(path);
            bool array = node == ".zarray";
            int found = node == "zarr.json" ? 3 : 2;
            if (node == "zarr.json") {
                const json z = detail::load_json(store, path / "zarr.json");
                array = z.is_object() && z.contains("node_type") && z["node_type"] == "array";
            }
            if (array)
                throw error(store, "",
                            "holds a Zarr array: not overwritten (write_mode::create; ask for write_mode::replace "
                            "to replace it)");
            if (found != format)
                throw error(
                    store, "",
                    "holds a Zarr format-" + std::to_string(found) + " group, not format " + std::to_string(format));
            if (!attrs.empty()) set_attributes(path, attrs);
            return;
        }
        case detail::store_content::empty:
            break;
    }
    std::error_code ec;
    std::filesystem::create_directories(path, ec);
    if (ec) throw error(store, "", "cannot be created: " + ec.message());
    const auto put = [&](const std::string& name, const json& j) {
        const std::string text = j.dump(4, ' ', true);
        detail::write_file(store, name, reinterpret_cast<const unsigned char*>(text.data()), text.size());
    };
    if (format == 3) {
        put("zarr.json", json{{"zarr_format", 3}, {"node_type", "group"}, {"attributes", a}});
        return;
    }
    const json zgroup = {{"zarr_format", 2}};
    if (!a.empty()) put(".zattrs", a);
    put(".zmetadata", json{{"zarr_consolidated_format", 1}, {"metadata", {{".zgroup", zgroup}, {".zattrs", a}}}});
    put(".zgroup", zgroup);
    detail::consolidate(store, {{".zgroup", zgroup}, {".zattrs", a}});
}

}  // namespace chunkwise::zarr
