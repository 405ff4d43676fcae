#pragma once
// Internal: reads of selected indices on one axis (h5::indices). The sorted distinct indices are
// grouped into spans, each read as one box by read_box (so by the same paths, locks and checks
// as whole rows): on a chunked dataset one span per chunk along the axis that holds any of them
// (from its first to its last selected index: every chunk is decoded at most once, chunks holding
// none are not read); otherwise one span per run of consecutive indices. Each span's values are
// then copied to every output position that asked for them (any order, duplicates allowed).
#include <chunkwise/detail/core/compiled.hpp>
#include <chunkwise/detail/hdf5/read/box.hpp>
#include <chunkwise/detail/hdf5/state.hpp>

#include <algorithm>
#include <cstddef>
#include <new>
#include <string>
#include <utility>
#include <vector>

namespace chunkwise::h5::detail {

/// Why an index selection does not fit `dims` ("" when it does): the axis must be in [1, rank),
/// every index inside it. `what` names the data in the message ("dataset", "series").
CHUNKWISE_HDF5_DECL std::string selection_problem(const std::vector<std::size_t>& dims, std::size_t axis,
                                                  const std::vector<std::size_t>& idx, const char* what);

/// h5::error when the selection does not fit the dataset.
inline void check_selection(const dataset_state& s, std::size_t axis, const std::vector<std::size_t>& idx) {
    if (std::string problem = selection_problem(s.dims, axis, idx, "dataset"); !problem.empty()) s.fail(problem);
}

/// Values of rows [row_begin, row_end) of axis 0 and, on `axis`, of the indices idx (in their
/// order), every other axis whole, into out: extent (rows, ..., idx.size(), ...). Checked by the caller.
template <class T>
void read_selected(const dataset_state& s, std::size_t row_begin, std::size_t row_end, std::size_t axis,
                   const std::vector<std::size_t>& idx, T* out) {
    const std::size_t n = s.dims.size();
    const std::size_t k = idx.size();
    if (k == 0 || row_end == row_begin) return;
    std::size_t outer = row_end - row_begin, inner = 1;
    for (std::size_t d = 1; d < axis; ++d) outer *= s.dims[d];
    for (std::size_t d = axis + 1; d < n; ++d) inner *= s.dims[d];

    // (index, output position), by index: each span's positions are one run of it.
    std::vector<std::pair<std::size_t, std::size_t>> wanted(k);
    for (std::size_t j = 0; j < k; ++j) wanted[j] = {idx[j], j};
    std::sort(wanted.begin(), wanted.end());

    const bool by_chunk = !s.chunk.empty() && s.layout == storage::chunked;
    const std::size_t unit = by_chunk ? s.chunk[axis] : 1;
    std::vector<std::size_t> lo(n, 0), hi = s.dims;
    lo[0] = row_begin;
    hi[0] = row_end;
    std::vector<T> span_values;
    for (std::size_t first = 0; first < k;) {
        // The span: indices of one chunk along the axis, or one run of consecutive indices.
        std::size_t last = first;
        while (last + 1 < k && (by_chunk ? wanted[last + 1].first / unit == wanted[first].first / unit
                                         : wanted[last + 1].first <= wanted[last].first + 1)) {
            ++last;
        }
        const std::size_t span_lo = wanted[first].first, span_hi = wanted[last].first + 1;
        const std::size_t width = span_hi - span_lo;
        try {
            span_values.resize(outer * width * inner);
        } catch (const std::bad_alloc&) {
            s.fail("cannot allocate " + std::to_string(outer * width * inner) + " values to read indices " +
                   std::to_string(span_lo) + " to " + std::to_string(span_hi - 1) + " of axis " + std::to_string(axis));
        }
        lo[axis] = span_lo;
        hi[axis] = span_hi;
        read_box<T>(s, lo.data(), hi.data(), span_values.data());
        for (std::size_t o = 0; o < outer; ++o) {
            const T* from = span_values.data() + o * width * inner;
            T* to = out + o * k * inner;
            for (std::size_t w = first; w <= last; ++w) {
                std::copy_n(from + (wanted[w].first - span_lo) * inner, inner, to + wanted[w].second * inner);
            }
        }
        first = last + 1;
    }
}

}  // namespace chunkwise::h5::detail

#if CHUNKWISE_HDF5_HEADER_ONLY
#include <chunkwise/detail/hdf5/read/select.ipp>
#endif
