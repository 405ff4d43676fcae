// The definitions of chunkwise/hdf5/chunk_writer.hpp's functions that are not templates: included at the end
// of that header (header-only, the default), or compiled once into the hdf5 library
// (CHUNKWISE_HDF5_SEPARATE_COMPILATION; docs/installing.md, "Header-only or compiled").
#pragma once

namespace chunkwise::h5 {
namespace detail {

CHUNKWISE_HDF5_DECL chunk_rows_writer::chunk_rows_writer(const std::filesystem::path& file, const std::string& path,
                                                         std::vector<std::size_t> shape, write_options opt,
                                                         std::size_t element, hid_t (*type)(), bool contiguous,
                                                         spill_file* spill)
        : file_(file.string()),
          path_(normalize_path(path)),
          shape_(std::move(shape)),
          opt_(std::move(opt)),
          element_(element),
          type_(type),
          spill_(spill) {
    if (opt_.chunk.empty() && !contiguous)
        throw error(file_, path_, "chunk_writer: write_options::chunk must give the chunk shape");
    complete_options(opt_, shape_, element_, file_, path_);  // (chunks of about 1 MiB of rows where compressing)
    pipeline_ = write_pipeline(opt_, element_);
    chunk_elements_ = 1;
    for (std::size_t c : opt_.chunk) chunk_elements_ *= c;
    row_elements_ = 1;
    for (std::size_t d = 1; d < shape_.size(); ++d) row_elements_ *= shape_[d];
    if (spill_ != nullptr) return;  // the root makes the dataset
    std::error_code ec;
    const bool existed = std::filesystem::exists(file, ec);
    if (existed && opt_.codec.empty()) {  // room for the values as they are (deflated: at most that)
        if (const std::string problem = room_problem(file_, element_, shape_); !problem.empty())
            throw error(file_, path_, "write: " + problem);
    }
    library_lock lock;
    writer_ = std::make_unique<dataset_writer>(file_, path_, type(), shape_, opt_, H5P_DEFAULT, existed);
}

CHUNKWISE_HDF5_DECL auto chunk_rows_writer::write_rows(std::size_t first_row, const unsigned char* values,
                                                       std::size_t count) -> void {
    const std::size_t n = shape_.size();
    const std::size_t rows = row_elements_ == 0 ? 0 : count / row_elements_;
    const std::size_t last = first_row + rows;
    const std::size_t cr = unit_rows();
    if (count != rows * row_elements_ || first_row % cr != 0 || last > shape_[0] ||
        (last % cr != 0 && last != shape_[0])) {
        throw error(file_, path_,
                    "chunk_writer: rows [" + std::to_string(first_row) + ", " + std::to_string(last) + ") of " +
                        std::to_string(count) + " values do not cover whole chunk rows of " + std::to_string(cr) +
                        " inside " + std::to_string(shape_[0]) + " rows");
    }
    if (rows == 0) return;
    if (opt_.chunk.empty()) {
        write_contiguous(first_row, values, rows);
        return;
    }
    std::vector<unsigned char> chunk(chunk_elements_ * element_), shuffled, packed;
    std::vector<std::size_t> grid(n), c(n, 0), lo(n), hi(n), src_shape = shape_, zero(n, 0);
    src_shape[0] = rows;
    for (std::size_t d = 0; d < n; ++d) grid[d] = (shape_[d] + opt_.chunk[d] - 1) / opt_.chunk[d];
    std::vector<hsize_t> offset(n);
    std::vector<std::uint64_t> at(n);
    for (c[0] = first_row / cr; c[0] * cr < last; ++c[0]) {
        std::fill(c.begin() + 1, c.end(), 0);
        for (;;) {
            // The chunk's part of these rows, zero padded past the dataset's edge.
            bool partial = false;
            for (std::size_t d = 0; d < n; ++d) {
                const std::size_t off = c[d] * opt_.chunk[d];
                lo[d] = d == 0 ? off - first_row : off;
                hi[d] = std::min(off + opt_.chunk[d], d == 0 ? last : shape_[d]) - (d == 0 ? first_row : 0);
                partial = partial || hi[d] - lo[d] < opt_.chunk[d];
                offset[d] = off;
            }
            if (partial) std::fill(chunk.begin(), chunk.end(), static_cast<unsigned char>(0));
            copy_box_bytes(values, element_, src_shape.data(), lo.data(), hi.data(), chunk.data(), opt_.chunk.data(),
                           zero.data(), n);
            const auto [bytes, size] = encode_chunk(pipeline_, chunk.data(), chunk.size(), shuffled, packed);
            if (spill_ != nullptr) {
                std::copy(offset.begin(), offset.end(), at.begin());
                spill_->put_chunk(at.data(), n, bytes, size);
            } else {
                library_lock lock;
                if (H5Dwrite_chunk(writer_->dataset(), H5P_DEFAULT, 0, offset.data(), size, bytes) < 0) {
                    throw error(file_, path_,
                                "chunk_writer: writing the chunk at row " + std::to_string(offset[0]) +
                                    " failed: " + last_error());
                }
            }
            std::size_t d = n;
            bool more = false;
            while (d > 1) {
                --d;
                if (++c[d] < grid[d]) {
                    more = true;
                    break;
                }
                c[d] = 0;
            }
            if (!more) break;
        }
    }
}

CHUNKWISE_HDF5_DECL auto chunk_rows_writer::write_contiguous(std::size_t first_row, const unsigned char* values,
                                                             std::size_t rows) -> void {
    const std::size_t n = shape_.size();
    if (spill_ != nullptr) {
        spill_->put_rows(first_row, rows, row_elements_ * element_, values);
        return;
    }
    std::vector<hsize_t> start(n, 0), count(shape_.begin(), shape_.end());
    start[0] = first_row;
    count[0] = rows;
    library_lock lock;
    const handle file_space(H5Dget_space(writer_->dataset()), H5Sclose);
    const handle memory(H5Screate_simple(static_cast<int>(n), count.data(), nullptr), H5Sclose);
    if (!file_space.valid() || !memory.valid() ||
        H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, start.data(), nullptr, count.data(), nullptr) < 0 ||
        H5Dwrite(writer_->dataset(), type_(), memory.get(), file_space.get(), H5P_DEFAULT, values) < 0) {
        throw error(file_, path_,
                    "writing rows [" + std::to_string(first_row) + ", " + std::to_string(first_row + rows) +
                        ") failed: " + last_error());
    }
}

CHUNKWISE_HDF5_DECL auto chunk_rows_writer::replay(const std::string& spill) -> void {
    std::vector<hsize_t> offset;
    replay_spill(spill, file_, path_, [&](const spill_record& r) {
        if (!r.chunk) {
            write_contiguous(r.offset[0], r.bytes, r.offset[1]);
            return;
        }
        offset.assign(r.offset.begin(), r.offset.end());
        library_lock lock;
        if (offset.size() != shape_.size() ||
            H5Dwrite_chunk(writer_->dataset(), H5P_DEFAULT, 0, offset.data(), r.size, r.bytes) < 0) {
            throw error(file_, path_,
                        "stream_writer: writing the chunk at row " + std::to_string(offset.empty() ? 0 : offset[0]) +
                            " from " + spill + " failed: " + last_error());
        }
    });
}

}  // namespace detail
CHUNKWISE_HDF5_DECL chunk_encoder::chunk_encoder(const write_options& opt, std::size_t element_size) {
    if (const std::string problem = codec_problem(opt); !problem.empty())
        throw std::invalid_argument("h5::chunk_encoder: " + problem);
    pipeline_ = detail::write_pipeline(opt, element_size);
}

CHUNKWISE_HDF5_DECL auto chunk_encoder::encode(std::span<const unsigned char> chunk) -> std::span<const unsigned char> {
    const auto [encoded, size] = detail::encode_chunk(pipeline_, chunk.data(), chunk.size(), scratch_, out_);
    return {encoded, size};
}

}  // namespace chunkwise::h5
