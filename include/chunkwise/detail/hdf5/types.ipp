// The definitions of chunkwise/detail/hdf5/types.hpp's functions that are not templates: included at the end
// of that header (header-only, the default), or compiled once into the hdf5 library
// (CHUNKWISE_HDF5_SEPARATE_COMPILATION; docs/installing.md, "Header-only or compiled").
#pragma once

namespace chunkwise::h5::detail {

CHUNKWISE_HDF5_DECL bool is_h5py_bool(hid_t enum_type) {
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

CHUNKWISE_HDF5_DECL std::string type_defect(hid_t type, H5T_class_t cls) {
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

CHUNKWISE_HDF5_DECL handle bitfield_as_integer(hid_t bitfield) {
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

CHUNKWISE_HDF5_DECL element_type describe_type(hid_t type, std::string& defect) {
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

}  // namespace chunkwise::h5::detail
