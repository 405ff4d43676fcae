#pragma once
// Internal: byte order, and the exact conversions from a raw stored element type to T, in the
// calling thread (the filters that decode chunks: filters/).
#include <chunkwise/detail/hdf5/types.hpp>

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace chunkwise::h5::detail {

/// x with its bytes in reverse order (portable; compilers emit one instruction).
template <class U>
constexpr U byte_swap(U x) noexcept {
    static_assert(std::is_unsigned_v<U>);
    using W = std::conditional_t<(sizeof(U) < sizeof(unsigned)), unsigned, U>;  // no promotion to int
    U out = 0;
    for (std::size_t i = 0; i < sizeof(U); ++i) {
        out = static_cast<U>((static_cast<W>(out) << 8U) | (static_cast<W>(x) & W{0xff}));
        x = static_cast<U>(static_cast<W>(x) >> 8U);
    }
    return out;
}

template <class S>
S load_swapped(const unsigned char* p, bool swap) {
    using U = std::conditional_t<sizeof(S) == 1, std::uint8_t,
                                 std::conditional_t<sizeof(S) == 2, std::uint16_t,
                                                    std::conditional_t<sizeof(S) == 4, std::uint32_t, std::uint64_t>>>;
    U u;
    std::memcpy(&u, p, sizeof(U));
    if (swap) u = byte_swap(u);
    S s;
    std::memcpy(&s, &u, sizeof(S));
    return s;
}

template <class S>
S load_element(const unsigned char* p, bool swap) {
    if constexpr (sizeof(S) > 8) {  // long double: T's own type, never swapped
        (void)swap;
        S s;
        std::memcpy(&s, p, sizeof(S));
        return s;
    } else {
        return load_swapped<S>(p, swap);
    }
}

template <class S, class T>
void convert_run_as(const unsigned char* src, T* dst, std::size_t n, bool swap) {
    if constexpr (std::is_same_v<S, T>) {
        if (!swap) {
            std::memcpy(dst, src, n * sizeof(T));
            return;
        }
    }
    for (std::size_t i = 0; i < n; ++i) dst[i] = static_cast<T>(load_element<S>(src + i * sizeof(S), swap));
}

/// Converts n stored elements at src to T at dst. Only call where exact_conversion<T>(t).
template <class T>
void convert_run(const element_type& t, const unsigned char* src, T* dst, std::size_t n) {
    const bool swap = t.big_endian != (std::endian::native == std::endian::big);
    using E = element_type::kind;
    switch (t.k) {
        case E::signed_int:
            switch (t.size) {
                case 1:
                    return convert_run_as<std::int8_t>(src, dst, n, swap);
                case 2:
                    return convert_run_as<std::int16_t>(src, dst, n, swap);
                case 4:
                    return convert_run_as<std::int32_t>(src, dst, n, swap);
                default:
                    return convert_run_as<std::int64_t>(src, dst, n, swap);
            }
        case E::unsigned_int:
            switch (t.size) {
                case 1:
                    return convert_run_as<std::uint8_t>(src, dst, n, swap);
                case 2:
                    return convert_run_as<std::uint16_t>(src, dst, n, swap);
                case 4:
                    return convert_run_as<std::uint32_t>(src, dst, n, swap);
                default:
                    return convert_run_as<std::uint64_t>(src, dst, n, swap);
            }
        case E::floating:
            if (t.size == 4) return convert_run_as<float>(src, dst, n, swap);
            if (t.size == 8) return convert_run_as<double>(src, dst, n, swap);
            // T's own long double (values HDF5 converted to it), never swapped
            if (t.size == sizeof(long double) && !swap) return convert_run_as<long double>(src, dst, n, false);
            throw std::logic_error("convert_run of a " + std::to_string(t.size) + "-byte float");
        default:
            throw std::logic_error("convert_run on a type without a fast path");
    }
}

}  // namespace chunkwise::h5::detail
