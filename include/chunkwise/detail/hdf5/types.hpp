#pragma once
// Internal: element types. What an HDF5 type is (checked before any of it reaches HDF5's own
// conversion code), whether chunkwise converts it itself ("raw": a full-width integer or an IEEE
// float, either byte order, or this platform's own long double; enums by their base integer), which conversions to T
// are exact, and the native HDF5 type of T.
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
inline bool is_h5py_bool(hid_t enum_type) {
    if (H5Tget_nmembers(enum_type) != 2 || H5Tget_size(enum_type) != 1) return false;
    bool ok = true;
    for (unsigned i = 0; i < 2 && ok; ++i) {
        char* name = H5Tget_member_name(enum_type, i);
        signed char value = -1;
        ok = name != nullptr && H5Tget_member_value(enum_type, i, &value) >= 0 &&
             std::string(name) == (value == 0 ? "FALSE" : "TRUE") && (value == 0 || value == 1);
        if (name != nullptr) H5free_memory(name);
    }
    H5Eclear2(H5E_DEFAULT);
    return ok;
}

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
inline std::string type_defect(hid_t type, H5T_class_t cls) {
    const std::size_t size = H5Tget_size(type);
    if (size == 0 || size > 16) return "an element size of " + std::to_string(size) + " bytes";
    const std::size_t bits = size * 8;
    const std::size_t precision = H5Tget_precision(type);
    const int offset = H5Tget_offset(type);
    const H5T_order_t order = H5Tget_order(type);
    if (order != H5T_ORDER_LE && order != H5T_ORDER_BE &&
        !(order == H5T_ORDER_VAX && cls == H5T_FLOAT && (size == 4 || size == 8))) {
        return "a byte order HDF5 cannot convert from";
    }
    if (precision == 0 || offset < 0 || static_cast<std::size_t>(offset) + precision > bits) {
        return "a precision of " + std::to_string(precision) + " bits at offset " + std::to_string(offset) + " in " +
               std::to_string(bits) + " bits";
    }
    if (cls == H5T_FLOAT) {
        std::size_t spos = 0, epos = 0, esize = 0, mpos = 0, msize = 0;
        if (H5Tget_fields(type, &spos, &epos, &esize, &mpos, &msize) < 0) return "unreadable float fields";
        const std::size_t lo = static_cast<std::size_t>(offset), hi = lo + precision;
        const bool ok = esize >= 1 && esize <= 32 && msize >= 1 && epos >= lo && epos + esize <= hi && mpos >= lo &&
                        mpos + msize <= hi && spos >= lo && spos < hi &&
                        (mpos + msize <= epos || epos + esize <= mpos) && (spos < mpos || spos >= mpos + msize) &&
                        (spos < epos || spos >= epos + esize);
        if (!ok) {
            return "float fields outside the element (sign " + std::to_string(spos) + ", exponent " +
                   std::to_string(epos) + "+" + std::to_string(esize) + ", mantissa " + std::to_string(mpos) + "+" +
                   std::to_string(msize) + " in " + std::to_string(bits) + " bits)";
        }
    }
    return {};
}

/// The integer type whose values a bitfield's bits are (same size, byte order, precision and
/// offset, unsigned): what reads convert bitfields from. Call with the lock held.
inline handle bitfield_as_integer(hid_t bitfield) {
    const std::size_t size = H5Tget_size(bitfield);
    const bool big = H5Tget_order(bitfield) == H5T_ORDER_BE;
    hid_t base = H5I_INVALID_HID;
    switch (size) {
        case 1:
            base = big ? H5T_STD_U8BE : H5T_STD_U8LE;
            break;
        case 2:
            base = big ? H5T_STD_U16BE : H5T_STD_U16LE;
            break;
        case 4:
            base = big ? H5T_STD_U32BE : H5T_STD_U32LE;
            break;
        case 8:
            base = big ? H5T_STD_U64BE : H5T_STD_U64LE;
            break;
        default:
            return {};
    }
    handle t(H5Tcopy(base), H5Tclose);
    if (!t.valid() || H5Tset_precision(t.get(), H5Tget_precision(bitfield)) < 0 ||
        H5Tset_offset(t.get(), static_cast<std::size_t>(H5Tget_offset(bitfield))) < 0) {
        H5Eclear2(H5E_DEFAULT);
        return {};
    }
    return t;
}

/// Describes a dataset's type; `defect` receives why it is unusable ("" if usable). Call with the
/// lock held.
inline element_type describe_type(hid_t type, std::string& defect) {
    element_type t;
    H5T_class_t cls = H5Tget_class(type);
    handle base;
    hid_t value_type = type;
    if (cls == H5T_ENUM) {
        base = handle(H5Tget_super(type), H5Tclose);
        if (!base.valid()) {
            defect = "an enum without a readable base type";
            return t;
        }
        value_type = base.get();
        cls = H5Tget_class(value_type);
        t.is_enum = true;
        t.via_base = true;
        t.is_bool = is_h5py_bool(type);
        if (cls != H5T_INTEGER) {
            defect = "an enum whose base is not an integer";
            return t;
        }
    }
    const std::size_t size = H5Tget_size(value_type);
    const bool big = H5Tget_order(value_type) == H5T_ORDER_BE;
    const std::string order = big ? "big-endian" : "little-endian";
    const std::string prefix = t.is_enum ? "enum of " : "";
    if (cls == H5T_BITFIELD) t.via_base = true;  // read as an unsigned integer of its size, as h5py does
    switch (cls) {
        case H5T_BITFIELD:
        case H5T_INTEGER: {
            defect = type_defect(value_type, H5T_INTEGER);
            const bool is_signed = cls == H5T_INTEGER && H5Tget_sign(value_type) == H5T_SGN_2;
            t.k = is_signed ? element_type::kind::signed_int : element_type::kind::unsigned_int;
            t.size = size;
            t.big_endian = big;
            t.numeric = defect.empty();
            const std::size_t precision = H5Tget_precision(value_type);
            t.precision = precision;
            t.raw = t.numeric && H5Tget_offset(value_type) == 0 && precision == size * 8 &&
                    (size == 1 || size == 2 || size == 4 || size == 8);
            t.text = prefix + std::to_string(size * 8) + "-bit " +
                     (cls == H5T_BITFIELD ? std::string("bitfield (read as unsigned integers)")
                                          : std::string(is_signed ? "signed" : "unsigned") + " integer");
            if (precision != size * 8) {
                t.text += " (" + std::to_string(precision) + " bits at offset " +
                          std::to_string(H5Tget_offset(value_type)) + ")";
            }
            t.text += ", " + order;
            break;
        }
        case H5T_FLOAT: {
            defect = type_defect(value_type, cls);
            const bool ieee = H5Tequal(value_type, H5T_IEEE_F32LE) > 0 || H5Tequal(value_type, H5T_IEEE_F32BE) > 0 ||
                              H5Tequal(value_type, H5T_IEEE_F64LE) > 0 || H5Tequal(value_type, H5T_IEEE_F64BE) > 0;
            // This platform's own long double (x86-64: 80 bits in 16 bytes), as C programs and
            // numpy's longdouble store it: copied as it is into long double.
            const bool own_long_double = sizeof(long double) > 8 && H5Tequal(value_type, H5T_NATIVE_LDOUBLE) > 0;
            t.k = element_type::kind::floating;
            t.size = size;
            t.big_endian = big;
            t.numeric = defect.empty();
            t.raw = t.numeric && (ieee || own_long_double);
            t.text = std::to_string(size * 8) + "-bit " + (ieee ? "" : "non-IEEE ") + "float, " + order;
            break;
        }
        case H5T_STRING:
            t.text = "string";
            break;
        case H5T_COMPOUND:
            t.text = "compound";
            break;
        case H5T_VLEN:
            t.text = "variable-length sequence";
            break;
        case H5T_ARRAY:
            t.text = "array";
            break;
        case H5T_OPAQUE:
            t.text = "opaque";
            break;
        case H5T_REFERENCE:
            t.text = "reference";
            break;
        case H5T_TIME:
            t.text = "time";
            break;
        default:
            t.text = "unknown type class";
            break;
    }
    H5Eclear2(H5E_DEFAULT);
    return t;
}

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
