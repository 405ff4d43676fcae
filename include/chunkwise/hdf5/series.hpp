#pragma once
/// \file
/// `chunkwise::h5::dataset_series`: one dataset stored across many files (a trajectory written
/// as 100 files of 1000 frames), read as one logical dataset concatenated along axis 0;
/// `h5::glob` lists files in natural order; `h5::partition(series, parts)` splits it without
/// splitting a chunk, preferring file boundaries.

#include <chunkwise/detail/core/compiled.hpp>
#include <chunkwise/hdf5/dataset.hpp>
#include <chunkwise/hdf5/error.hpp>
#include <chunkwise/partition.hpp>

#include <glob.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <filesystem>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace chunkwise::h5 {

/// The files matching a shell pattern (`*`, `?`, `[...]`), sorted in natural order: digits
/// compare as numbers, so "run-2.h5" comes before "run-10.h5".
/// \throws h5::error naming the pattern when nothing matches
[[nodiscard]] CHUNKWISE_HDF5_DECL std::vector<std::filesystem::path> glob(const std::string& pattern);

/// One logical dataset: the dataset `path` of each file, concatenated along axis 0 in the order
/// the files are given. Every file's dataset must have the same rank and the same extent on every
/// axis but the first, and hold numbers. Reads take any rows, across file boundaries, and give
/// the values `h5::dataset` gives for each file's part. Cheap to copy (copies share the open
/// files); safe to read from many threads.
///
/// Every file is opened once when the series is made (to learn and check its shape); at most
/// `max_open_files` stay open afterwards, the least recently read closed first and reopened when
/// read again (a read in progress keeps its file open until it returns).
class dataset_series {
public:
    /// How many files a series keeps open by default.
    static constexpr std::size_t default_max_open_files = 64;

    /// \throws h5::error naming the file that is missing, unreadable, or disagrees with the
    ///         first file (rank, extent beyond axis 0, not numbers); h5::error if `files` is empty
    /// \throws std::invalid_argument if max_open_files is 0
    dataset_series(std::vector<std::filesystem::path> files, const std::string& path,
                   std::size_t max_open_files = default_max_open_files)
            : dataset_series(std::move(files), path, read_options{}, max_open_files) {}

    /// As above, each file's part read with `opt` (read_options{.convert = true}: H5Dread's
    /// conversions into a type that does not hold every stored value).
    dataset_series(std::vector<std::filesystem::path> files, const std::string& path, read_options opt,
                   std::size_t max_open_files = default_max_open_files);

    /// Extent of every axis: the sum of the files' rows, then the common extents.
    [[nodiscard]] std::vector<std::size_t> shape() const { return s_->shape; }
    /// Number of axes.
    [[nodiscard]] std::size_t rank() const noexcept { return s_->shape.size(); }
    /// The same series read with other options (shares its files with this one).
    [[nodiscard]] dataset_series with(read_options opt) const;
    /// The files, in order.
    [[nodiscard]] const std::vector<std::filesystem::path>& files() const noexcept { return s_->files; }
    /// The dataset's absolute path in each file.
    [[nodiscard]] const std::string& path() const noexcept { return s_->path; }
    /// The first row of each file in the series, and the total rows last (files().size() + 1 values).
    [[nodiscard]] const std::vector<std::size_t>& file_offsets() const noexcept { return s_->offsets; }
    /// Each file's chunk extent along axis 0 (1 for contiguous datasets).
    [[nodiscard]] const std::vector<std::size_t>& chunk_rows() const noexcept { return s_->chunk_rows; }
    /// The largest stored element size of the files, in bytes.
    [[nodiscard]] std::size_t element_size() const noexcept { return s_->element_size; }
    /// The first file's stored element type, e.g. "32-bit float, little-endian".
    [[nodiscard]] const std::string& type_name() const noexcept { return s_->type_name; }
    /// Files open now (at most max_open_files once no read is in progress).
    [[nodiscard]] std::size_t open_files() const {
        std::lock_guard<std::mutex> lock(s_->mutex);
        return s_->open.size();
    }

    /// Rows [rows.begin, rows.end) of the series, every other axis whole, converted to T.
    /// \throws h5::error naming the file whose part fails, or the rows outside the series
    template <class T, std::size_t N>
    [[nodiscard]] xt::xtensor<T, N> read(const block& rows) const {
        return read_tensor<T, N>(rows, nullptr);
    }
    /// As above, as an xarray of the series' rank.
    template <class T>
    [[nodiscard]] xt::xarray<T> read(const block& rows) const {
        check_rows(rows);
        std::vector<std::size_t> shape = s_->shape;
        shape[0] = rows.size();
        xt::xarray<T> out = xt::xarray<T>::from_shape(shape);
        read_into(rows, std::span<T>(out.data(), out.size()));
        return out;
    }
    /// Rows [rows.begin, rows.end), on `sel.axis` only the indices `sel.idx` (as dataset's read).
    template <class T, std::size_t N>
    [[nodiscard]] xt::xtensor<T, N> read(const block& rows, const indices& sel) const {
        return read_tensor<T, N>(rows, &sel);
    }

    /// Rows [rows.begin, rows.end) into `out` (exactly that many values).
    template <class T>
    void read_into(const block& rows, std::span<T> out) const {
        read_parts(rows, out, nullptr);
    }
    /// Rows [rows.begin, rows.end) of the indices `sel` into `out` (exactly that many values).
    template <class T>
    void read_into(const block& rows, const indices& sel, std::span<T> out) const {
        read_parts(rows, out, &sel);
    }

    /// The file holding row `row` of the series (an index into files()).
    [[nodiscard]] std::size_t file_of(std::size_t row) const {
        const auto& o = s_->offsets;
        return static_cast<std::size_t>(std::upper_bound(o.begin(), o.end(), row) - o.begin()) - 1;
    }

private:
    struct shared {
        std::vector<std::filesystem::path> files;
        std::string path, type_name;
        std::vector<std::size_t> shape, rows, chunk_rows, offsets;
        std::size_t element_size = 0;
        std::size_t max_open = default_max_open_files;
        std::mutex mutex;
        std::list<std::pair<std::size_t, dataset>> open;  // most recently read first

        void remember(std::size_t i, dataset ds) {
            open.emplace_front(i, std::move(ds));
            while (open.size() > max_open) open.pop_back();
        }
        // The open dataset of file i (opened if needed); the copy keeps it open while in use.
        dataset get(std::size_t i) {
            {
                std::lock_guard<std::mutex> lock(mutex);
                for (auto it = open.begin(); it != open.end(); ++it) {
                    if (it->first == i) {
                        open.splice(open.begin(), open, it);
                        return it->second;
                    }
                }
            }
            dataset ds(files[i], path);  // opened outside the series' mutex
            std::vector<std::size_t> now = ds.shape();
            if (now.size() != shape.size() || now[0] != rows[i] ||
                !std::equal(now.begin() + 1, now.end(), shape.begin() + 1)) {
                throw error(ds.file(), ds.path(),
                            "dataset_series: the shape changed to " + detail::shape_text(now) +
                                " since the series was made (the file was rewritten?)");
            }
            std::lock_guard<std::mutex> lock(mutex);
            for (const auto& [j, open_ds] : open) {
                if (j == i) return open_ds;  // another thread opened it meanwhile: keep one
            }
            remember(i, ds);
            return ds;
        }
    };

    std::vector<std::size_t> first_shape(std::size_t i) const;

    // h5::error naming the series as its first file "(+ k files)".
    [[noreturn]] void fail(const std::string& message) const;

    void check_rows(const block& rows) const;

    template <class T, std::size_t N>
    xt::xtensor<T, N> read_tensor(const block& rows, const indices* sel) const {
        if (N != rank()) {
            fail("read<T, " + std::to_string(N) + ">: the series has rank " + std::to_string(rank()) + " (shape " +
                 detail::shape_text(s_->shape) + ")");
        }
        check_rows(rows);
        std::array<std::size_t, N> shape{};
        for (std::size_t d = 0; d < N; ++d) shape[d] = s_->shape[d];
        shape[0] = rows.size();
        if (sel != nullptr) {
            check_selection(*sel);
            shape[sel->axis] = sel->idx.size();
        }
        auto out = xt::xtensor<T, N>::from_shape(shape);
        read_parts(rows, std::span<T>(out.data(), out.size()), sel);
        return out;
    }

    void check_selection(const indices& sel) const {
        if (std::string problem = detail::selection_problem(s_->shape, sel.axis, sel.idx, "series"); !problem.empty())
            fail(problem);
    }

    template <class T>
    void read_parts(const block& rows, std::span<T> out, const indices* sel) const {
        check_rows(rows);
        if (sel != nullptr) check_selection(*sel);
        std::size_t per_row = 1;
        for (std::size_t d = 1; d < rank(); ++d) {
            per_row *= (sel != nullptr && d == sel->axis) ? sel->idx.size() : s_->shape[d];
        }
        if (out.size() != rows.size() * per_row) {
            fail("read_into: the buffer holds " + std::to_string(out.size()) + " values, rows [" +
                 std::to_string(rows.begin) + ", " + std::to_string(rows.end) + ") need " +
                 std::to_string(rows.size() * per_row));
        }
        std::size_t row = rows.begin;
        while (row < rows.end) {
            const std::size_t f = file_of(row);
            const std::size_t end = std::min(rows.end, s_->offsets[f + 1]);
            const block part{0, row - s_->offsets[f], end - s_->offsets[f]};
            const std::span<T> piece = out.subspan((row - rows.begin) * per_row, (end - row) * per_row);
            const dataset ds = s_->get(f).with(opt_);
            if (sel != nullptr) {
                ds.read_into(part, *sel, piece);
            } else {
                ds.read_into(part, piece);
            }
            row = end;
        }
    }

    std::shared_ptr<shared> s_;
    read_options opt_;
};

/// Splits the series' rows into min(p.count, pieces) blocks, where pieces are the files' chunk
/// rows (a chunk is never split between two blocks, and no block spans part of a chunk of two
/// files). Blocks are balanced in rows as far as those boundaries allow, and a boundary moves to a
/// file boundary when one lies within a quarter of a block of where it would fall (a block then
/// reads one file).
/// \throws std::invalid_argument if p.count is 0
[[nodiscard]] CHUNKWISE_HDF5_DECL std::vector<block> partition(const dataset_series& series, parts p);

}  // namespace chunkwise::h5

#if CHUNKWISE_HDF5_HEADER_ONLY
#include <chunkwise/hdf5/series.ipp>
#endif
