#pragma once
/// \file
/// `acc::quantiles`: a mergeable quantile sketch (KLL, Karnin, Lang and Liberty 2016), in bounded
/// memory, deterministic (standard library only). Include <chunkwise/accumulate.hpp>.

#include <chunkwise/detail/core/acc_shape.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <iterator>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace chunkwise::acc {

/// Quantiles of a stream of values in O(k log(n/k)) memory, within a rank error of rank_error()
/// (a fraction of the count; about 1.5% for the default k = 200) with 99% probability; exact while
/// at most a few k values were added. The sketch keeps compactors of sorted values; a full one
/// keeps every other value at twice the weight. Which half it keeps is decided by a generator
/// seeded from `seed` (give each block its index: `quantiles q(200, b.index)`) and from the sketch's
/// own history, never by a clock or a thread: the same values merged in the same order (reduce's
/// fixed tree) give the same bits on any policy. NaN is skipped (and counted).
class quantiles : public chunkwise::detail::acc::adds_each<quantiles> {
public:
    /// An empty sketch of k = 200, seed 0: the identity of merge (it takes the other's k).
    quantiles() : quantiles(200) {}
    /// \param k accuracy (memory grows with k; rank error 2.296 / k^0.9444: 1.5% at k = 200)
    /// \param seed the generator's seed: the block index
    /// \throws std::invalid_argument if k < 8
    explicit quantiles(std::size_t k, std::uint64_t seed = 0) : k_(k), seed_(mix(seed + 0x5eed)) {
        if (k < 8)
            throw std::invalid_argument("[chunkwise.acc] acc::quantiles: k must be at least 8, got " +
                                        std::to_string(k));
    }

    /// Adds x.
    void add(double x) {
        if (std::isnan(x)) {
            ++nans_;
            return;
        }
        if (levels_.empty()) grow(1);
        levels_[0].push_back(x);
        ++n_;
        if (++held_ > cap_total_) compress();
    }
    /// Adds another sketch's values. A sketch that holds nothing (no value, no NaN) is the identity
    /// whatever its k: merged into, it becomes a copy of the other. \throws std::invalid_argument
    /// if their k differ and both hold values
    void merge(const quantiles& o) {
        if (o.empty()) return;
        if (empty()) {
            *this = o;
            return;
        }
        if (o.k_ != k_) {
            throw std::invalid_argument("[chunkwise.acc] acc::quantiles: cannot merge sketches of k = " +
                                        std::to_string(k_) + " and k = " + std::to_string(o.k_));
        }
        seed_ = mix(seed_ ^ mix(o.seed_ + 1));
        if (levels_.size() < o.levels_.size()) grow(o.levels_.size());
        for (std::size_t h = 0; h < o.levels_.size(); ++h) {
            levels_[h].insert(levels_[h].end(), o.levels_[h].begin(), o.levels_[h].end());
            held_ += o.levels_[h].size();
        }
        n_ += o.n_;
        nans_ += o.nans_;
        exact_ = exact_ && o.exact_;
        while (held_ > cap_total_) compress();
    }

    /// The value at quantile q (0: the smallest, 0.5: the median, 1: the largest): the smallest
    /// kept value whose weighted rank reaches q times the count.
    /// \throws std::invalid_argument if q is outside [0, 1] or nothing (but NaN) was added
    [[nodiscard]] double quantile(double q) const {
        if (!(q >= 0 && q <= 1)) {
            char text[32];
            std::snprintf(text, sizeof text, "%.17g", q);
            throw std::invalid_argument("[chunkwise.acc] acc::quantiles::quantile(" + std::string(text) +
                                        "): q must lie in [0, 1]");
        }
        if (n_ == 0) {
            throw std::invalid_argument("[chunkwise.acc] acc::quantiles::quantile: the sketch is empty" +
                                        std::string(nans_ > 0 ? " (only NaN was added)" : ""));
        }
        std::vector<std::pair<double, std::uint64_t>> items;
        for (std::size_t h = 0; h < levels_.size(); ++h) {
            for (double v : levels_[h]) items.emplace_back(v, std::uint64_t{1} << h);
        }
        std::sort(items.begin(), items.end());
        std::uint64_t total = 0;
        for (const auto& it : items) total += it.second;
        const double target = q * static_cast<double>(total);
        std::uint64_t cum = 0;
        for (const auto& it : items) {
            cum += it.second;
            if (static_cast<double>(cum) >= target) return it.first;
        }
        return items.back().first;
    }
    /// The rank error of quantile(), as a fraction of count() (0 while the sketch is exact): a
    /// returned value's rank lies within count() * rank_error() of q * count() with 99%
    /// probability (the KLL bound, 2.296 / k^0.9444).
    [[nodiscard]] double rank_error() const { return exact_ ? 0.0 : 2.296 / std::pow(static_cast<double>(k_), 0.9444); }
    /// Values added (NaN not counted).
    [[nodiscard]] std::uint64_t count() const noexcept { return n_; }
    /// NaN values skipped.
    [[nodiscard]] std::uint64_t nans() const noexcept { return nans_; }
    /// The accuracy parameter.
    [[nodiscard]] std::size_t k() const noexcept { return k_; }
    /// Values kept (the memory the sketch holds, in doubles).
    [[nodiscard]] std::size_t held() const noexcept { return held_; }

    /// The state's name in checkpoints and transfers.
    static std::string type_name() { return "acc::quantiles/1"; }
    /// Appends the state's bytes.
    void save_bytes(std::string& out) const {
        out += "cwacc:quantiles";
        chunkwise::detail::acc::bytes_writer w(out);
        w.put<std::uint64_t>(k_);
        w.put(seed_);
        w.put(n_);
        w.put(nans_);
        w.put<std::uint8_t>(exact_ ? 1 : 0);
        w.put<std::uint64_t>(levels_.size());
        for (const auto& l : levels_) w.put_all(l);
    }
    /// The state saved in `in`. \throws chunkwise::detail::codec_error if it is not one
    static quantiles load_bytes(std::string_view in) {
        chunkwise::detail::acc::bytes_reader r(in);
        r.expect("cwacc:quantiles");
        quantiles q;
        q.k_ = static_cast<std::size_t>(r.get<std::uint64_t>());
        q.seed_ = r.get<std::uint64_t>();
        q.n_ = r.get<std::uint64_t>();
        q.nans_ = r.get<std::uint64_t>();
        q.exact_ = r.get<std::uint8_t>() != 0;
        const auto levels = r.get<std::uint64_t>();
        if (q.k_ < 8 || levels > 64)
            throw chunkwise::detail::codec_error("[chunkwise.acc] acc::quantiles: a damaged state");
        q.held_ = 0;
        q.grow(static_cast<std::size_t>(levels));
        for (std::uint64_t h = 0; h < levels; ++h) {
            q.levels_[h] = r.get_all<double>();
            q.held_ += q.levels_[h].size();
        }
        r.done();
        return q;
    }

private:
    [[nodiscard]] bool empty() const noexcept { return n_ == 0 && nans_ == 0; }
    static std::uint64_t mix(std::uint64_t x) noexcept {  // splitmix64
        x += 0x9e3779b97f4a7c15ull;
        x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
        x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
        return x ^ (x >> 31);
    }
    // `levels` levels; level h holds at most max(8, k (2/3)^depth) values, depth counted from the
    // top level.
    void grow(std::size_t levels) {
        levels_.resize(levels);
        caps_.resize(levels);
        cap_total_ = 0;
        for (std::size_t h = 0; h < levels; ++h) {
            const double c =
                std::ceil(static_cast<double>(k_) * std::pow(2.0 / 3.0, static_cast<double>(levels - 1 - h)));
            caps_[h] = std::max<std::size_t>(8, static_cast<std::size_t>(c));
            cap_total_ += caps_[h];
        }
    }
    // Compacts the lowest full level: sorted, every other value (from a seeded coin's start)
    // moves up a level at twice the weight; with an odd count the largest value stays.
    void compress() {
        exact_ = false;
        for (std::size_t h = 0; h < levels_.size(); ++h) {
            if (levels_[h].size() < caps_[h]) continue;
            if (h + 1 == levels_.size()) grow(levels_.size() + 1);
            std::vector<double>& level = levels_[h];
            std::sort(level.begin(), level.end());
            double keep = 0;
            const bool odd = level.size() % 2 == 1;
            if (odd) {
                keep = level.back();
                level.pop_back();
            }
            seed_ = mix(seed_);
            const std::size_t start = static_cast<std::size_t>(seed_ & 1);
            std::vector<double>& up = levels_[h + 1];
            for (std::size_t i = start; i < level.size(); i += 2) up.push_back(level[i]);
            held_ -= level.size() / 2;
            level.clear();
            if (odd) level.push_back(keep);
            return;
        }
    }

    std::size_t k_ = 200;
    std::uint64_t seed_ = 0;
    std::vector<std::vector<double>> levels_;  // level h: values of weight 2^h
    std::vector<std::size_t> caps_;            // each level's capacity
    std::size_t cap_total_ = 0;
    std::size_t held_ = 0;
    std::uint64_t n_ = 0, nans_ = 0;
    bool exact_ = true;
};

}  // namespace chunkwise::acc
