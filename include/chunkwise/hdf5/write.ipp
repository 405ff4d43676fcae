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
        std::size_t bytes = elem_size;
        for (std::size_t d : shape) bytes *= d;
        if (const std::string problem = room_problem(f, bytes + heap_bytes); !problem.empty())
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
                                        const std::vector<rows_piece>& pieces, const write_options& opt) {
    const std::string f = file.string(), p = normalize_path(path), verb = mode_name(opt.mode);
    const auto fail = [&](const std::string& why) { throw error(f, p, verb + ": " + why); };
    if (shape.empty()) fail("an array of rank 0 has no rows");
    std::error_code ec;
    if (!std::filesystem::exists(file, ec))
        fail("no such file (write_mode::" + verb + " writes into an existing dataset: create it first)");
    {
        library_lock lock;
        handle fh(H5Fopen(f.c_str(), H5F_ACC_RDWR, H5P_DEFAULT), H5Fclose);
        if (!fh.valid()) fail("cannot open the file for writing: " + last_error());
        existing_dataset d = open_existing_dataset(fh.get(), f, p, mem_type, shape, opt);
        const std::size_t rows = shape[0];
        std::vector<hsize_t> dims = d.dims;
        if (opt.mode == write_mode::append) dims[0] += rows;
        if (rows > 0) {
            std::uintmax_t bytes = elem_size;
            for (std::size_t s : shape) bytes *= s;
            if (const std::string problem = room_problem(f, bytes); !problem.empty()) fail(problem);
            if (opt.mode == write_mode::append && H5Dset_extent(d.dataset.get(), dims.data()) < 0)
                fail("cannot extend axis 0 to " + std::to_string(dims[0]) + " rows: " + last_error());
            const handle fspace(H5Dget_space(d.dataset.get()), H5Sclose);
            for (const rows_piece& piece : pieces) {  // each at its rows, from first_row
                if (piece.rows == 0) continue;
                std::vector<hsize_t> start(dims.size(), 0), count(shape.begin(), shape.end());
                start[0] = d.first_row + piece.row0;
                count[0] = piece.rows;
                const handle mspace(H5Screate_simple(static_cast<int>(count.size()), count.data(), nullptr), H5Sclose);
                if (!fspace.valid() || !mspace.valid() ||
                    H5Sselect_hyperslab(fspace.get(), H5S_SELECT_SET, start.data(), nullptr, count.data(), nullptr) <
                        0 ||
                    H5Dwrite(d.dataset.get(), mem_type, mspace.get(), fspace.get(), H5P_DEFAULT, piece.data) < 0)
                    fail("writing rows [" + std::to_string(start[0]) + ", " + std::to_string(start[0] + piece.rows) +
                         ") failed: " + last_error());
            }
        }
        const bool closed = d.dataset.close(), flushed = H5Fflush(fh.get(), H5F_SCOPE_LOCAL) >= 0;
        if (!closed || !flushed || !fh.close())
            fail("closing the dataset and the file failed (disk full?): " + last_error());
    }
    if (!opt.attributes.empty()) set_attributes(file, p, opt.attributes);
}

}  // namespace detail
}  // namespace chunkwise::h5
