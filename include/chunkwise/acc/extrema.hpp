#pragma once
/// \file
/// `acc::extrema`: the smallest and largest values and where they are (standard library only).
/// Include <chunkwise/accumulate.hpp>.

#include <chunkwise/acc/moments.hpp>
#include <chunkwise/detail/core/acc_shape.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace chunkwise::acc {

/// Minimum and maximum, and the global index of each (the position of the value in the whole
/// data set, which the block function knows: b.begin + i). Ties go to the lowest index, so the
/// answer does not depend on how the data was split. NaN is skipped (and counted). T: a scalar or
/// a tensor (element-wise: per element, the index of the value holding its minimum).
template <class T = double>
requires chunkwise::detail::acc::accumulable<T>
class extrema {
public:
    /// Adds x, found at `global_index`. \throws std::invalid_argument on a shape that differs
    void add(const T& x, std::size_t global_index) {
        using V = detail::values_of<T>;
        if (shape_.accept(x, "acc::extrema")) size_state();
        const auto* p = V::data(x);
        const auto idx = static_cast<std::uint64_t>(global_index);
        for (std::size_t i = 0; i < shape_.size(); ++i) {
            const double v = static_cast<double>(p[i]);
            if (std::isnan(v)) {
                ++nans_;
                continue;
            }
            take(i, v, idx, v, idx, 1);
        }
    }
    /// Adds another state's values. \throws std::invalid_argument on shapes that differ
    void merge(const extrema& o) {
        if (shape_.merge(o.shape_, "acc::extrema")) size_state();
        if (!o.shape_.fixed()) return;
        for (std::size_t i = 0; i < shape_.size(); ++i) {
            if (o.seen_[i] > 0) take(i, o.min_[i], o.argmin_[i], o.max_[i], o.argmax_[i], o.seen_[i]);
        }
        nans_ += o.nans_;
    }
    /// The smallest value (NaN where none was added).
    [[nodiscard]] T min() const {
        return make([&](std::size_t i) { return seen_[i] ? min_[i] : std::nan(""); });
    }
    /// The largest value (NaN where none was added).
    [[nodiscard]] T max() const {
        return make([&](std::size_t i) { return seen_[i] ? max_[i] : std::nan(""); });
    }
    /// What argmin and argmax give: one index for a scalar statistic, one per element (row-major)
    /// for a tensor.
    using index_type = std::conditional_t<detail::values_of<T>::tensor, std::vector<std::uint64_t>, std::uint64_t>;
    /// The global index of the smallest value (the lowest of equal ones).
    /// \throws std::invalid_argument where no value (but NaN) was added
    [[nodiscard]] index_type argmin() const { return where(argmin_, "argmin"); }
    /// The global index of the largest value (the lowest of equal ones).
    /// \throws std::invalid_argument where no value (but NaN) was added
    [[nodiscard]] index_type argmax() const { return where(argmax_, "argmax"); }
    /// NaN values skipped.
    [[nodiscard]] std::uint64_t nans() const noexcept { return nans_; }

    /// The state's name in checkpoints and transfers.
    static std::string type_name() { return "acc::extrema<" + chunkwise::detail::value_codec<T>::type_name() + ">/1"; }
    /// Appends the state's bytes.
    void save_bytes(std::string& out) const {
        out += "cwacc:extrema";
        detail::bytes_writer w(out);
        w.put_shape(shape_);
        w.put_each(min_, max_, argmin_, argmax_, seen_);
        w.put(nans_);
    }
    /// The state saved in `in`. \throws chunkwise::detail::codec_error if it is not one
    static extrema load_bytes(std::string_view in) {
        detail::bytes_reader r(in);
        r.expect("cwacc:extrema");
        extrema x;
        x.shape_ = r.get_shape();
        r.get_each(x.shape_, "acc::extrema", x.min_, x.max_, x.argmin_, x.argmax_, x.seen_);
        x.nans_ = r.get<std::uint64_t>();
        r.done();
        return x;
    }

private:
    void size_state() {
        min_.assign(shape_.size(), 0.0);
        max_.assign(shape_.size(), 0.0);
        argmin_.assign(shape_.size(), 0);
        argmax_.assign(shape_.size(), 0);
        seen_.assign(shape_.size(), 0);
    }
    // Takes a candidate minimum (at index imin) and maximum (at imax) standing for `seen` values.
    void take(std::size_t i, double lo, std::uint64_t imin, double hi, std::uint64_t imax, std::uint64_t seen) {
        if (seen_[i] == 0) {
            min_[i] = lo;
            argmin_[i] = imin;
            max_[i] = hi;
            argmax_[i] = imax;
        } else {
            if (lo < min_[i] || (lo == min_[i] && imin < argmin_[i])) {
                min_[i] = lo;
                argmin_[i] = imin;
            }
            if (hi > max_[i] || (hi == max_[i] && imax < argmax_[i])) {
                max_[i] = hi;
                argmax_[i] = imax;
            }
        }
        seen_[i] += seen;
    }
    index_type where(const detail::elems_of<T, std::uint64_t>& at, const char* what) const {
        bool all = shape_.fixed();
        for (std::size_t i = 0; i < shape_.size() && all; ++i) all = seen_[i] > 0;
        if (!all) {
            throw std::invalid_argument(std::string("[chunkwise.acc] acc::extrema::") + what +
                                        ": no value was added (NaN is skipped)");
        }
        if constexpr (detail::values_of<T>::tensor) {
            return std::vector<std::uint64_t>(at.data(), at.data() + at.size());
        } else {
            return at[0];
        }
    }
    template <class F>
    T make(F&& at) const {
        return detail::values_of<T>::make(shape_.shape(), [&](std::size_t i) {
            return shape_.fixed() ? at(i) : std::numeric_limits<double>::quiet_NaN();
        });
    }

    detail::shape_of<T> shape_;
    detail::elems_of<T, double> min_, max_;
    detail::elems_of<T, std::uint64_t> argmin_, argmax_, seen_;
    std::uint64_t nans_ = 0;
};

}  // namespace chunkwise::acc
