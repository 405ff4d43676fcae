#pragma once
// Internal: the kernel of acc::variance::add_rows. For a tile of elements [t0, t0 + len) of k
// stacked rows of m elements, each element's shift (its value in row 0) and the sum and sum of
// squares of its deviations from it over rows 1 .. k-1, in doubles.
//
// On x86-64 the same code is also compiled for AVX2 and chosen at run time. AVX2 without FMA
// changes only how many elements a vector holds, never an element's operations, so both give
// the same bits (tests/core/test_accumulate.cpp compares them).
#include <cstddef>

namespace chunkwise::detail::acc {

inline constexpr std::size_t row_sums_tile = 512;  ///< elements a tile holds at most

template <class S>
#if defined(__GNUC__)
[[gnu::always_inline]]
#endif
inline void
row_sums_body(const S* p, std::size_t k, std::size_t m, std::size_t t0, std::size_t len, double* shift, double* s1,
              double* s2) {
    for (std::size_t i = 0; i < len; ++i) {
        shift[i] = static_cast<double>(p[t0 + i]);
        s1[i] = 0;
        s2[i] = 0;
    }
    std::size_t r = 1;
    for (; r + 4 <= k; r += 4) {  // four rows a pass: a quarter of the tile's loads and stores
        const S* __restrict a = p + r * m + t0;
        const S* __restrict b = a + m;
        const S* __restrict c = b + m;
        const S* __restrict e = c + m;
        for (std::size_t i = 0; i < len; ++i) {
            const double da = static_cast<double>(a[i]) - shift[i];
            const double db = static_cast<double>(b[i]) - shift[i];
            const double dc = static_cast<double>(c[i]) - shift[i];
            const double de = static_cast<double>(e[i]) - shift[i];
            s1[i] += (da + db) + (dc + de);
            s2[i] += (da * da + db * db) + (dc * dc + de * de);
        }
    }
    for (; r < k; ++r) {
        const S* __restrict row = p + r * m + t0;
        for (std::size_t i = 0; i < len; ++i) {
            const double d = static_cast<double>(row[i]) - shift[i];
            s1[i] += d;
            s2[i] += d * d;
        }
    }
}

/// The kernel as compiled for the build's target.
template <class S>
void row_sums_generic(const S* p, std::size_t k, std::size_t m, std::size_t t0, std::size_t len, double* shift,
                      double* s1, double* s2) {
    row_sums_body(p, k, m, t0, len, shift, s1, s2);
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define CHUNKWISE_ROW_SUMS_AVX2 1
/// The kernel for AVX2 (without FMA: the same operations per element).
template <class S>
__attribute__((target("avx2"))) void row_sums_avx2(const S* p, std::size_t k, std::size_t m, std::size_t t0,
                                                   std::size_t len, double* shift, double* s1, double* s2) {
    row_sums_body(p, k, m, t0, len, shift, s1, s2);
}

/// Whether this CPU runs AVX2.
inline bool cpu_has_avx2() noexcept {
    static const bool yes = __builtin_cpu_supports("avx2");
    return yes;
}
#endif

/// The kernel, for this CPU.
template <class S>
void row_sums(const S* p, std::size_t k, std::size_t m, std::size_t t0, std::size_t len, double* shift, double* s1,
              double* s2) {
#ifdef CHUNKWISE_ROW_SUMS_AVX2
    if (cpu_has_avx2()) {
        row_sums_avx2(p, k, m, t0, len, shift, s1, s2);
        return;
    }
#endif
    row_sums_generic(p, k, m, t0, len, shift, s1, s2);
}

}  // namespace chunkwise::detail::acc
