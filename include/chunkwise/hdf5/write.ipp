// The definitions of chunkwise/hdf5/write.hpp's functions that are not templates: included at the end
// of that header (header-only, the default), or compiled once into the hdf5 library
// (CHUNKWISE_HDF5_SEPARATE_COMPILATION; docs/installing.md, "Header-only or compiled").
#pragma once

namespace chunkwise::h5 {
namespace detail {

CHUNKWISE_HDF5_DECL void write_raw(const std::filesystem::path& file, const std::string& path, hid_t mem_type,
                                   std::size_t elem_size, const std::vector<std::size_t>& shape, const void* data,
                                   write_options opt, std::size_t heap_bytes) {
    const std::string f = file.string();
    const std::string p = normalize_path(path);
    complete_options(opt, shape, elem_size, f, p);
    std::error_code ec;
    const bool existed = std::filesystem::exists(file, ec);
    if (existed) {
        if (const std::string problem = room_problem(f, elem_size, shape, heap_bytes); !problem.empty())
            throw error(f, p, "write: " + problem);
    }
    library_lock lock;
    dataset_writer w(f, p, mem_type, shape, opt, H5P_DEFAULT, existed);
    std::size_t count = 1;
    for (std::size_t s : shape) count *= s;
    if (count > 0 && H5Dwrite(w.dataset(), mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0) {
        w.fail("writing failed: " + last_error());
    }
    w.commit();
}

CHUNKWISE_HDF5_DECL void write_existing(const std::filesystem::path& file, const std::string& path, hid_t mem_type,
                                        std::size_t elem_size, const std::vector<std::size_t>& shape,
                                        const std::vector<rows_piece>& pieces, const write_options& opt,
                                        std::size_t heap_bytes) {
    existing_rows_writer w(file.string(), normalize_path(path), mem_type, elem_size, shape, opt, heap_bytes);
    for (const rows_piece& piece : pieces) w.write_rows(piece.row0, piece.data, piece.rows);
    w.close();
}

}  // namespace detail
}  // namespace chunkwise::h5
