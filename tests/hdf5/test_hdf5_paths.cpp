// One dataset, every read path, the same bits: for every type class chunkwise reads (integers of
// both byte orders and every width; floats of 16, 32, 64 and 80 bits in both byte orders; enums
// holding integers that are not members, h5py's bool, bitfields) and every layout (contiguous,
// whole-row chunks, chunks that split trailing axes, deflate, shuffle + deflate, chunks woven side
// by side, a filter only HDF5 decodes), each read through every path chunkwise has (the fast path,
// woven chunks, mapped copies, H5Dread under the lock, selected indices, a series of files,
// threads, conversions chunkwise does and conversions HDF5 does) as double, float, long double and
// integers must give the same values, and those values are HDF5's own for the stored numbers (read
// without conversion, then converted as numbers) and h5py's. Axes of extent 0 are read (and
// selected) as h5py reads them.
#include "catch.hpp"
#include "h5_compare.hpp"
#include "test_util.hpp"

#include <chunkwise/chunkwise.hpp>
#include <chunkwise/hdf5.hpp>

#include <hdf5.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

using chunkwise::block;
using chunkwise::parts;
namespace h5 = chunkwise::h5;
namespace fs = std::filesystem;

namespace {

/// A stored type and how to make values of it.
struct type_spec {
    std::string name;
    enum class klass { integer, floating, enumeration, bitfield } k;
    hid_t base;         // the integer or float type (an enum's base)
    bool bool_enum = false;  // h5py's bool: members 0 and 1 only
    bool h5py = true;        // compare with h5py too
};

/// IEEE half precision in `order` (HDF5 1.10 has no predefined one): what numpy's float16 is.
hid_t half_type(H5T_order_t order) {
    const hid_t t = H5Tcopy(H5T_IEEE_F32LE);
    H5Tset_fields(t, 15, 10, 5, 0, 10);
    H5Tset_precision(t, 16);
    H5Tset_size(t, 2);
    H5Tset_ebias(t, 15);
    H5Tset_order(t, order);
    return t;
}

/// The platform's long double (x86-64: 80 bits in 16 bytes) in `order`.
hid_t long_double_type(H5T_order_t order) {
    const hid_t t = H5Tcopy(H5T_NATIVE_LDOUBLE);
    H5Tset_order(t, order);
    return t;
}

const std::vector<type_spec>& type_specs() {
    using K = type_spec::klass;
    // Floats of every width: half, single, double, long double, both byte orders (h5py compares
    // the little-endian ones; numpy has no big-endian 80-bit float).
    static const std::vector<type_spec> all{
        {"u8", K::integer, H5T_STD_U8LE},          {"i16be", K::integer, H5T_STD_I16BE},
        {"u16le", K::integer, H5T_STD_U16LE},      {"i32be", K::integer, H5T_STD_I32BE},
        {"i64le", K::integer, H5T_STD_I64LE},      {"u64be", K::integer, H5T_STD_U64BE, false, false},
        {"f32le", K::floating, H5T_IEEE_F32LE},    {"f32be", K::floating, H5T_IEEE_F32BE},
        {"f64be", K::floating, H5T_IEEE_F64BE},    {"enum_u16be", K::enumeration, H5T_STD_U16BE},
        {"enum_i8", K::enumeration, H5T_STD_I8LE, true}, {"bitfield_b8", K::bitfield, H5T_STD_B8LE},
        {"bitfield_b16be", K::bitfield, H5T_STD_B16BE},
        {"f16le", K::floating, half_type(H5T_ORDER_LE)},   {"f16be", K::floating, half_type(H5T_ORDER_BE)},
        {"f64le", K::floating, H5T_IEEE_F64LE},
        {"ldle", K::floating, long_double_type(H5T_ORDER_LE)},
        {"ldbe", K::floating, long_double_type(H5T_ORDER_BE), false, false},
    };
    return all;
}

/// A storage layout.
struct layout_spec {
    std::string name;
    std::vector<hsize_t> chunk;  // empty: contiguous
    bool deflate = false, shuffle = false, fletcher32 = false;
};

const std::vector<hsize_t> shape{23, 6, 3};

const std::vector<layout_spec>& layout_specs() {
    static const std::vector<layout_spec> all{
        {"contiguous", {}},
        {"rows", {5, 6, 3}},
        {"split", {4, 4, 2}},
        {"deflate", {4, 4, 2}, true},
        {"shuffle+deflate", {5, 6, 3}, true, true},
        {"woven", {7, 6, 1}},
        {"woven+deflate", {7, 6, 1}, true, true},
        {"fletcher32", {4, 6, 3}, false, false, true},  // only HDF5 decodes it: H5Dread under the lock
    };
    return all;
}

/// The dataset's file type.
hid_t make_file_type(const type_spec& t) {
    if (t.k == type_spec::klass::enumeration) {
        const hid_t e = H5Tenum_create(t.base);
        const std::size_t size = H5Tget_size(t.base);
        std::vector<unsigned char> v(size, 0);
        // Members 0 and 1 (h5py's FALSE and TRUE), in the base type's byte order.
        const bool big = H5Tget_order(t.base) == H5T_ORDER_BE;
        H5Tenum_insert(e, t.bool_enum ? "FALSE" : "ZERO", v.data());
        v[big ? size - 1 : 0] = 1;
        H5Tenum_insert(e, t.bool_enum ? "TRUE" : "ONE", v.data());
        return e;
    }
    return H5Tcopy(t.base);
}

/// Stored bytes of `n` elements in the file type's own representation.
std::vector<unsigned char> stored_values(const type_spec& t, std::size_t n, std::uint64_t seed) {
    const std::size_t size = H5Tget_size(t.base);
    std::vector<unsigned char> bytes(n * size);
    std::mt19937_64 rng(seed);
    if (t.k == type_spec::klass::floating) {
        std::vector<double> v(n);
        for (double& x : v) x = std::ldexp(static_cast<double>(static_cast<std::int64_t>(rng() >> 11)) / 9007199254740992.0,
                                           static_cast<int>(rng() % 40) - 20);
        std::vector<unsigned char> tmp(n * std::max<std::size_t>(size, 8));
        std::memcpy(tmp.data(), v.data(), n * 8);
        H5Tconvert(H5T_NATIVE_DOUBLE, t.base, n, tmp.data(), nullptr, H5P_DEFAULT);
        std::memcpy(bytes.data(), tmp.data(), bytes.size());
    } else if (t.bool_enum) {
        for (auto& b : bytes) b = static_cast<unsigned char>(rng() % 2);
    } else {
        // Any bits: enums get integers that are not members, integers the whole range.
        for (auto& b : bytes) b = static_cast<unsigned char>(rng());
    }
    return bytes;
}

/// Writes dataset `name` of `rows` rows (the stored bytes given) with `layout` into `file`.
void write_stored(const fs::path& file, const std::string& name, const type_spec& t, const layout_spec& l,
                  const std::vector<hsize_t>& dims, const unsigned char* bytes) {
    const hid_t f = fs::exists(file) ? H5Fopen(file.c_str(), H5F_ACC_RDWR, H5P_DEFAULT)
                                     : H5Fcreate(file.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    REQUIRE(f >= 0);
    const hid_t type = make_file_type(t);
    const hid_t space = H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr);
    const hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    if (!l.chunk.empty()) {
        H5Pset_chunk(dcpl, static_cast<int>(l.chunk.size()), l.chunk.data());
        if (l.shuffle) H5Pset_shuffle(dcpl);
        if (l.deflate) H5Pset_deflate(dcpl, 3);
        if (l.fletcher32) H5Pset_fletcher32(dcpl);
    }
    const hid_t d = H5Dcreate2(f, name.c_str(), type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    REQUIRE(d >= 0);
    std::size_t n = 1;
    for (hsize_t x : dims) n *= x;
    if (n > 0) REQUIRE(H5Dwrite(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, bytes) >= 0);  // no conversion
    H5Dclose(d);
    H5Pclose(dcpl);
    H5Sclose(space);
    H5Tclose(type);
    H5Fclose(f);
}

/// The reference: the stored numbers as HDF5 reads them without any conversion, then converted
/// to T as numbers (HDF5's integer and float rules): what H5Dread gives for plain numbers, and
/// what h5py gives for enums and bitfields.
template <class T>
std::vector<T> reference(const fs::path& file, const std::string& name) {
    const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    const hid_t d = H5Dopen2(f, name.c_str(), H5P_DEFAULT);
    const hid_t type = H5Dget_type(d);
    const hid_t space = H5Dget_space(d);
    const std::size_t n = static_cast<std::size_t>(H5Sget_simple_extent_npoints(space));
    hid_t number = -1;
    if (H5Tget_class(type) == H5T_ENUM) {
        number = H5Tget_super(type);
    } else if (H5Tget_class(type) == H5T_BITFIELD) {
        number = H5Tcopy(H5Tget_size(type) == 1 ? H5T_STD_U8LE : H5T_STD_U16LE);
        H5Tset_order(number, H5Tget_order(type));
    } else {
        number = H5Tcopy(type);
    }
    std::vector<unsigned char> buf(n * std::max(H5Tget_size(type), sizeof(T)) + 1);
    if (n > 0) {
        REQUIRE(H5Dread(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf.data()) >= 0);
        REQUIRE(H5Tconvert(number, chunkwise::h5::detail::native_type<T>(), n, buf.data(), nullptr, H5P_DEFAULT) >= 0);
    }
    std::vector<T> out(n);
    if (n > 0) std::memcpy(out.data(), buf.data(), n * sizeof(T));
    H5Tclose(number);
    H5Sclose(space);
    H5Tclose(type);
    H5Dclose(d);
    H5Fclose(f);
    return out;
}

template <class T>
bool same_bits(const T* a, const T* b, std::size_t n) {
    if constexpr (std::is_same_v<T, long double>) {
        // The value's own bytes only (x86-64: 10 of 16; the rest is padding nobody writes).
        constexpr std::size_t used = std::numeric_limits<long double>::digits == 64 ? 10 : sizeof(long double);
        for (std::size_t i = 0; i < n; ++i) {
            if (std::memcmp(a + i, b + i, used) != 0) return false;
        }
        return true;
    } else {
        return n == 0 || std::memcmp(a, b, n * sizeof(T)) == 0;
    }
}

/// Rows [b.begin, b.end) of the row-major reference (rows of `row` elements).
template <class T>
std::vector<T> rows_of(const std::vector<T>& all, const block& b, std::size_t row) {
    return std::vector<T>(all.begin() + static_cast<std::ptrdiff_t>(b.begin * row),
                          all.begin() + static_cast<std::ptrdiff_t>(b.end * row));
}

/// The reference selection: rows of b, indices `idx` on axis `axis` of a (rows, 6, 3) array.
template <class T>
std::vector<T> selection_of(const std::vector<T>& all, const block& b, std::size_t axis,
                            const std::vector<std::size_t>& idx) {
    std::vector<T> out;
    for (std::size_t r = b.begin; r < b.end; ++r) {
        if (axis == 1) {
            for (std::size_t i : idx)
                for (std::size_t c = 0; c < shape[2]; ++c) out.push_back(all[(r * shape[1] + i) * shape[2] + c]);
        } else {
            for (std::size_t a = 0; a < shape[1]; ++a)
                for (std::size_t i : idx) out.push_back(all[(r * shape[1] + a) * shape[2] + i]);
        }
    }
    return out;
}

/// Every path over one dataset, read as T.
template <class T>
void every_path(const fs::path& file, const fs::path& part_a, const fs::path& part_b, const std::string& name) {
    const std::vector<T> all = reference<T>(file, name);
    const std::size_t row = shape[1] * shape[2];
    h5::dataset ds(file, name, chunkwise::read_options{.convert = true});  // H5Dread's conversions, compared
    const std::vector<std::vector<block>> partitions{h5::partition(ds, parts{1}), h5::partition(ds, parts{3}),
                                                     chunkwise::partition(shape[0], parts{5})};
    for (const auto& blocks : partitions) {
        for (const block& b : blocks) {
            INFO("rows [" << b.begin << ", " << b.end << ")");
            const std::vector<T> expect = rows_of(all, b, row);
            // The path chunkwise picks (fast, woven, or H5Dread), into a tensor, an xarray, a span.
            const auto t = ds.read<T, 3>(b);
            REQUIRE(same_bits(t.data(), expect.data(), expect.size()));
            const auto a = ds.read<T>(b);
            REQUIRE(same_bits(a.data(), expect.data(), expect.size()));
            // The same through mappings of the file (every uncompressed piece, whatever its size).
            std::vector<T> mapped(expect.size());
            {
                test::forced_mapping every_piece(1);
                ds.read_into(b, std::span<T>(mapped));
            }
            REQUIRE(same_bits(mapped.data(), expect.data(), expect.size()));
            // Selected indices on both axes, in any order, with duplicates, and none at all.
            for (std::size_t axis : {1u, 2u}) {
                const std::vector<std::size_t> idx =
                    axis == 1 ? std::vector<std::size_t>{5, 0, 3, 3} : std::vector<std::size_t>{2, 0};
                const auto sel = ds.read<T, 3>(b, h5::indices{axis, idx});
                const std::vector<T> want = selection_of(all, b, axis, idx);
                REQUIRE(sel.size() == want.size());
                REQUIRE(same_bits(sel.data(), want.data(), want.size()));
                const auto none = ds.read<T, 3>(b, h5::indices{axis, {}});
                REQUIRE(none.size() == 0);
                REQUIRE(none.shape()[0] == b.size());
            }
        }
        // Threads, each block on any of them.
        chunkwise::thread_policy pool(3);
        const auto values = chunkwise::gather(pool, chunkwise::map_blocks(pool, blocks, [&](const block& b) {
                                                  std::vector<T> v(b.size() * row);
                                                  ds.read_into(b, std::span<T>(v));
                                                  return v;
                                              }));
        for (std::size_t i = 0; i < blocks.size(); ++i) {
            const std::vector<T> expect = rows_of(all, blocks[i], row);
            REQUIRE(same_bits(values[i].data(), expect.data(), expect.size()));
        }
    }
    // A series of two files holding the same rows, split across them.
    h5::dataset_series series({part_a, part_b}, name, chunkwise::read_options{.convert = true});
    for (const block& b : {block{0, 0, shape[0]}, block{1, 3, 17}, block{2, 9, 12}}) {
        const auto s = series.read<T, 3>(b);
        const std::vector<T> expect = rows_of(all, b, row);
        REQUIRE(same_bits(s.data(), expect.data(), expect.size()));
        const auto sel = series.read<T, 3>(b, h5::indices{1, {4, 1}});
        const std::vector<T> want = selection_of(all, b, 1, {4, 1});
        REQUIRE(same_bits(sel.data(), want.data(), want.size()));
    }
}

/// h5py's values of a dataset (float64 or int64, as the dump writes them).
template <class W>
std::vector<W> h5py_values(const fs::path& file, const std::string& name) {
    const fs::path out = file.parent_path() / (name + ".h5py");
    const std::string command = std::string(CHUNKWISE_TEST_PYTHON) + " " + CHUNKWISE_TEST_SUPPORT_DIR +
                                "/h5py_shapes.py dump " + file.string() + " " + name + " " + out.string();
    REQUIRE(std::system(command.c_str()) == 0);
    std::ifstream in(out, std::ios::binary);
    std::vector<W> v(fs::file_size(out) / sizeof(W));
    in.read(reinterpret_cast<char*>(v.data()), static_cast<std::streamsize>(v.size() * sizeof(W)));
    return v;
}

}  // namespace

TEST_CASE("every read path gives the same bits, for every type class and layout", "[hdf5][paths]") {
    const auto dir = test::scratch("paths");
    std::size_t n = 1;
    for (hsize_t x : shape) n *= x;
    const std::size_t split = 10;  // the series: rows [0, 10) in one file, [10, 23) in the other
    const std::uint64_t woven_before = h5::detail::woven_groups().load();
    for (const type_spec& t : type_specs()) {
        const std::vector<unsigned char> bytes = stored_values(t, n, std::hash<std::string>{}(t.name));
        const std::size_t esize = H5Tget_size(t.base);
        const fs::path file = dir / (t.name + ".h5"), a = dir / (t.name + "-a.h5"), b = dir / (t.name + "-b.h5");
        for (const layout_spec& l : layout_specs()) {
            write_stored(file, l.name, t, l, shape, bytes.data());
            std::vector<hsize_t> first = shape, second = shape;
            first[0] = split;
            second[0] = shape[0] - split;
            write_stored(a, l.name, t, l, first, bytes.data());
            write_stored(b, l.name, t, l, second, bytes.data() + split * shape[1] * shape[2] * esize);
        }
        for (const layout_spec& l : layout_specs()) {
            INFO(t.name << " stored " << l.name);
            // Read as every T: its own representation (copied, woven, mapped), wider types
            // (converted by chunkwise), narrower ones (converted by HDF5 under the lock).
            every_path<double>(file, a, b, l.name);
            every_path<std::int64_t>(file, a, b, l.name);
            every_path<std::uint16_t>(file, a, b, l.name);
            every_path<std::int8_t>(file, a, b, l.name);
            every_path<float>(file, a, b, l.name);
            if (t.k == type_spec::klass::floating) every_path<long double>(file, a, b, l.name);
        }
        if (t.h5py) {
            // h5py reads the same numbers (enums and bitfields as their integers), converted to
            // float64 or int64 by the dump as chunkwise converts them when asked.
            INFO(t.name << " against h5py");
            const chunkwise::read_options convert{.convert = true};
            if (t.k == type_spec::klass::floating) {
                const auto mine = h5::dataset(file, "rows", convert).read<double>(block{0, 0, shape[0]});
                const auto theirs = h5py_values<double>(file, "rows");
                REQUIRE(theirs.size() == n);
                REQUIRE(same_bits(mine.data(), theirs.data(), n));
            } else {
                for (const std::string layout : {"contiguous", "woven+deflate", "fletcher32"}) {
                    const auto mine = h5::dataset(file, layout, convert).read<std::int64_t>(block{0, 0, shape[0]});
                    const auto theirs = h5py_values<std::int64_t>(file, layout);
                    REQUIRE(theirs.size() == n);
                    REQUIRE(same_bits(mine.data(), theirs.data(), n));
                }
            }
        }
    }
    // The woven path did run (native-representation reads of one-wide chunks).
    REQUIRE(h5::detail::woven_groups().load() > woven_before);
    fs::remove_all(dir);
}

TEST_CASE("axes of extent 0: whole rows, selected indices and series read as h5py reads them", "[hdf5][paths]") {
    const auto dir = test::scratch("paths-empty");
    const type_spec& t = type_specs()[6];  // f32le
    const std::vector<hsize_t> empty{10, 0, 3};
    for (const layout_spec& l : {layout_spec{"contiguous", {}}, layout_spec{"chunked", {4, 2, 3}},
                                 layout_spec{"deflate", {4, 2, 3}, true}}) {
        INFO(l.name);
        write_stored(dir / "e.h5", l.name, t, l, empty, nullptr);
        write_stored(dir / "e2.h5", l.name, t, l, empty, nullptr);
        h5::dataset ds(dir / "e.h5", l.name);
        const auto whole = ds.read<float, 3>(block{0, 0, 10});
        REQUIRE(whole.shape() == std::array<std::size_t, 3>{10, 0, 3});
        const auto none = ds.read<float, 3>(block{0, 2, 7}, h5::indices{1, {}});
        REQUIRE(none.shape() == std::array<std::size_t, 3>{5, 0, 3});
        const auto other_axis = ds.read<float, 3>(block{0, 2, 7}, h5::indices{2, {2, 0}});
        REQUIRE(other_axis.shape() == std::array<std::size_t, 3>{5, 0, 2});
        std::vector<float> buffer;
        ds.read_into(block{0, 0, 10}, h5::indices{1, {}}, std::span<float>(buffer));
        REQUIRE_THROWS_AS((ds.read<float, 3>(block{0, 0, 10}, h5::indices{1, {0}})), h5::error);
        h5::dataset_series series({dir / "e.h5", dir / "e2.h5"}, l.name);
        const auto s = series.read<float, 3>(block{0, 5, 15}, h5::indices{1, {}});
        REQUIRE(s.shape() == std::array<std::size_t, 3>{10, 0, 3});
        REQUIRE(h5::partition(ds, parts{3}).size() == 3);
    }
    fs::remove_all(dir);
}

TEST_CASE("variable-length records of enums and bitfields read as their integers", "[hdf5][paths]") {
    const auto dir = test::scratch("paths-vlen");
    const fs::path file = dir / "v.h5";
    {
        const hid_t f = H5Fcreate(file.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
        for (const type_spec& t : type_specs()) {
            if (t.k != type_spec::klass::enumeration && t.k != type_spec::klass::bitfield) continue;
            const hid_t elem = make_file_type(t);
            const hid_t vt = H5Tvlen_create(elem);
            const hsize_t n = 3;
            const hid_t space = H5Screate_simple(1, &n, nullptr);
            const hid_t d = H5Dcreate2(f, t.name.c_str(), vt, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
            const std::vector<unsigned char> bytes = stored_values(t, 5, 7);
            hvl_t recs[3] = {{2, const_cast<unsigned char*>(bytes.data())},
                             {0, nullptr},
                             {3, const_cast<unsigned char*>(bytes.data() + 2 * H5Tget_size(elem))}};
            REQUIRE(H5Dwrite(d, vt, H5S_ALL, H5S_ALL, H5P_DEFAULT, recs) >= 0);
            H5Dclose(d);
            H5Sclose(space);
            H5Tclose(vt);
            H5Tclose(elem);
        }
        H5Fclose(f);
    }
    for (const type_spec& t : type_specs()) {
        if (t.k != type_spec::klass::enumeration && t.k != type_spec::klass::bitfield) continue;
        INFO(t.name);
        h5::dataset ds(file, t.name);
        REQUIRE(ds.is_ragged());
        const auto r = ds.read_ragged<std::int64_t>(block{0, 0, 3});
        REQUIRE(r.size() == 3);
        REQUIRE(r.offsets() == std::vector<std::size_t>{0, 2, 2, 5});
        // The stored integers, converted as numbers.
        const std::vector<unsigned char> bytes = stored_values(t, 5, 7);
        const std::size_t size = H5Tget_size(t.base);
        std::vector<unsigned char> buf(5 * 8);
        std::memcpy(buf.data(), bytes.data(), 5 * size);
        hid_t number = t.k == type_spec::klass::enumeration ? H5Tcopy(t.base)
                                                            : H5Tcopy(size == 1 ? H5T_STD_U8LE : H5T_STD_U16BE);
        REQUIRE(H5Tconvert(number, H5T_NATIVE_INT64, 5, buf.data(), nullptr, H5P_DEFAULT) >= 0);
        H5Tclose(number);
        std::vector<std::int64_t> want(5);
        std::memcpy(want.data(), buf.data(), 40);
        REQUIRE(r.values() == want);
        // read points to read_ragged, and read_ragged never points back in a circle.
        REQUIRE_THROWS_WITH(ds.read<double>(block{0, 0, 1}), Catch::Matchers::Contains("read them with read_ragged"));
    }
    fs::remove_all(dir);
}

TEST_CASE("a truncated file in a series: the error says what HDF5 says, never ends in a colon", "[hdf5][paths]") {
    const auto dir = test::scratch("paths-truncated");
    const type_spec& t = type_specs()[6];
    std::vector<unsigned char> bytes = stored_values(t, 23 * 6 * 3, 1);
    write_stored(dir / "a.h5", "rows", t, layout_specs()[1], shape, bytes.data());
    write_stored(dir / "b.h5", "rows", t, layout_specs()[1], shape, bytes.data());
    fs::resize_file(dir / "b.h5", fs::file_size(dir / "b.h5") / 3);
    for (int attempt = 0; attempt < 2; ++attempt) {
        try {
            if (attempt == 0) {
                h5::dataset_series series({dir / "a.h5", dir / "b.h5"}, "rows");
            } else {
                h5::dataset ds(dir / "b.h5", "rows");
            }
            FAIL("a truncated file was opened");
        } catch (const h5::error& e) {
            const std::string w = e.what();
            INFO(w);
            REQUIRE(w.find("b.h5") != std::string::npos);
            REQUIRE(w.find("cannot open as an HDF5 file") != std::string::npos);
            REQUIRE(w.find(" bytes)") != std::string::npos);
            REQUIRE(w.back() != ' ');
            REQUIRE(w.substr(w.size() - 2) != ": ");
            REQUIRE(w.substr(w.size() - 1) != ":");
        }
    }
    fs::remove_all(dir);
}
