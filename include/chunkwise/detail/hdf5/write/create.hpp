#pragma once
// Internal: creating datasets for h5::write and h5::write_blocks: the creation properties
// (chunks; the filters a write applies, from the filter table; automatic chunks of whole rows), and a file + dataset
// being written that either completes — every close checked, since HDF5 writes cached data when closing — or leaves
// nothing behind that would make a retry fail with "already exists": a file it created is removed, a dataset it added
// to an existing file is unlinked.
#include <chunkwise/detail/hdf5/codecs.hpp>
#include <chunkwise/detail/hdf5/library.hpp>
#include <chunkwise/hdf5/error.hpp>
#include <chunkwise/hdf5/write_options.hpp>

#include <hdf5.h>

#include <sys/resource.h>

#include <algorithm>
#include <cstdint>
#include <cstddef>
#include <filesystem>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

namespace chunkwise::h5 {

namespace detail {

/// The shape of one block result (arrays: shape(); vectors: their length): the store-neutral one.
using chunkwise::detail::result_shape;

/// The options as text, to compare them across ranks and name them in messages.
inline std::string options_text(const write_options& opt) {
    return "chunk " + (opt.chunk.empty() ? std::string("automatic") : shape_text(opt.chunk)) + ", deflate " +
           std::to_string(opt.deflate) + ", shuffle " + (opt.shuffle ? "on" : "off") +
           (opt.codec.empty() ? std::string() : ", codec " + opt.codec + " level " + std::to_string(opt.level)) +
           (opt.mode == write_mode::replace ? ", replace" : "");
}

/// Checks the options against the array's shape; fills in automatic chunks (whole rows, about
/// 1 MiB) when compressing without a chunk shape. Throws h5::error.
inline void complete_options(write_options& opt, const std::vector<std::size_t>& shape, std::size_t elem_size,
                             const std::string& file, const std::string& path) {
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

/// Why `data_bytes` more cannot go into the existing `file` ("" if they can): too little free
/// space on its file system, or a file size limit (ulimit -f). Checked before an existing file is
/// touched, because HDF5 records the file's new end before the data is written: running out of
/// space half-way leaves the file unreadable ("truncated file"), not just without the dataset.
inline std::string room_problem(const std::string& file, std::uintmax_t data_bytes) {
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

/// The filters a write applies to each chunk, in HDF5's order (what each one encodes, with its
/// request): shuffle (unless the codec shuffles itself), then deflate or the codec, from the codec
/// floor (detail/codecs/). Call only after h5::codec_problem(opt) found nothing.
inline codecs::pipeline write_pipeline(const write_options& opt, std::size_t elem_size) {
    std::size_t chunk_bytes = elem_size;
    for (std::size_t c : opt.chunk) chunk_bytes *= c;
    const codecs::write_codec w =
        codecs::resolve_write_codec(opt.deflate, opt.codec, opt.level, codecs::store_kind::hdf5);
    return codecs::make_pipeline(w.main, w.option, w.level, opt.shuffle, elem_size, chunk_bytes);
}

/// Sets `opt`'s chunk shape and filters on a dataset creation property list (none when opt.chunk
/// is empty: contiguous), each with the parameters its plugin states; optional, since chunkwise
/// encodes the chunks itself. False when HDF5 refuses one.
inline bool set_creation_properties(hid_t dcpl, const write_options& opt, std::size_t elem_size = 0) {
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

/// A dataset being created and written. Call everything with the library lock held.
class dataset_writer {
public:
    /// Opens (or creates) `file` with `fapl` and creates the dataset; throws h5::error.
    dataset_writer(const std::string& file, const std::string& path, hid_t file_type,
                   const std::vector<std::size_t>& shape, const write_options& opt, hid_t fapl, bool file_existed)
            : file_(file), path_(path) {
        file_h_ = file_existed ? handle(H5Fopen(file.c_str(), H5F_ACC_RDWR, fapl), H5Fclose)
                               : handle(H5Fcreate(file.c_str(), H5F_ACC_EXCL, H5P_DEFAULT, fapl), H5Fclose);
        if (!file_h_.valid()) fail("cannot open or create the file: " + last_error());
        created_file_ = !file_existed;
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
        dset_h_ =
            handle(H5Dcreate2(file_h_.get(), path.c_str(), file_type, space.get(), lcpl.get(), dcpl.get(), H5P_DEFAULT),
                   H5Dclose);
        if (!dset_h_.valid()) fail("cannot create the dataset: " + last_error());
        created_dataset_ = true;
    }
    dataset_writer(const dataset_writer&) = delete;
    dataset_writer& operator=(const dataset_writer&) = delete;

    /// If not committed: removes what this writer made (see the file comment).
    ~dataset_writer() { abandon(); }

    [[nodiscard]] hid_t dataset() const noexcept { return dset_h_.get(); }

    /// Throws h5::error "write: WHAT" after removing what this writer made.
    [[noreturn]] void fail(const std::string& what) {
        const std::string hint = abandon();
        throw error(file_, path_, "write: " + what + hint);
    }

    /// Closes the dataset and the file, checking both: the data is in the file when it returns.
    void commit() {
        const bool dataset_closed = dset_h_.close();
        const std::string dataset_error = dataset_closed ? std::string() : last_error();
        const bool flushed = H5Fflush(file_h_.get(), H5F_SCOPE_LOCAL) >= 0;
        const std::string flush_error = flushed ? std::string() : last_error();
        const bool file_closed = file_h_.close();
        if (!dataset_closed || !flushed || !file_closed) {
            const std::string why = !dataset_closed ? dataset_error : !flushed ? flush_error : last_error();
            fail("closing the dataset and the file failed (disk full?): " +
                 (why.empty() ? std::string("unknown") : why));
        }
        committed_ = true;
    }

private:
    // What exists at the path: refused (create), or a dataset unlinked first (replace).
    void replace_existing(write_mode mode) {
        bool dataset = false;
        if (const hid_t o = H5Oopen(file_h_.get(), path_.c_str(), H5P_DEFAULT); o >= 0) {
            dataset = H5Iget_type(o) == H5I_DATASET;
            H5Oclose(o);
        }
        H5Eclear2(H5E_DEFAULT);
        if (mode != write_mode::replace || !dataset) {
            committed_ = true;  // nothing of ours to undo
            throw error(file_, path_,
                        !dataset ? "write: a group (or another object that is not a dataset) exists there: not replaced"
                                 : "write: the dataset already exists: not overwritten (write_mode::create; ask for "
                                   "write_mode::replace to replace it)");
        }
        if (H5Ldelete(file_h_.get(), path_.c_str(), H5P_DEFAULT) < 0)
            fail("cannot remove the old dataset: " + last_error());
    }

    // Undoes what was made; returns a note for the message when that did not fully work.
    std::string abandon() noexcept {
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
            const bool unlinked = H5Ldelete(file_h_.get(), path_.c_str(), H5P_DEFAULT) >= 0;
            const bool closed = file_h_.close();
            H5Eclear2(H5E_DEFAULT);
            if (!unlinked || !closed)
                note = " (the partly written dataset may remain in the file: remove it before retrying)";
        }
        return note;
    }

    std::string file_, path_;
    handle file_h_, dset_h_;
    bool created_file_ = false;
    bool created_dataset_ = false;
    bool committed_ = false;
};

}  // namespace detail
}  // namespace chunkwise::h5
