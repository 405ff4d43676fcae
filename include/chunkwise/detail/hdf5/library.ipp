// The definitions of chunkwise/detail/hdf5/library.hpp's functions that are not templates: included at the end
// of that header (header-only, the default), or compiled once into the hdf5 library
// (CHUNKWISE_HDF5_SEPARATE_COMPILATION; docs/installing.md, "Header-only or compiled").
#pragma once

namespace chunkwise::h5::detail {

CHUNKWISE_HDF5_DECL std::string box_text(const std::size_t* v, std::size_t n) {
    std::string t = "(";
    for (std::size_t d = 0; d < n; ++d) {
        if (d > 0) t.append(", ");  // appended piecewise: g++ 12 -O3 warns (-Wrestrict) on "x" + string
        t.append(std::to_string(v[d]));
    }
    return t.append(")");
}

CHUNKWISE_HDF5_DECL std::string last_error() {
    std::vector<std::string> all;
    H5Ewalk2(
        H5E_DEFAULT, H5E_WALK_DOWNWARD,
        [](unsigned, const H5E_error2_t* e, void* data) -> herr_t {
            auto* out = static_cast<std::vector<std::string>*>(data);
            if (e->desc != nullptr && e->desc[0] != '\0' && (out->empty() || out->back() != e->desc)) {
                out->emplace_back(e->desc);
            }
            return 0;
        },
        &all);
    H5Eclear2(H5E_DEFAULT);
    std::string text;
    for (std::size_t i = all.size() > 3 ? all.size() - 3 : 0; i < all.size(); ++i) {
        if (!text.empty()) text += "; ";
        text += all[i];
    }
    return text;
}

CHUNKWISE_HDF5_DECL std::vector<std::string> path_parts(const std::string& path) {
    std::vector<std::string> parts;
    std::size_t pos = 0;
    while (pos <= path.size()) {
        std::size_t next = path.find('/', pos);
        if (next == std::string::npos) next = path.size();
        std::string part = path.substr(pos, next - pos);
        pos = next + 1;
        if (!part.empty() && part != ".") parts.push_back(std::move(part));
    }
    return parts;
}

CHUNKWISE_HDF5_DECL std::string normalize_path(const std::string& path) {
    std::string out;
    for (const std::string& part : path_parts(path)) out += "/" + part;
    return out.empty() ? "/" : out;
}

}  // namespace chunkwise::h5::detail
