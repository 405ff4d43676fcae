// The definitions of chunkwise/detail/zarr/attributes.hpp's functions: included at the end of that header
// (header-only, the default), or compiled once into the zarr library (CHUNKWISE_ZARR_SEPARATE_COMPILATION;
// docs/installing.md, "Header-only or compiled").
#pragma once

namespace chunkwise::zarr::detail {

CHUNKWISE_ZARR_DECL json attributes_json(const std::string& store, const attributes& attrs) {
    json out = json::object();
    for (const auto& entry : attrs) {
        const std::string& name = entry.first;  // (not a structured binding: lambdas below capture it)
        if (name.empty()) throw error(store, "", "an attribute with an empty name");
        const auto finite = [&](double v) {
            if (!std::isfinite(v))
                throw error(store, "",
                            "attribute '" + bounded_text(name) + "' holds " + std::to_string(v) +
                                ", which JSON (Zarr's attributes) cannot hold");
            return v;
        };
        std::visit(
            [&](const auto& v) {
                using V = std::decay_t<decltype(v)>;
                if constexpr (std::is_same_v<V, double>) {
                    out[name] = finite(v);
                } else if constexpr (std::is_same_v<V, std::vector<double>>) {
                    json list = json::array();
                    for (double x : v) list.push_back(finite(x));
                    out[name] = std::move(list);
                } else {
                    out[name] = v;
                }
            },
            entry.second);
    }
    return out;
}

namespace attribute_json {

// A JSON value as an attribute; "" in `why` where it is none.
inline attribute from(const json& v, std::string& why) {
    if (v.is_number_unsigned() && v.get<std::uint64_t>() > std::uint64_t{std::numeric_limits<std::int64_t>::max()}) {
        why = "holds " + v.dump() + ", beyond a 64-bit signed integer";
        return {};
    }
    if (v.is_number_integer()) return v.get<std::int64_t>();
    if (v.is_number_float()) return v.get<double>();
    if (v.is_string()) return v.get<std::string>();
    if (v.is_array()) {
        bool ints = true, numbers = true, strings = true;
        for (const json& x : v) {
            ints = ints && x.is_number_integer() &&
                   !(x.is_number_unsigned() &&
                     x.get<std::uint64_t>() > std::uint64_t{std::numeric_limits<std::int64_t>::max()});
            numbers = numbers && x.is_number();
            strings = strings && x.is_string();
        }
        if (v.empty()) return std::vector<double>{};  // as numpy makes an empty list
        if (ints) return v.get<std::vector<std::int64_t>>();
        if (numbers) return v.get<std::vector<double>>();
        if (strings) return v.get<std::vector<std::string>>();
        why = "is a list of mixed or nested values";
        return {};
    }
    why = std::string("is ") + (v.is_boolean() ? "a boolean" : v.is_null() ? "null" : "an object");
    return {};
}

}  // namespace attribute_json

CHUNKWISE_ZARR_DECL attributes attributes_from_json(const std::string& store, const std::string& file, const json& j) {
    if (!j.is_object()) throw error(store, "", file + " holds " + shown(j) + ", not an object of attributes");
    attributes out;
    for (const auto& [name, v] : j.items()) {
        std::string why;
        attribute a = attribute_json::from(v, why);
        if (!why.empty())
            throw error(
                store, "",
                "attribute '" + bounded_text(name) + "' in " + file + " " + why +
                    ": chunkwise::attributes holds numbers, strings and lists of one of them (array::attributes() "
                    "gives the JSON text)");
        out.emplace(name, std::move(a));
    }
    return out;
}

CHUNKWISE_ZARR_DECL std::string node_file(const std::filesystem::path& path) {
    std::error_code ec;
    for (const char* f : {"zarr.json", ".zarray", ".zgroup"}) {
        if (std::filesystem::is_regular_file(path / f, ec)) return f;
    }
    const std::string why = std::filesystem::is_directory(path, ec) ? "is not a Zarr array or group"
                            : std::filesystem::exists(path, ec)     ? "is a file, not a Zarr array or group"
                                                                    : "does not exist";
    throw error(path.string(), "", why);
}

}  // namespace chunkwise::zarr::detail
