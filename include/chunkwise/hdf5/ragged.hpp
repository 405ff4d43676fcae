#pragma once
/// \file
/// `chunkwise::h5::ragged<T>`: records of different lengths (images, spectra, variable-size
/// events) held as one flat array of values and the offsets where each record starts; what
/// `dataset::read_ragged` returns and `h5::write_ragged` writes. Needs only the standard library.

#include <cstddef>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace chunkwise::h5 {

/// Records of different lengths: record i is values()[offsets()[i], offsets()[i + 1]).
/// offsets() has size() + 1 entries, starts at 0, never decreases, and ends at values().size().
template <class T>
class ragged {
public:
    /// No records.
    ragged() = default;

    /// Takes a flat array and its offsets (size() + 1 of them, as described above).
    /// \throws std::invalid_argument naming the first offset that breaks the rule
    ragged(std::vector<T> values, std::vector<std::size_t> offsets)
            : values_(std::move(values)), offsets_(std::move(offsets)) {
        if (offsets_.empty() || offsets_.front() != 0) {
            throw std::invalid_argument("[chunkwise.h5] ragged: offsets must start with 0 (size() + 1 of them)");
        }
        for (std::size_t i = 1; i < offsets_.size(); ++i) {
            if (offsets_[i] < offsets_[i - 1]) {
                throw std::invalid_argument("[chunkwise.h5] ragged: offset " + std::to_string(i) + " (" +
                                            std::to_string(offsets_[i]) + ") is below offset " + std::to_string(i - 1) +
                                            " (" + std::to_string(offsets_[i - 1]) + ")");
            }
        }
        if (offsets_.back() != values_.size()) {
            throw std::invalid_argument("[chunkwise.h5] ragged: the last offset is " + std::to_string(offsets_.back()) +
                                        ", but there are " + std::to_string(values_.size()) + " values");
        }
    }

    /// Number of records.
    [[nodiscard]] std::size_t size() const noexcept { return offsets_.size() - 1; }
    /// True when there are no records.
    [[nodiscard]] bool empty() const noexcept { return size() == 0; }
    /// Record i (unchecked), valid until this object changes.
    [[nodiscard]] std::span<const T> operator[](std::size_t i) const noexcept {
        return std::span<const T>(values_.data() + offsets_[i], offsets_[i + 1] - offsets_[i]);
    }
    /// Record i. \throws std::out_of_range if i >= size()
    [[nodiscard]] std::span<const T> at(std::size_t i) const {
        if (i >= size()) {
            throw std::out_of_range("[chunkwise.h5] ragged: record " + std::to_string(i) + " of " +
                                    std::to_string(size()));
        }
        return (*this)[i];
    }
    /// Every record's values, one after the other.
    [[nodiscard]] const std::vector<T>& values() const noexcept { return values_; }
    /// Where each record starts in values(), and values().size() last.
    [[nodiscard]] const std::vector<std::size_t>& offsets() const noexcept { return offsets_; }

    /// Appends one record (a copy of `record`).
    void push_back(std::span<const T> record) {
        values_.insert(values_.end(), record.begin(), record.end());
        offsets_.push_back(values_.size());
    }
    /// Room for `records` records of `values` values in all.
    void reserve(std::size_t records, std::size_t values) {
        offsets_.reserve(records + 1);
        values_.reserve(values);
    }

    /// Equal when the records are (values and offsets).
    friend bool operator==(const ragged&, const ragged&) = default;

private:
    std::vector<T> values_;
    std::vector<std::size_t> offsets_{0};
};

}  // namespace chunkwise::h5
