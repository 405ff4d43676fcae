#pragma once
// Internal: a Zarr chunk's values into the caller's type: which types hold a stored type exactly,
// one value loaded in either byte order, converted (exactly, or as read_options::convert
// documents), and the runs of every axis copied from a decoded chunk into the output.
#include <chunkwise/detail/zarr/metadata.hpp>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

namespace chunkwise::zarr::detail {

/// True where T holds every value of the stored type exactly.
template <class T>
bool holds_exactly(const dtype& t) {
    if constexpr (std::is_same_v<T, bool>) {
        return t.kind == 'b';
    } else if constexpr (std::is_floating_point_v<T>) {
        if (t.kind == 'f') return sizeof(T) >= t.size;
        const int bits = static_cast<int>(t.size * 8) - (t.kind == 'i' ? 1 : 0);
        return t.kind == 'b' || bits <= std::numeric_limits<T>::digits;
    } else {
        if (t.kind == 'f') return false;
        if (t.kind == 'b') return true;
        if (t.kind == 'u') return std::numeric_limits<T>::digits >= static_cast<int>(t.size * 8);
        return std::is_signed_v<T> && sizeof(T) >= t.size;
    }
}

/// One run of an axis: `count` consecutive indices from src0 (in the chunk) to dst0 (in the output).
struct run {
    std::size_t src0, dst0, count;
};

template <class S>
S load(const unsigned char* p, bool swap) noexcept {
    if constexpr (sizeof(S) == 1) {
        return static_cast<S>(*p);
    } else {
        using U = std::conditional_t<sizeof(S) == 2, std::uint16_t,
                                     std::conditional_t<sizeof(S) == 4, std::uint32_t, std::uint64_t>>;
        U u;
        std::memcpy(&u, p, sizeof(U));
        if (swap) {
            if constexpr (sizeof(U) == 2)
                u = static_cast<U>(__builtin_bswap16(u));
            else if constexpr (sizeof(U) == 4)
                u = __builtin_bswap32(u);
            else
                u = __builtin_bswap64(u);
        }
        S v;
        std::memcpy(&v, &u, sizeof(S));
        return v;
    }
}

/// True where every value of S is a value of T (no conversion can lose anything).
template <class T, class S>
inline constexpr bool always_exact = [] {
    using TL = std::numeric_limits<T>;
    using SL = std::numeric_limits<S>;
    if constexpr (std::is_same_v<T, S>)
        return true;
    else if constexpr (std::is_same_v<T, bool> || std::is_same_v<S, bool>)
        return false;
    else if constexpr (std::is_floating_point_v<T> && std::is_floating_point_v<S>)
        return TL::digits >= SL::digits && TL::max_exponent >= SL::max_exponent;
    else if constexpr (std::is_floating_point_v<T>)
        return TL::digits >= SL::digits;
    else if constexpr (std::is_floating_point_v<S>)
        return false;
    else
        return (std::is_signed_v<T> || !std::is_signed_v<S>)&&TL::digits >= SL::digits;
}();

/// v as T: a plain conversion where T holds every S; else as read_options::convert documents it:
/// floats to integers truncated toward zero and clipped to T's range (NaN: 0), integers clipped to
/// T's range, floats to a narrower float rounded to nearest (beyond its range: infinity).
template <class T, class S>
T convert_value(S v) noexcept {
    if constexpr (always_exact<T, S>) {
        return static_cast<T>(v);
    } else if constexpr (std::is_same_v<T, bool>) {
        return v != S{};
    } else if constexpr (std::is_floating_point_v<T> && std::is_floating_point_v<S>) {
        if (v > static_cast<S>(std::numeric_limits<T>::max())) return std::numeric_limits<T>::infinity();
        if (v < static_cast<S>(std::numeric_limits<T>::lowest())) return -std::numeric_limits<T>::infinity();
        return static_cast<T>(v);
    } else if constexpr (std::is_floating_point_v<T>) {
        return static_cast<T>(v);  // an integer: rounded to the nearest float
    } else if constexpr (std::is_floating_point_v<S>) {
        if (v != v) return T{};
        // T's limits as S: max() rounds up to 2^digits in S where S cannot hold it, so compare with >=.
        if (v >= static_cast<S>(std::numeric_limits<T>::max())) return std::numeric_limits<T>::max();
        if (v <= static_cast<S>(std::numeric_limits<T>::lowest())) return std::numeric_limits<T>::lowest();
        return static_cast<T>(v);
    } else if constexpr (std::is_signed_v<S>) {
        if (v < 0 && !std::is_signed_v<T>) return T{};
        if (std::is_signed_v<T> && static_cast<long long>(v) < static_cast<long long>(std::numeric_limits<T>::lowest()))
            return std::numeric_limits<T>::lowest();
        if (v > 0 &&
            static_cast<unsigned long long>(v) > static_cast<unsigned long long>(std::numeric_limits<T>::max()))
            return std::numeric_limits<T>::max();
        return static_cast<T>(v);
    } else {
        if (static_cast<unsigned long long>(v) > static_cast<unsigned long long>(std::numeric_limits<T>::max()))
            return std::numeric_limits<T>::max();
        return static_cast<T>(v);
    }
}

/// Copies the runs of every axis from `src` (strides in bytes, per axis) to `dst` (strides in
/// elements), converting S to T.
template <class T, class S>
void copy_runs(const unsigned char* src, const std::vector<std::size_t>& sstride, T* dst,
               const std::vector<std::size_t>& dstride, const std::vector<std::vector<run>>& runs, std::size_t d,
               bool swap) {
    const bool last = d + 1 == runs.size();
    for (const run& r : runs[d]) {
        const unsigned char* s = src + r.src0 * sstride[d];
        T* o = dst + r.dst0 * dstride[d];
        if (last) {
            if (!swap && sstride[d] == sizeof(S) && std::is_same_v<T, S>) {
                std::memcpy(o, s, r.count * sizeof(S));
            } else {
                for (std::size_t i = 0; i < r.count; ++i) o[i] = convert_value<T, S>(load<S>(s + i * sstride[d], swap));
            }
        } else {
            for (std::size_t i = 0; i < r.count; ++i)
                copy_runs<T, S>(s + i * sstride[d], sstride, o + i * dstride[d], dstride, runs, d + 1, swap);
        }
    }
}

}  // namespace chunkwise::zarr::detail
