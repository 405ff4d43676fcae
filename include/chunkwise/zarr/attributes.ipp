// The definitions of chunkwise/zarr/attributes.hpp's functions: included at the end of that header (header-only, the
// default), or compiled once into the zarr library (CHUNKWISE_ZARR_SEPARATE_COMPILATION; docs/installing.md,
// "Header-only or compiled").
#pragma once

namespace chunkwise::zarr {
namespace detail {

/// The JSON object at `file` of `store`, read within bounds.
/// \throws zarr::error where it is not an object
inline json load_object(const std::string& store, const std::filesystem::path& file) {
    json j = load_json(store, file);
    if (!j.is_object()) throw error(store, "", file.filename().string() + " holds " + shown(j) + ", not a JSON object");
    return j;
}

/// Writes `j` as the file `name` of `store`, whole.
inline void put_json(const std::string& store, const std::string& name, const json& j) {
    const std::string text = j.dump(4, ' ', true);  // ASCII only, the rest escaped: zarr-python 2 reads nothing else
    write_file(store, name, reinterpret_cast<const unsigned char*>(text.data()), text.size());
}

}  // namespace detail

CHUNKWISE_ZARR_DECL void set_attributes(const std::filesystem::path& path, const attributes& attrs) {
    using detail::json;
    const std::string store = path.string();
    const json add = detail::attributes_json(store, attrs);
    const std::string node = detail::node_file(path);
    if (node == "zarr.json") {
        const detail::dir_lock lock(path);  // another writer of these attributes waits its turn
        json z = detail::load_object(store, path / "zarr.json");
        json& a = z["attributes"];
        if (a.is_null()) a = json::object();
        if (!a.is_object())
            throw error(store, "", "zarr.json's attributes are " + detail::shown(a) + ", not an object");
        for (const auto& [k, v] : add.items()) a[k] = v;
        detail::put_json(store, "zarr.json", z);
        return;
    }
    json a;
    {
        const detail::dir_lock lock(path);  // another writer of these attributes waits its turn
        std::error_code ec;
        a = std::filesystem::is_regular_file(path / ".zattrs", ec) ? detail::load_object(store, path / ".zattrs")
                                                                   : json::object();
        for (const auto& [k, v] : add.items()) a[k] = v;
        detail::put_json(store, ".zattrs", a);
    }  // (consolidate takes the locks of the directories it updates, this one's included)
    detail::consolidate(store, {{".zattrs", a}});
}

CHUNKWISE_ZARR_DECL attributes attributes_of(const std::filesystem::path& path) {
    using detail::json;
    const std::string store = path.string();
    std::string node;
    try {
        node = detail::node_file(path);
    } catch (const error&) {
        if (!detail::consolidated(store)) throw;
        return array(path).attrs();  // an array its group's .zmetadata describes
    }
    if (node == ".zarray") return array(path).attrs();
    if (node == ".zgroup") {
        std::error_code ec;
        if (!std::filesystem::is_regular_file(path / ".zattrs", ec)) return {};
        return detail::attributes_from_json(store, ".zattrs", detail::load_object(store, path / ".zattrs"));
    }
    const json z = detail::load_object(store, path / "zarr.json");
    if (z.value("node_type", "") == "array") return array(path).attrs();
    return z.contains("attributes") ? detail::attributes_from_json(store, "zarr.json", z["attributes"]) : attributes{};
}

}  // namespace chunkwise::zarr
