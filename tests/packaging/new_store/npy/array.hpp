#pragma once
/// \file
/// A toy store, as docs/architecture.md says to add one (one folder and one row of the components
/// table): an array kept as a folder of NumPy `.npy` files `0.npy`, `1.npy`, ..., each one chunk
/// row (every axis but the first whole, the last file possibly shorter), C order, little-endian
/// numbers. It models chunkwise::chunked_array and says its mistakes in store.hpp's words; the test
/// packaging.new_store reads one through the store-neutral face on 2 threads, against numpy.

#include <chunkwise/error.hpp>
#include <chunkwise/partition.hpp>
#include <chunkwise/store.hpp>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace chunkwise::npy {

/// A problem with an .npy folder: "[chunkwise.npy] FOLDER: what is wrong".
class error : public chunkwise::error {
public:
    error(const std::string& folder, const std::string& what) : chunkwise::error("[chunkwise.npy] " + folder + ": " + what) {}
};

/// A read-only view of an array kept as a folder of .npy files, one per chunk row.
class array {
public:
    /// Opens the folder `path`. \throws npy::error where it holds no 0.npy or a file is not an .npy
    /// file of numbers that agrees with the others
    explicit array(const std::filesystem::path& path) : folder_(path.string()) {
        for (std::size_t k = 0; std::filesystem::exists(file(k)); ++k) {
            const header h = read_header(file(k));
            if (k == 0) {
                descr_ = h.descr;
                shape_ = h.shape;
                chunks_ = h.shape;
                shape_[0] = 0;
            } else if (h.descr != descr_ || h.shape.size() != shape_.size() ||
                       !std::equal(h.shape.begin() + 1, h.shape.end(), shape_.begin() + 1)) {
                throw error(folder_, file(k).filename().string() + " disagrees with 0.npy in type or shape");
            }
            offsets_.push_back(h.data_offset);
            rows_.push_back(h.shape[0]);
            shape_[0] += h.shape[0];
        }
        if (rows_.empty()) throw error(folder_, "holds no 0.npy");
        if (descr_.size() != 3 || descr_[0] != '<' || std::string("iuf").find(descr_[1]) == std::string::npos)
            throw error(folder_, "holds '" + descr_ + "' values; the toy store reads little-endian numbers");
    }

    [[nodiscard]] std::vector<std::size_t> shape() const { return shape_; }
    [[nodiscard]] std::vector<std::size_t> chunks() const { return chunks_; }
    [[nodiscard]] std::size_t element_size() const { return static_cast<std::size_t>(descr_[2] - '0'); }
    [[nodiscard]] std::string dtype() const {
        const std::string bits = std::to_string(element_size() * 8);
        return descr_[1] == 'f' ? "float" + bits : descr_[1] == 'i' ? "int" + bits : "uint" + bits;
    }

    /// Rows [rows.begin, rows.end), every other axis whole, into `out` (exactly that many values).
    template <class T>
    void read_into(const block& rows, std::span<T> out) const {
        read_rows(rows, nullptr, out);
    }
    /// Rows [rows.begin, rows.end) with only the indices `sel` on its axis, into `out`.
    template <class T>
    void read_into(const block& rows, const indices& sel, std::span<T> out) const {
        read_rows(rows, &sel, out);
    }

private:
    struct header {
        std::string descr;
        std::vector<std::size_t> shape;
        std::size_t data_offset = 0;
    };

    [[nodiscard]] std::filesystem::path file(std::size_t k) const {
        return std::filesystem::path(folder_) / (std::to_string(k) + ".npy");
    }

    header read_header(const std::filesystem::path& p) const {
        std::ifstream in(p, std::ios::binary);
        char magic[10] = {};
        in.read(magic, 10);
        if (!in || std::memcmp(magic, "\x93NUMPY", 6) != 0 || magic[6] != 1)
            throw error(folder_, p.filename().string() + " is not an .npy file (version 1)");
        const std::size_t len = static_cast<unsigned char>(magic[8]) | static_cast<std::size_t>(static_cast<unsigned char>(magic[9])) << 8;
        std::string text(len, ' ');
        in.read(text.data(), static_cast<std::streamsize>(len));
        header h;
        h.data_offset = 10 + len;
        const auto field = [&](const std::string& key) {
            const auto at = text.find("'" + key + "':");
            if (at == std::string::npos) throw error(folder_, p.filename().string() + " has no '" + key + "'");
            return text.substr(at + key.size() + 3);
        };
        const std::string d = field("descr");
        h.descr = d.substr(d.find('\'') + 1, d.find('\'', d.find('\'') + 1) - d.find('\'') - 1);
        if (field("fortran_order").find("True") < field("fortran_order").find(','))
            throw error(folder_, p.filename().string() + " is in Fortran order");
        std::string s = field("shape");
        s = s.substr(s.find('(') + 1, s.find(')') - s.find('(') - 1);
        for (std::size_t at = 0; at < s.size();) {
            const std::size_t end = std::min(s.find(',', at), s.size());
            const std::string n = s.substr(at, end - at);
            if (n.find_first_of("0123456789") != std::string::npos) h.shape.push_back(std::stoull(n));
            at = end + 1;
        }
        if (h.shape.empty()) throw error(folder_, p.filename().string() + " holds a 0-d array");
        return h;
    }

    template <class T>
    void read_rows(const block& rows, const indices* sel, std::span<T> out) const {
        namespace cd = chunkwise::detail;
        std::string why = cd::rows_problem(rows, shape_);
        if (why.empty() && sel != nullptr) why = cd::selection_problem(*sel, shape_);
        std::size_t row_out = 1, row_in = cd::row_values(shape_);
        for (std::size_t d = 1; d < shape_.size(); ++d) row_out *= sel != nullptr && d == sel->axis ? sel->idx.size() : shape_[d];
        if (why.empty()) why = cd::buffer_problem(out.size(), rows.size() * row_out, rows);
        if (!why.empty()) throw error(folder_, why);
        std::vector<unsigned char> bytes;
        std::size_t first = 0, at_out = 0;
        for (std::size_t k = 0; k < rows_.size(); first += rows_[k], ++k) {
            const std::size_t lo = std::max(rows.begin, first), hi = std::min(rows.end, first + rows_[k]);
            if (lo >= hi) continue;
            bytes.resize((hi - lo) * row_in * element_size());
            std::ifstream in(file(k), std::ios::binary);
            in.seekg(static_cast<std::streamoff>(offsets_[k] + (lo - first) * row_in * element_size()));
            in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
            if (!in) throw error(folder_, file(k).filename().string() + " ends early (truncated?)");
            for (std::size_t r = 0; r < hi - lo; ++r) place(bytes.data() + r * row_in * element_size(), sel, out.data() + at_out + r * row_out);
            at_out += (hi - lo) * row_out;
        }
    }

    // One row's values into `out` (the selected ones of `sel`'s axis, in their order).
    template <class T>
    void place(const unsigned char* row, const indices* sel, T* out) const {
        std::size_t outer = 1, inner = 1;
        const std::size_t axis = sel != nullptr ? sel->axis : 1;
        for (std::size_t d = 1; d < shape_.size(); ++d) (d < axis ? outer : d > axis ? inner : outer) *= d == axis ? 1 : shape_[d];
        const std::size_t along = shape_.size() > 1 ? shape_[axis] : 1;
        const std::size_t picks = sel != nullptr ? sel->idx.size() : along;
        for (std::size_t o = 0; o < outer; ++o)
            for (std::size_t j = 0; j < picks; ++j)
                for (std::size_t i = 0; i < inner; ++i) {
                    const std::size_t src = (o * along + (sel != nullptr ? sel->idx[j] : j)) * inner + i;
                    out[(o * picks + j) * inner + i] = value<T>(row + src * element_size());
                }
    }

    template <class T>
    T value(const unsigned char* p) const {
        const auto as = [&](auto v) {
            std::memcpy(&v, p, sizeof v);
            return static_cast<T>(v);
        };
        switch (descr_[1]) {
            case 'f': return element_size() == 4 ? as(float{}) : as(double{});
            case 'i': return element_size() == 1 ? as(std::int8_t{}) : element_size() == 2 ? as(std::int16_t{}) : element_size() == 4 ? as(std::int32_t{}) : as(std::int64_t{});
            default: return element_size() == 1 ? as(std::uint8_t{}) : element_size() == 2 ? as(std::uint16_t{}) : element_size() == 4 ? as(std::uint32_t{}) : as(std::uint64_t{});
        }
    }

    std::string folder_, descr_;
    std::vector<std::size_t> shape_, chunks_, rows_, offsets_;
};

}  // namespace chunkwise::npy
