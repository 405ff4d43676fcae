#pragma once
// Internal: element types. What an HDF5 type is (checked before any of it reaches HDF5's own
// conversion code), whether chunkwise converts it itself ("raw": a full-width integer or an IEEE
// float, either byte order, or this platform's own long double; enums by their base integer), which conversions to T
// are exact, and the native HDF5 type of T.
#include <chunkwise/detail/core/compiled.hpp>
#include <chunkwise/detail/hdf5/library.hpp>

#include <hdf5.h>

#include <bit>
#include <cstddef>
#include <limits>
#include <string>
#include <type_traits>

namespace chunkwise::h5::detail {

/// The stored element type, as far as the read paths need it.
struct element_type {
    enum class kind { signed_int, unsigned_int, floating, other };
    kind k = kind::other;
    std::size_t size = 0;       ///< bytes per stored element
    std::size_t precision = 0;  ///< significant bits of an integer (8 * size unless padded)
    bool big_endian = false;
    bool raw = false;      ///< full width, standard layout: chunkwise decodes it itself
    bool numeric = false;  ///< converts to an arithmetic T (through HDF5 where not raw)
    bool is_enum = false;  ///< an enum (h5py's bool included): read as its base integer
    /// HDF5 does not convert it to numbers (enums, bitfields): read through its own type (no
    /// conversion), then its integers converted to T (what h5py gives).
    bool via_base = false;
    bool is_bool = false;  ///< h5py's bool: an enum of 8-bit integers {FALSE: 0, TRUE: 1}
    std::string text;      ///< for messages, e.g. "32-bit float, big-endian"

    /// numpy's name of the type: "float32", "int16", "uint8", "bool"; for types that are not
    /// numbers, the description (`text`).
    [[nodiscard]] std::string numpy_name() const {
        if (is_bool) return "bool";
        if (!numeric) return text;
        const std::string bits = std::to_string(size * 8);
        return k == kind::floating ? "float" + bits : k == kind::signed_int ? "int" + bits : "uint" + bits;
    }
};

/// True where `enum_type` is h5py's bool: two members, FALSE = 0 and TRUE = 1, of 8-bit integers.
/// Call with the lock held.
CHUNKWISE_HDF5_DECL bool is_h5py_bool(hid_t enum_type);

template <class T>
hid_t native_type() {
    if constexpr (std::is_same_v<T, float>)
        return H5T_NATIVE_FLOAT;
    else if constexpr (std::is_same_v<T, double>)
        return H5T_NATIVE_DOUBLE;
    else if constexpr (std::is_same_v<T, long double>)
        return H5T_NATIVE_LDOUBLE;
    else if constexpr (std::is_same_v<T, signed char>)
        return H5T_NATIVE_SCHAR;
    else if constexpr (std::is_same_v<T, char>)
        return H5T_NATIVE_CHAR;
    else if constexpr (std::is_same_v<T, unsigned char>)
        return H5T_NATIVE_UCHAR;
    else if constexpr (std::is_same_v<T, short>)
        return H5T_NATIVE_SHORT;
    else if constexpr (std::is_same_v<T, unsigned short>)
        return H5T_NATIVE_USHORT;
    else if constexpr (std::is_same_v<T, int>)
        return H5T_NATIVE_INT;
    else if constexpr (std::is_same_v<T, unsigned>)
        return H5T_NATIVE_UINT;
    else if constexpr (std::is_same_v<T, long>)
        return H5T_NATIVE_LONG;
    else if constexpr (std::is_same_v<T, unsigned long>)
        return H5T_NATIVE_ULONG;
    else if constexpr (std::is_same_v<T, long long>)
        return H5T_NATIVE_LLONG;
    else if constexpr (std::is_same_v<T, unsigned long long>)
        return H5T_NATIVE_ULLONG;
    else
        static_assert(sizeof(T) == 0, "chunkwise::h5: T must be an arithmetic type (not bool)");
}

/// T's own element type (for copying values HDF5 already converted, and for messages).
template <class T>
element_type element_type_of() {
    element_type t;
    t.k = std::is_floating_point_v<T>
              ? element_type::kind::floating
              : (std::is_signed_v<T> ? element_type::kind::signed_int : element_type::kind::unsigned_int);
    t.size = sizeof(T);
    t.big_endian = std::endian::native == std::endian::big;
    t.raw = t.numeric = true;
    t.text = std::to_string(sizeof(T) * 8) + "-bit " +
             (std::is_floating_point_v<T> ? "float"
              : std::is_signed_v<T>       ? "signed integer"
                                          : "unsigned integer");
    return t;
}

/// Why an integer or float type cannot be trusted to HDF5's conversion code ("" if it can).
/// Corrupted files can describe bit fields outside the element; HDF5 1.10 would read out of
/// bounds converting them. Call with the lock held.
CHUNKWISE_HDF5_DECL std::string type_defect(hid_t type, H5T_class_t cls);

/// The integer type whose values a bitfield's bits are (same size, byte order, precision and
/// offset, unsigned): what reads convert bitfields from. Call with the lock held.
CHUNKWISE_HDF5_DECL handle bitfield_as_integer(hid_t bitfield);

/// Describes a dataset's type; `defect` receives why it is unusable ("" if usable). Call with the
/// lock held.
CHUNKWISE_HDF5_DECL element_type describe_type(hid_t type, std::string& defect);

/// True when every value of the stored (raw) type converts to T exactly: same type, or widening.
template <class T>
bool exact_conversion(const element_type& t) {
    if constexpr (!std::is_arithmetic_v<T> || std::is_same_v<T, bool>) {
        return false;
    } else {
        using E = element_type::kind;
        if (!t.raw) return false;
        constexpr std::size_t tsize = sizeof(T);
        if constexpr (std::is_floating_point_v<T>) {
            constexpr int digits = std::numeric_limits<T>::digits;
            if (t.k == E::floating) {
                return (t.size == 4 && digits >= 24) || (t.size == 8 && digits >= 53) ||
                       (t.size > 8 && t.size == sizeof(long double) && std::is_same_v<T, long double>);
            }
            if (t.k == E::signed_int) return static_cast<int>(t.size * 8) - 1 <= digits;
            if (t.k == E::unsigned_int) return static_cast<int>(t.size * 8) <= digits;
            return false;
        } else if constexpr (std::is_signed_v<T>) {
            if (t.k == E::signed_int) return t.size <= tsize;
            if (t.k == E::unsigned_int) return t.size < tsize;
            return false;
        } else {
            return t.k == E::unsigned_int && t.size <= tsize;
        }
    }
}

/// True where T holds every value of the stored type exactly, whatever path reads it: the rule
/// both stores follow unless read_options::convert asks for conversion. bool only from h5py's bool.
template <class T>
bool holds_exactly(const element_type& t) {
    if constexpr (std::is_same_v<T, bool>) {
        return t.is_bool;
    } else {
        if (!t.numeric) return false;
        if (t.is_bool) return true;  // 0 and 1
        if (t.raw) return exact_conversion<T>(t);
        if (t.k != element_type::kind::floating) {  // an integer of odd precision: its significant bits
            const bool is_signed = t.k == element_type::kind::signed_int;
            const std::size_t magnitude = t.precision - (is_signed ? 1 : 0);
            if constexpr (std::is_floating_point_v<T>)
                return static_cast<int>(magnitude) <= std::numeric_limits<T>::digits;
            else
                return (std::is_signed_v<T> || !is_signed) &&
                       static_cast<int>(magnitude) <= std::numeric_limits<T>::digits;
        }
        // A float of another layout (16-bit, non-IEEE): a wider floating type holds it.
        return std::is_floating_point_v<T> && (sizeof(T) > t.size || std::is_same_v<T, long double>);
    }
}

/// True when the stored bytes are T's own bytes: a copy, no conversion.
template <class T>
bool same_representation(const element_type& t) {
    using E = element_type::kind;
    if (!t.raw || t.size != sizeof(T)) return false;
    if (t.big_endian != (std::endian::native == std::endian::big)) return false;
    if constexpr (std::is_floating_point_v<T>) {
        return t.k == E::floating && std::numeric_limits<T>::is_iec559;
    } else if constexpr (std::is_signed_v<T>) {
        return t.k == E::signed_int;
    } else {
        return t.k == E::unsigned_int;
    }
}

/// True where the stored values are T's own but in the other byte order: reversing each element's
/// bytes reads them (not long double, which is only ever read in this platform's own format).
template <class T>
bool swapped_representation(const element_type& t) {
    if constexpr (sizeof(T) == 1 || sizeof(T) > 8) {
        (void)t;
        return false;
    } else {
        element_type u = t;
        u.big_endian = !t.big_endian;
        return same_representation<T>(u);
    }
}

}  // namespace chunkwise::h5::detail

#if CHUNKWISE_HDF5_HEADER_ONLY
#include <chunkwise/detail/hdf5/types.ipp>
#endif
