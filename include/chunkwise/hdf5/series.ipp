// The definitions of chunkwise/hdf5/series.hpp's functions that are not templates: included at the end
// of that header (header-only, the default), or compiled once into the hdf5 library
// (CHUNKWISE_HDF5_SEPARATE_COMPILATION; docs/installing.md, "Header-only or compiled").
#pragma once

namespace chunkwise::h5 {

[[nodiscard]] CHUNKWISE_HDF5_DECL std::vector<std::filesystem::path> glob(const std::string& pattern) {
    ::glob_t g{};
    const int rc = ::glob(pattern.c_str(), 0, nullptr, &g);
    std::vector<std::string> names;
    if (rc == 0) names.assign(g.gl_pathv, g.gl_pathv + g.gl_pathc);
    ::globfree(&g);
    if (names.empty()) throw error(pattern, "", "no file matches this pattern");
    const auto natural_less = [](const std::string& a, const std::string& b) {
        const auto digit = [](char c) { return c >= '0' && c <= '9'; };
        std::size_t i = 0, j = 0;
        while (i < a.size() && j < b.size()) {
            if (digit(a[i]) && digit(b[j])) {
                std::size_t ie = i, je = j;
                while (ie < a.size() && digit(a[ie])) ++ie;
                while (je < b.size() && digit(b[je])) ++je;
                std::size_t is = i, js = j;  // compare without leading zeros: by length, then digits
                while (is + 1 < ie && a[is] == '0') ++is;
                while (js + 1 < je && b[js] == '0') ++js;
                if (ie - is != je - js) return ie - is < je - js;
                if (const int c = a.compare(is, ie - is, b, js, je - js); c != 0) return c < 0;
                i = ie;
                j = je;
            } else {
                if (a[i] != b[j]) return a[i] < b[j];
                ++i;
                ++j;
            }
        }
        return a.size() - i < b.size() - j || (a.size() - i == b.size() - j && a < b);
    };
    std::sort(names.begin(), names.end(), natural_less);
    return {names.begin(), names.end()};
}

[[nodiscard]] CHUNKWISE_HDF5_DECL std::vector<block> partition(const dataset_series& series, parts p) {
    if (p.count == 0) {
        throw std::invalid_argument("[chunkwise.h5] parts{0}: the number of blocks must be at least 1");
    }
    // Every place a block may end: chunk boundaries inside each file, and the file ends.
    const auto& offsets = series.file_offsets();
    const auto& chunk = series.chunk_rows();
    std::vector<std::size_t> cuts;
    std::vector<bool> file_end;
    for (std::size_t f = 0; f + 1 < offsets.size(); ++f) {
        for (std::size_t r = offsets[f] + chunk[f]; r < offsets[f + 1]; r += chunk[f]) {
            cuts.push_back(r);
            file_end.push_back(false);
        }
        if (offsets[f + 1] > offsets[f]) {
            cuts.push_back(offsets[f + 1]);
            file_end.push_back(true);
        }
    }
    std::vector<block> out;
    if (cuts.empty()) return out;  // no rows
    const std::size_t total = offsets.back();
    const std::size_t blocks = std::min(p.count, cuts.size());
    const double per_block = static_cast<double>(total) / static_cast<double>(blocks);
    std::size_t begin = 0, at = 0;  // at: index of the next usable cut
    for (std::size_t b = 1; b <= blocks; ++b) {
        std::size_t pick = cuts.size() - 1;
        if (b < blocks) {
            // Leave one cut for each block still to come.
            const std::size_t last_usable = cuts.size() - 1 - (blocks - b);
            const double ideal = per_block * static_cast<double>(b);
            auto dist = [&](std::size_t i) { return std::abs(static_cast<double>(cuts[i]) - ideal); };
            const auto first = cuts.begin() + static_cast<std::ptrdiff_t>(at);
            const auto stop = cuts.begin() + static_cast<std::ptrdiff_t>(last_usable) + 1;
            std::size_t i =
                static_cast<std::size_t>(std::lower_bound(first, stop, static_cast<std::size_t>(ideal)) - cuts.begin());
            if (i > last_usable) i = last_usable;
            if (i > at && dist(i - 1) <= dist(i)) --i;
            pick = i;
            // A file end within a quarter of a block wins.
            std::optional<std::size_t> best;
            for (std::size_t j = i; j-- > at && static_cast<double>(cuts[j]) >= ideal - per_block / 4;) {
                if (file_end[j]) {
                    best = j;
                    break;
                }
            }
            for (std::size_t j = i; j <= last_usable && static_cast<double>(cuts[j]) <= ideal + per_block / 4; ++j) {
                if (file_end[j]) {
                    if (!best || dist(j) < dist(*best)) best = j;
                    break;
                }
            }
            if (best) pick = *best;
        }
        out.push_back(block{b - 1, begin, cuts[pick]});
        begin = cuts[pick];
        at = pick + 1;
    }
    return out;
}

}  // namespace chunkwise::h5

namespace chunkwise::h5 {

CHUNKWISE_HDF5_DECL dataset_series::dataset_series(std::vector<std::filesystem::path> files, const std::string& path,
                                                   read_options opt, std::size_t max_open_files)
        : s_(std::make_shared<shared>()), opt_(opt) {
    if (max_open_files == 0) {
        throw std::invalid_argument("[chunkwise.h5] dataset_series: max_open_files must be at least 1");
    }
    if (files.empty()) throw error("", path, "dataset_series: no files given");
    s_->max_open = max_open_files;
    s_->offsets.push_back(0);
    for (std::size_t i = 0; i < files.size(); ++i) {
        dataset ds(files[i], path);
        if (!ds.is_numeric()) {
            throw error(ds.file(), ds.path(),
                        "dataset_series: holds " + ds.type_name() + " values, which do not convert to a number type");
        }
        std::vector<std::size_t> shape = ds.shape();
        if (i == 0) {
            s_->path = ds.path();
            s_->shape = shape;
            s_->shape[0] = 0;
            s_->type_name = ds.type_name();
        } else if (shape.size() != s_->shape.size() ||
                   !std::equal(shape.begin() + 1, shape.end(), s_->shape.begin() + 1)) {
            throw error(ds.file(), ds.path(),
                        "dataset_series: has shape " + detail::shape_text(shape) + ", but " + s_->files[0].string() +
                            " has shape " + detail::shape_text(first_shape(0)) +
                            ": every file must agree on every axis but the first");
        }
        s_->rows.push_back(shape[0]);
        s_->chunk_rows.push_back(ds.chunk_shape() ? (*ds.chunk_shape())[0] : 1);
        s_->element_size = std::max(s_->element_size, ds.element_size());
        s_->shape[0] += shape[0];
        s_->offsets.push_back(s_->shape[0]);
        s_->files.push_back(files[i]);
        if (i < max_open_files) s_->remember(i, std::move(ds));
    }
}

CHUNKWISE_HDF5_DECL auto dataset_series::with(read_options opt) const -> dataset_series {
    dataset_series s = *this;
    s.opt_ = opt;
    return s;
}

CHUNKWISE_HDF5_DECL auto dataset_series::first_shape(std::size_t i) const -> std::vector<std::size_t> {
    std::vector<std::size_t> s = s_->shape;
    s[0] = s_->rows[i];
    return s;
}

CHUNKWISE_HDF5_DECL auto dataset_series::fail(const std::string& message) const -> void {
    const std::size_t more = s_->files.size() - 1;
    throw error(s_->files.front().string() + (more > 0 ? " (+ " + std::to_string(more) + " files)" : ""), s_->path,
                "dataset_series: " + message);
}

CHUNKWISE_HDF5_DECL auto dataset_series::check_rows(const block& rows) const -> void {
    if (rows.begin > rows.end || rows.end > s_->shape[0]) {
        fail("rows [" + std::to_string(rows.begin) + ", " + std::to_string(rows.end) +
             ") are outside axis 0 of extent " + std::to_string(s_->shape[0]));
    }
}

}  // namespace chunkwise::h5
