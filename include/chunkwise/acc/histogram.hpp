#pragma once
/// \file
/// `acc::histogram`: counts in fixed bins, mergeable across blocks that use the same bins
/// (standard library only). Include <chunkwise/accumulate.hpp>.

#include <chunkwise/detail/core/acc_shape.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <iterator>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace chunkwise::acc {

/// Counts (or weights) of values in `bins` equal bins over [lo, hi), values below lo in
/// underflow(), at or above hi in overflow(), NaN in nans(). Bin i holds exactly the values in
/// [edges()[i], edges()[i + 1]); the edges are numpy's (`np.linspace(lo, hi, bins + 1)`), so a
/// value counts where `np.histogram` counts it (except hi itself, which numpy puts in the last
/// bin). Any finite lo < hi works, -DBL_MAX to DBL_MAX included. Two histograms merge only with
/// the same lo, hi and bins (else std::invalid_argument naming both); a default-constructed
/// histogram has no bins yet and is the identity of merge (it takes the other's bins).
class histogram : public chunkwise::detail::acc::adds_each<histogram> {
public:
    histogram() = default;
    /// \throws std::invalid_argument unless lo < hi, both finite, and bins >= 1
    histogram(double lo, double hi, std::size_t bins) : lo_(lo), hi_(hi), counts_(bins, 0.0) {
        if (!(lo < hi) || !std::isfinite(lo) || !std::isfinite(hi) || bins == 0) {
            throw std::invalid_argument("[chunkwise.acc] acc::histogram(" + number(lo) + ", " + number(hi) + ", " +
                                        std::to_string(bins) + "): needs lo < hi, both finite, and at least one bin");
        }
    }

    /// Counts x once. \throws std::logic_error on a histogram without bins
    void add(double x) { add(x, 1.0); }
    /// Counts x with weight w. \throws std::logic_error on a histogram without bins
    void add(double x, double w) {
        if (counts_.empty()) {
            throw std::logic_error(
                "[chunkwise.acc] acc::histogram::add: this histogram has no bins; make it with histogram(lo, hi, "
                "bins)");
        }
        if (std::isnan(x)) {
            nans_ += w;
        } else if (x < lo_) {
            under_ += w;
        } else if (x >= hi_) {
            over_ += w;
        } else {
            counts_[bin_of(x)] += w;
        }
    }
    /// Adds another histogram's counts. \throws std::invalid_argument if the bins differ
    void merge(const histogram& o) {
        if (o.counts_.empty()) return;
        if (counts_.empty()) {
            *this = o;
            return;
        }
        if (o.lo_ != lo_ || o.hi_ != hi_ || o.counts_.size() != counts_.size()) {
            throw std::invalid_argument("[chunkwise.acc] acc::histogram: cannot merge histograms of different bins: " +
                                        bins_text() + " and " + o.bins_text());
        }
        for (std::size_t i = 0; i < counts_.size(); ++i) counts_[i] += o.counts_[i];
        under_ += o.under_;
        over_ += o.over_;
        nans_ += o.nans_;
    }
    /// The count (sum of weights) in each bin.
    [[nodiscard]] const std::vector<double>& counts() const noexcept { return counts_; }
    /// The bins' edges: bins + 1 values from lo to hi, as `np.linspace(lo, hi, bins + 1)` gives
    /// them (lo + i * ((hi - lo) / bins), the last one hi).
    [[nodiscard]] std::vector<double> edges() const {
        std::vector<double> e(counts_.size() + 1);
        for (std::size_t i = 0; i <= counts_.size(); ++i) e[i] = edge(i);
        return e;
    }
    /// Below lo.
    [[nodiscard]] double underflow() const noexcept { return under_; }
    /// At or above hi.
    [[nodiscard]] double overflow() const noexcept { return over_; }
    /// NaN values.
    [[nodiscard]] double nans() const noexcept { return nans_; }

    /// The state's name in checkpoints and transfers.
    static std::string type_name() { return "acc::histogram/1"; }
    /// Appends the state's bytes.
    void save_bytes(std::string& out) const {
        out += "cwacc:histogram";
        chunkwise::detail::acc::bytes_writer w(out);
        w.put(lo_);
        w.put(hi_);
        w.put_all(counts_);
        w.put(under_);
        w.put(over_);
        w.put(nans_);
    }
    /// The state saved in `in`. \throws chunkwise::detail::codec_error if it is not one
    static histogram load_bytes(std::string_view in) {
        chunkwise::detail::acc::bytes_reader r(in);
        r.expect("cwacc:histogram");
        histogram h;
        h.lo_ = r.get<double>();
        h.hi_ = r.get<double>();
        h.counts_ = r.get_all<double>();
        h.under_ = r.get<double>();
        h.over_ = r.get<double>();
        h.nans_ = r.get<double>();
        r.done();
        return h;
    }

private:
    // Edge i: numpy's linspace (i * step + lo); where hi - lo overflows, the same in halves.
    [[nodiscard]] double edge(std::size_t i) const noexcept {
        const std::size_t bins = counts_.size();
        if (i == 0) return lo_;
        if (i >= bins) return hi_;
        const double span = hi_ - lo_, k = static_cast<double>(i), b = static_cast<double>(bins);
        if (std::isfinite(span)) [[likely]]
            return k * (span / b) + lo_;
        return 2.0 * (k * ((hi_ * 0.5 - lo_ * 0.5) / b) + lo_ * 0.5);
    }
    // The bin of lo <= x < hi: numpy's estimate, then moved until edge(i) <= x < edge(i + 1).
    [[nodiscard]] std::size_t bin_of(double x) const noexcept {
        const std::size_t bins = counts_.size();
        const double span = hi_ - lo_, b = static_cast<double>(bins);
        const double f =
            std::isfinite(span) ? (x - lo_) / span * b : (x * 0.5 - lo_ * 0.5) / (hi_ * 0.5 - lo_ * 0.5) * b;
        std::size_t i = f >= b ? bins - 1 : static_cast<std::size_t>(f > 0 ? f : 0.0);
        while (i > 0 && x < edge(i)) --i;
        while (i + 1 < bins && x >= edge(i + 1)) ++i;
        return i;
    }
    // Every digit: edges that differ past the sixth still read differently.
    static std::string number(double x) {
        char b[32];
        std::snprintf(b, sizeof b, "%.17g", x);
        return b;
    }
    std::string bins_text() const {
        return std::to_string(counts_.size()) + " bins over [" + number(lo_) + ", " + number(hi_) + ")";
    }

    double lo_ = 0, hi_ = 0;
    std::vector<double> counts_;
    double under_ = 0, over_ = 0, nans_ = 0;
};

}  // namespace chunkwise::acc
