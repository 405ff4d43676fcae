#pragma once
// Internal: numcodecs' filters that change the values' type (Zarr v2), decoded as numcodecs
// decodes them, in either byte order: delta (a running sum: integers wrap as numpy's do, floats
// accumulate in numpy's result type of the two, each sum rounded to the array's type), quantize
// and astype (the encoded type cast back), bitround (nothing to undo), fixedscaleoffset
// (enc / scale + offset in float64, cast). Each needs the array's types, which the codec floor
// knows nothing of.
#include <chunkwise/detail/core/compiled.hpp>
#include <chunkwise/detail/zarr/convert.hpp>
#include <chunkwise/detail/zarr/metadata.hpp>

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace chunkwise::zarr::detail {

/// The filters this header decodes, for messages.
inline constexpr const char* type_filter_names = "delta, quantize, bitround, fixedscaleoffset, astype";

inline bool is_type_filter(const std::string& name) {
    return name == "delta" || name == "quantize" || name == "bitround" || name == "fixedscaleoffset" ||
           name == "astype";
}

/// The type a filter's configuration names at `key` (`fallback` where absent).
CHUNKWISE_ZARR_DECL dtype filter_type(const std::string& store, const codec_spec& c, const char* key,
                                      const char* fallback);

/// The decoded type (the array's) and the encoded type of a type filter.
CHUNKWISE_ZARR_DECL dtype decoded_type(const std::string& store, const codec_spec& c);
CHUNKWISE_ZARR_DECL dtype encoded_type(const std::string& store, const codec_spec& c);

template <class F>
void with_type(const dtype& t, F&& f) {
    switch (t.kind == 'b' ? 'u' : t.kind) {
        case 'i':
            if (t.size == 1) return f(std::int8_t{});
            if (t.size == 2) return f(std::int16_t{});
            if (t.size == 4) return f(std::int32_t{});
            return f(std::int64_t{});
        case 'u':
            if (t.size == 1) return f(std::uint8_t{});
            if (t.size == 2) return f(std::uint16_t{});
            if (t.size == 4) return f(std::uint32_t{});
            return f(std::uint64_t{});
        default:
            if (t.size == 4) return f(float{});
            return f(double{});
    }
}

/// v stored at p in the given byte order.
template <class S>
void store_value(unsigned char* p, S v, bool swap) {
    std::memcpy(p, &v, sizeof(S));
    if (swap) std::reverse(p, p + sizeof(S));
}

/// The type delta accumulates in, as numpy's cumsum into S of values of A: integers in S's
/// unsigned type (wrapping); else numpy's result type of A and S (float64 where either is 8 bytes,
/// or A an integer of 4 bytes or more).
template <class S, class A>
using delta_accumulator = std::conditional_t<
    std::is_integral_v<S> && std::is_integral_v<A>,
    std::make_unsigned_t<std::conditional_t<std::is_integral_v<S>, S, int>>,
    std::conditional_t<(sizeof(S) == 8 || sizeof(A) == 8 || (std::is_integral_v<A> && sizeof(A) >= 4)), double, float>>;

/// Delta's decode: n values of A at `in` (its byte order `a_swap`), their running sums as S at
/// `out` (its byte order `s_swap`).
template <class S, class A>
void undelta(const unsigned char* in, unsigned char* out, std::size_t n, bool a_swap, bool s_swap) {
    using Acc = delta_accumulator<S, A>;
    Acc acc{};
    for (std::size_t i = 0; i < n; ++i) {
        const A a = load<A>(in + i * sizeof(A), a_swap);
        Acc step;
        if constexpr (std::is_integral_v<Acc> && std::is_floating_point_v<A>) {
            step = static_cast<Acc>(convert_value<long long, A>(a));
        } else {
            step = static_cast<Acc>(a);
        }
        acc = i == 0 ? step : static_cast<Acc>(acc + step);
        if constexpr (std::is_integral_v<S> && std::is_integral_v<Acc>) {
            store_value(out + i * sizeof(S), static_cast<S>(acc), s_swap);  // wraps, as numpy's sum does
        } else {
            store_value(out + i * sizeof(S), convert_value<S, Acc>(acc), s_swap);
        }
    }
}

/// Quantize and astype: the encoded values cast to the decoded type; fixedscaleoffset: enc /
/// scale + offset in float64, cast.
template <class S, class A>
void uncast(const unsigned char* in, unsigned char* out, std::size_t n, bool a_swap, bool s_swap, bool scaled,
            double scale, double offset) {
    for (std::size_t i = 0; i < n; ++i) {
        const A a = load<A>(in + i * sizeof(A), a_swap);
        S v;
        if (scaled) {
            v = convert_value<S, double>(static_cast<double>(a) / scale + offset);
        } else {
            v = convert_value<S, A>(a);
        }
        store_value(out + i * sizeof(S), v, s_swap);
    }
}

/// A number of a filter's configuration.
CHUNKWISE_ZARR_DECL double filter_number(const std::string& store, const codec_spec& c, const char* key);

/// Decodes a type filter: [in, in + n) holds `elems` values of its encoded type; `out` gets them in
/// the array's stored type `t`. \throws std::runtime_error naming what does not fit
CHUNKWISE_ZARR_DECL void decode_type_filter(const std::string& store, const codec_spec& c, const unsigned char* in,
                                            std::size_t n, unsigned char* out, std::size_t elems, const dtype& t);

}  // namespace chunkwise::zarr::detail

#if CHUNKWISE_ZARR_HEADER_ONLY
#include <chunkwise/detail/zarr/type_filters.ipp>
#endif
