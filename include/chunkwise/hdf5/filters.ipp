// The definitions of chunkwise/hdf5/filters.hpp's functions that are not templates: included at the end
// of that header (header-only, the default), or compiled once into the hdf5 library
// (CHUNKWISE_HDF5_SEPARATE_COMPILATION; docs/installing.md, "Header-only or compiled").
#pragma once

namespace chunkwise::h5 {

CHUNKWISE_HDF5_DECL std::vector<filter_info> known_filters() {
    std::vector<filter_info> out;
    for (const detail::codec* c : detail::all_codecs()) {
        filter_info f;
        f.id = c->id;
        f.name = c->name;
        f.provider = c->provider;
        f.decoded_here = c->library != nullptr;
        if (f.decoded_here) f.library = c->library();
        f.needs_library = !f.decoded_here && c->needs != nullptr;
        if (f.needs_library) f.missing_library = c->needs;
        if (c->option != nullptr) f.option = c->option;
        f.writable = c->encode != nullptr;
        out.push_back(std::move(f));
    }
    return out;
}

}  // namespace chunkwise::h5
