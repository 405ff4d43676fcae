// The definitions of chunkwise/detail/hdf5/write/create.hpp's functions that are not templates: included at the end
// of that header (header-only, the default), or compiled once into the hdf5 library
// (CHUNKWISE_HDF5_SEPARATE_COMPILATION; docs/installing.md, "Header-only or compiled").
#pragma once

namespace chunkwise::h5 {
namespace detail {

CHUNKWISE_HDF5_DECL std::string options_text(const write_options& opt) {
    return "chunk " + (opt.chunk.empty() ? std::string("automatic") : shape_text(opt.chunk)) + ", deflate " +
           std::to_string(opt.deflate) + ", shuffle " + (opt.shuffle ? "on" : "off") +
           (opt.codec.empty() ? std::string() : ", codec " + opt.codec + " level " + std::to_string(opt.level)) +
           (opt.mode == write_mode::replace ? ", replace" : "") +
           (opt.dimensions.empty() ? std::string() : ", dimensions " + std::to_string(opt.dimensions.size())) + [&] {
               std::string names;
               for (const std::string& d : opt.dimensions) names += " '" + d + "'";
               return names;
           }();
}

CHUNKWISE_HDF5_DECL void complete_options(write_options& opt, const std::vector<std::size_t>& shape,
                                          std::size_t elem_size, const std::string& file, const std::string& path) {
    if (shape.empty()) throw error(file, path, "write: an array of rank 0 has no rows");
    if (opt.deflate < 0 || opt.deflate > 9) {
        throw error(file, path, "write: deflate level must be 0-9, got " + std::to_string(opt.deflate));
    }
    if (!opt.chunk.empty() && opt.chunk.size() != shape.size()) {
        throw error(file, path,
                    "write: the chunk shape has " + std::to_string(opt.chunk.size()) + " axes, the array " +
                        std::to_string(shape.size()));
    }
    if (const std::string problem = h5::codec_problem(opt); !problem.empty())
        throw error(file, path, "write: " + problem);
    if (const std::string problem = attributes_problem(opt.attributes); !problem.empty())
        throw error(file, path, "write: " + problem);
    if (const std::string problem = chunkwise::detail::dimensions_problem(opt.dimensions, shape.size());
        !problem.empty())
        throw error(file, path, "write: " + problem);
    if ((opt.deflate > 0 || opt.shuffle || !opt.codec.empty()) && opt.chunk.empty()) {
        std::size_t row_bytes = elem_size;
        for (std::size_t d = 1; d < shape.size(); ++d) row_bytes *= std::max<std::size_t>(shape[d], 1);
        opt.chunk = shape;
        opt.chunk[0] = std::clamp<std::size_t>((std::size_t{1} << 20) / std::max<std::size_t>(row_bytes, 1), 1,
                                               std::max<std::size_t>(shape[0], 1));
    }
    for (std::size_t d = 0; d < opt.chunk.size(); ++d) {
        opt.chunk[d] = std::max<std::size_t>(opt.chunk[d], 1);
        // HDF5 refuses chunks larger than a fixed-size dataset (with an unhelpful message).
        if (opt.chunk[d] > std::max<std::size_t>(shape[d], 1)) {
            throw error(file, path,
                        "write: the chunk shape " + shape_text(opt.chunk) + " is larger than the array " +
                            shape_text(shape) + " on axis " + std::to_string(d) +
                            "; use a chunk no larger than the array");
        }
    }
}

CHUNKWISE_HDF5_DECL std::string room_problem(const std::string& file, std::uintmax_t data_bytes) {
    namespace fs = std::filesystem;
    const std::uintmax_t need = data_bytes + data_bytes / 64 + (std::uintmax_t{256} << 10);  // + index, metadata
    std::error_code ec;
    const std::uintmax_t size = fs::file_size(file, ec);
    if (ec) return {};
    fs::path folder = fs::path(file).parent_path();
    if (folder.empty()) folder = ".";
    const fs::space_info room = fs::space(folder, ec);
    if (!ec && room.available < need) {
        return "about " + std::to_string(need) + " bytes are needed and " + std::to_string(room.available) +
               " are free on its file system; nothing was written";
    }
    struct rlimit limit {};
    if (::getrlimit(RLIMIT_FSIZE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY && size + need > limit.rlim_cur) {
        return "the file would grow past this process's file size limit (ulimit -f: " +
               std::to_string(static_cast<std::uintmax_t>(limit.rlim_cur)) + " bytes); nothing was written";
    }
    return {};
}

CHUNKWISE_HDF5_DECL codecs::pipeline write_pipeline(const write_options& opt, std::size_t elem_size) {
    std::size_t chunk_bytes = elem_size;
    for (std::size_t c : opt.chunk) chunk_bytes *= c;
    const codecs::write_codec w =
        codecs::resolve_write_codec(opt.deflate, opt.codec, opt.level, codecs::store_kind::hdf5);
    return codecs::make_pipeline(w.main, w.option, w.level, opt.shuffle, elem_size, chunk_bytes);
}

CHUNKWISE_HDF5_DECL bool set_creation_properties(hid_t dcpl, const write_options& opt, std::size_t elem_size) {
    if (opt.chunk.empty()) return true;
    std::vector<hsize_t> chunk(opt.chunk.begin(), opt.chunk.end());
    if (H5Pset_chunk(dcpl, static_cast<int>(chunk.size()), chunk.data()) < 0) return false;
    for (const auto& [c, r] : write_pipeline(opt, elem_size)) {
        // Shuffle's element size is HDF5's to set (it fills it in from the dataset's type).
        const std::vector<unsigned> cd = c->id == H5Z_FILTER_SHUFFLE ? std::vector<unsigned>{} : c->parameters(r);
        if (H5Pset_filter(dcpl, static_cast<H5Z_filter_t>(c->id), H5Z_FLAG_OPTIONAL, cd.size(), cd.data()) < 0) {
            return false;
        }
    }
    return true;
}

}  // namespace detail
}  // namespace chunkwise::h5

namespace chunkwise::h5 {
namespace detail {

CHUNKWISE_HDF5_DECL dataset_writer::dataset_writer(const std::string& file, const std::string& path, hid_t file_type,
                                                   const std::vector<std::size_t>& shape, const write_options& opt,
                                                   hid_t fapl, bool file_existed)
        : file_(file), path_(path) {
    file_h_ = file_existed ? handle(H5Fopen(file.c_str(), H5F_ACC_RDWR, fapl), H5Fclose)
                           : handle(H5Fcreate(file.c_str(), H5F_ACC_EXCL, H5P_DEFAULT, fapl), H5Fclose);
    if (!file_h_.valid()) fail("cannot open or create the file: " + last_error());
    created_file_ = !file_existed;
    if (const std::string why = dimensions_conflict(file_h_.get(), path, opt.dimensions, shape); !why.empty()) {
        committed_ = true;  // nothing changed
        throw error(file, path, "write: dimension names: " + why);
    }
    if (H5Lexists(file_h_.get(), path.c_str(), H5P_DEFAULT) > 0) replace_existing(opt.mode);
    H5Eclear2(H5E_DEFAULT);
    std::vector<hsize_t> dims(shape.begin(), shape.end());
    handle space(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr), H5Sclose);
    handle lcpl(H5Pcreate(H5P_LINK_CREATE), H5Pclose);
    handle dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
    if (!space.valid() || !lcpl.valid() || !dcpl.valid()) fail("cannot describe the dataset: " + last_error());
    H5Pset_create_intermediate_group(lcpl.get(), 1);
    if (!set_creation_properties(dcpl.get(), opt, H5Tget_size(file_type)))
        fail("cannot set the chunk shape or filters: " + last_error());
    dset_h_ = handle(
        H5Dcreate2(file_h_.get(), path.c_str(), file_type, space.get(), lcpl.get(), dcpl.get(), H5P_DEFAULT), H5Dclose);
    if (!dset_h_.valid()) fail("cannot create the dataset: " + last_error());
    created_dataset_ = true;
    try {
        write_attributes(dset_h_.get(), opt.attributes, file, path);
        attach_dimensions(file_h_.get(), dset_h_.get(), file, path, opt.dimensions, shape);
    } catch (...) {
        abandon();
        throw;
    }
    // The unfinished mark: in the dataset's header, so wherever the header reaches the disk, the mark does too.
    static constexpr char text[] = "chunkwise is writing this dataset; unfinished while this attribute exists";
    const handle type(H5Tcopy(H5T_C_S1), H5Tclose);
    const handle scalar(H5Screate(H5S_SCALAR), H5Sclose);
    bool marked = type.valid() && scalar.valid() && H5Tset_size(type.get(), sizeof text - 1) >= 0;
    if (marked) {
        const handle a(H5Acreate2(dset_h_.get(), unfinished_mark, type.get(), scalar.get(), H5P_DEFAULT, H5P_DEFAULT),
                       H5Aclose);
        marked = a.valid() && H5Awrite(a.get(), type.get(), text) >= 0;
    }
    if (!marked) fail("cannot mark the dataset unfinished: " + last_error());
}

CHUNKWISE_HDF5_DECL auto dataset_writer::commit() -> void {
    if (H5Adelete(dset_h_.get(), unfinished_mark) < 0) fail("cannot remove the unfinished mark: " + last_error());
    const bool dataset_closed = dset_h_.close();
    const std::string dataset_error = dataset_closed ? std::string() : last_error();
    const bool flushed = H5Fflush(file_h_.get(), H5F_SCOPE_LOCAL) >= 0;
    const std::string flush_error = flushed ? std::string() : last_error();
    const bool file_closed = file_h_.close();
    if (!dataset_closed || !flushed || !file_closed) {
        const std::string why = !dataset_closed ? dataset_error : !flushed ? flush_error : last_error();
        fail("closing the dataset and the file failed (disk full?): " + (why.empty() ? std::string("unknown") : why));
    }
    committed_ = true;
}

CHUNKWISE_HDF5_DECL auto dataset_writer::replace_existing(write_mode mode) -> void {
    bool dataset = false, unfinished = false;
    if (const hid_t o = H5Oopen(file_h_.get(), path_.c_str(), H5P_DEFAULT); o >= 0) {
        dataset = H5Iget_type(o) == H5I_DATASET;
        unfinished = dataset && H5Aexists(o, unfinished_mark) > 0;  // an unfinished write: replaced, whatever the mode
        H5Oclose(o);
    }
    H5Eclear2(H5E_DEFAULT);
    if ((mode != write_mode::replace && !unfinished) || !dataset) {
        committed_ = true;  // nothing of ours to undo
        throw error(file_, path_,
                    !dataset ? "write: a group (or another object that is not a dataset) exists there: not replaced"
                             : "write: the dataset already exists: not overwritten (write_mode::create; ask for "
                               "write_mode::replace to replace it)");
    }
    detach_dimensions(file_h_.get(), path_);
    if (H5Ldelete(file_h_.get(), path_.c_str(), H5P_DEFAULT) < 0)
        fail("cannot remove the old dataset: " + last_error());
}

CHUNKWISE_HDF5_DECL auto dataset_writer::abandon() noexcept -> std::string {
    if (committed_) return {};
    committed_ = true;
    dset_h_.reset();
    std::string note;
    if (created_file_) {
        file_h_.reset();
        std::error_code ec;
        std::filesystem::remove(file_, ec);
        if (ec) note = " (and the partly written file could not be removed: " + ec.message() + ")";
    } else if (created_dataset_ && file_h_.valid()) {
        detach_dimensions(file_h_.get(), path_);
        const bool unlinked = H5Ldelete(file_h_.get(), path_.c_str(), H5P_DEFAULT) >= 0;
        const bool closed = file_h_.close();
        H5Eclear2(H5E_DEFAULT);
        if (!unlinked || !closed)
            note = " (the partly written dataset may remain in the file: remove it before retrying)";
    }
    return note;
}

}  // namespace detail
}  // namespace chunkwise::h5
