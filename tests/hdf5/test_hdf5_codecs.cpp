// Every codec chunkwise decodes in the worker (detail/hdf5/filters/), on files h5py writes through
// Debian's HDF5 filter plugins (tests/support/h5py_codecs.py): LZ4, bzip2, Blosc with each codec
// and shuffle, bitshuffle (none, LZ4, Zstandard inside), LZF, Fletcher-32, Zstandard. Each read
// equals H5Dread (or, where this HDF5 has no plugin for the filter, the values h5py stored beside
// it without filters) on 1, 3 and 8 threads (ThreadSanitizer runs this test); damaged chunks of
// every codec (cut, headers altered, bytes flipped) are an h5::error or values, never a crash or
// an overread (AddressSanitizer runs it too), and cut chunks are always an h5::error; a filter
// that neither chunkwise nor HDF5 can decode is an h5::error naming its plugin; a sweep of every
// plugin's parameters over their range (block sizes, levels, shuffles, compressors) on chunks of
// 1 byte to 4 MiB reads what h5py stored, with scratch bounded by the chunk.
#include "catch.hpp"
#include "h5_compare.hpp"
#include "h5_files.hpp"

#include <chunkwise/chunkwise.hpp>
#include <chunkwise/hdf5.hpp>
#if defined(CHUNKWISE_USE_ZSTD)
#include <zstd.h>
#endif

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <new>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

using Catch::Matchers::Contains;
using chunkwise::block;
namespace h5 = chunkwise::h5;
namespace fs = std::filesystem;

namespace {

const std::string script = std::string(CHUNKWISE_TEST_SUPPORT_DIR) + "/h5py_codecs.py";

// The folder of h5py-written files (codecs.h5, codecs.txt), made once per process.
const fs::path& files() {
    static const fs::path dir = [] {
        fs::path d = test::scratch("codecs");
        const std::string command = std::string(CHUNKWISE_TEST_PYTHON) + " " + script + " write " + d.string();
        REQUIRE(std::system(command.c_str()) == 0);
        return d;
    }();
    return dir;
}

std::vector<std::string> dataset_names() {
    std::ifstream in(files() / "codecs.txt");
    std::vector<std::string> names;
    for (std::string line; std::getline(in, line);) {
        if (!line.empty()) names.push_back(line);
    }
    return names;
}

bool contains(const std::string& text, const char* part) { return text.find(part) != std::string::npos; }

#if defined(CHUNKWISE_USE_LZ4)
constexpr bool built_lz4 = true;
#else
constexpr bool built_lz4 = false;
#endif
#if defined(CHUNKWISE_USE_ZSTD)
constexpr bool built_zstd = true;
#else
constexpr bool built_zstd = false;
#endif
#if defined(CHUNKWISE_USE_BLOSC)
constexpr bool built_blosc = true;
#else
constexpr bool built_blosc = false;
#endif
#if defined(CHUNKWISE_USE_BZIP2)
constexpr bool built_bzip2 = true;
#else
constexpr bool built_bzip2 = false;
#endif

/// Whether this build decodes `name`'s filters itself (the codec libraries it was built with).
bool decoded_here(const std::string& name) {
    return (built_lz4 || !contains(name, "lz4")) && (built_zstd || !contains(name, "zstd")) &&
           (built_blosc || !contains(name, "blosc")) && (built_bzip2 || !contains(name, "bzip2"));
}

/// The values of `name` as doubles: H5Dread's, or (no plugin here) those stored beside it.
std::vector<double> reference(const fs::path& file, const std::string& name) {
    h5::dataset ds(file, name);
    if (auto v = test::try_h5dread<double>(file, name, H5T_NATIVE_DOUBLE, 0, ds.shape()[0])) return *v;
    return test::h5dread_rows<double>(file, name + ".expect", H5T_NATIVE_DOUBLE, 0, ds.shape()[0]);
}

/// Reads `name` in blocks of one row on `threads` threads; each block must equal `expect`.
void read_in_blocks(const h5::dataset& ds, const std::vector<double>& expect, std::size_t threads) {
    chunkwise::thread_policy pool(threads);
    const std::size_t rows = ds.shape()[0], row = expect.size() / rows;
    const auto blocks = chunkwise::partition(rows, chunkwise::parts{rows});
    auto parts = chunkwise::gather(pool, chunkwise::map_blocks(pool, blocks, [&](const block& b) {
                                       std::vector<double> v(b.size() * row);
                                       ds.read_into(b, std::span<double>(v));
                                       return v;
                                   }));
    for (std::size_t k = 0; k < blocks.size(); ++k) {
        INFO("row " << blocks[k].begin << ", " << threads << " threads");
        REQUIRE(std::memcmp(parts[k].data(), expect.data() + blocks[k].begin * row, parts[k].size() * sizeof(double)) == 0);
    }
}

/// The stored bytes of chunk 0 of `name`, and its filter mask.
std::vector<unsigned char> raw_chunk(const fs::path& file, const std::string& name, std::uint32_t& mask) {
    const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    const hid_t d = H5Dopen2(f, name.c_str(), H5P_DEFAULT);
    const hsize_t at[3] = {0, 0, 0};
    hsize_t size = 0;
    REQUIRE(H5Dget_chunk_storage_size(d, at, &size) >= 0);
    std::vector<unsigned char> bytes(static_cast<std::size_t>(size));
    REQUIRE(h5::detail::direct_read_chunk(d, at, &mask, bytes.data(), bytes.size()) >= 0);  // H5Dread_chunk of each API
    H5Dclose(d);
    H5Fclose(f);
    return bytes;
}

/// Writes `bytes` as chunk 0 of `name` in `file`.
void put_chunk(const fs::path& file, const std::string& name, const std::vector<unsigned char>& bytes,
               std::uint32_t mask) {
    const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    const hid_t d = H5Dopen2(f, name.c_str(), H5P_DEFAULT);
    const hsize_t at[3] = {0, 0, 0};
    REQUIRE(H5Dwrite_chunk(d, H5P_DEFAULT, mask, at, bytes.size(), bytes.data()) >= 0);
    H5Dclose(d);
    H5Fclose(f);
}

}  // namespace

TEST_CASE("every codec is decoded in the worker to H5Dread's values, on 1, 3 and 8 threads", "[hdf5][codecs]") {
    const fs::path file = files() / "codecs.h5";
    const auto names = dataset_names();
    REQUIRE(names.size() >= 30);
    for (const auto& name : names) {
        INFO(name);
        h5::dataset ds(file, name);
        const auto expect = reference(file, name);
        // The values h5py stored without filters are H5Dread's too, where H5Dread can decode.
        REQUIRE(expect == test::h5dread_rows<double>(file, name + ".expect", H5T_NATIVE_DOUBLE, 0, ds.shape()[0]));
        REQUIRE(ds.decodes_in_worker<double>() == decoded_here(name));
        const auto whole = ds.read<double>(block{0, 0, ds.shape()[0]});
        REQUIRE(std::memcmp(whole.data(), expect.data(), expect.size() * sizeof(double)) == 0);
        for (std::size_t threads : {1u, 3u, 8u}) read_in_blocks(ds, expect, threads);
    }
    // The filters' names, as users see them.
    REQUIRE(h5::dataset(file, "/lz4_shuffle_fletcher").filters() ==
            std::vector<std::string>{"shuffle", "lz4", "fletcher32"});
    REQUIRE(h5::dataset(file, "/blosc_zstd_2").filters() == std::vector<std::string>{"blosc"});
    REQUIRE(h5::dataset(file, "/bitshuffle_zstd").filters() == std::vector<std::string>{"bitshuffle"});
}

TEST_CASE("damaged chunks of every codec: an h5::error or values, never a crash; cut chunks an h5::error",
          "[hdf5][codecs][fuzz]") {
    const fs::path file = files() / "codecs.h5";
    const fs::path copy = files() / "damaged.h5";
    std::mt19937_64 rng(20261125);
    std::size_t errors = 0, reads = 0;
    for (const auto& name : dataset_names()) {
        if (!decoded_here(name)) continue;
        std::uint32_t mask = 0;
        const auto pristine = raw_chunk(file, name, mask);
        for (int how = 0; how < 9; ++how) {
            INFO(name << ", damage " << how);
            auto bytes = pristine;
            bool must_fail = false;
            if (how == 0) {  // cut in half
                bytes.resize(bytes.size() / 2);
                must_fail = true;
            } else if (how == 1) {  // cut to a few bytes
                bytes.resize(std::min<std::size_t>(bytes.size(), 5));
                must_fail = true;
            } else if (how == 2) {  // the first 16 bytes (codec headers) overwritten
                for (std::size_t i = 0; i < std::min<std::size_t>(16, bytes.size()); ++i)
                    bytes[i] = static_cast<unsigned char>(rng());
            } else if (how == 3) {  // a size field made huge
                for (std::size_t i = 0; i < std::min<std::size_t>(8, bytes.size()); ++i) bytes[i] = 0x7f;
            } else if (how == 4) {  // zeros
                std::fill(bytes.begin(), bytes.end(), 0);
            } else {  // bytes flipped anywhere
                for (int k = 0; k < 1 + how; ++k) bytes[rng() % bytes.size()] ^= static_cast<unsigned char>(1 + rng() % 255);
            }
            std::filesystem::copy_file(file, copy, std::filesystem::copy_options::overwrite_existing);
            put_chunk(copy, name, bytes, mask);
            ++reads;
            try {
                h5::dataset ds(copy, name);
                chunkwise::thread_policy pool(2);
                const auto blocks = chunkwise::partition(ds.shape()[0], chunkwise::parts{2});
                (void)chunkwise::gather(pool, chunkwise::map_blocks(pool, blocks, [&](const block& b) {
                                            return ds.read<double>(b);
                                        }));
                REQUIRE_FALSE(must_fail);
            } catch (const chunkwise::block_error& e) {
                REQUIRE_THROWS_AS(std::rethrow_exception(e.original()), h5::error);
                ++errors;
            } catch (const h5::error&) {
                ++errors;
            }
        }
    }
    std::printf("codecs: %zu damaged chunks read, %zu h5::error, 0 crashes\n", reads, errors);
    REQUIRE(errors >= reads / 3);
    // A Fletcher-32 mismatch is the error H5Dread reports, naming the chunk.
    std::uint32_t mask = 0;
    auto bytes = raw_chunk(file, "/fletcher32", mask);
    bytes[3] ^= 0x40;
    std::filesystem::copy_file(file, copy, std::filesystem::copy_options::overwrite_existing);
    put_chunk(copy, "/fletcher32", bytes, mask);
    REQUIRE_THROWS_WITH(h5::dataset(copy, "/fletcher32").read<float>(block{0, 0, 4}),
                        Contains("chunk at (0, 0, 0)") && Contains("data error detected by Fletcher32 checksum"));
    REQUIRE_FALSE(test::try_h5dread<float>(copy, "/fletcher32", H5T_NATIVE_FLOAT, 0, 4).has_value());
}

TEST_CASE("an installed plugin shown to be safe decodes in the worker where asked", "[hdf5][codecs]") {
    // Run with CHUNKWISE_HDF5_PLUGIN_FIRST=32000 as hdf5_codecs.plugin (then also under TSan with 8
    // threads and under ASan with damaged chunks, by the cases above): Debian's LZF plugin instead
    // of chunkwise's own LZF codec; without it, or where no LZF plugin is installed, the codec.
    const fs::path file = files() / "codecs.h5";
    hbool_t threadsafe = false;
    H5is_library_threadsafe(&threadsafe);
    // HDF5's own plugin search says whether an LZF plugin is installed for this HDF5 (Debian's
    // plugins are built for its 1.10; a release built from source has none).
    const bool installed = H5Zfilter_avail(32000) > 0;
#if H5_VERS_MAJOR == 1 && H5_VERS_MINOR == 10
    // Debian's HDF5: the test command installs hdf5-plugin-lzf for it.
    if (h5::detail::plugin_first(32000)) REQUIRE(installed);
#endif
    const bool plugin = h5::detail::plugin_first(32000) && threadsafe && installed;
    const auto before = h5::detail::plugin_decodes().load();
    for (const char* name : {"/lzf", "/lzf_shuffle"}) {
        INFO(name);
        h5::dataset ds(file, name);
        REQUIRE(ds.decodes_in_worker<double>());
        const auto expect = reference(file, name);
        const auto got = ds.read<double>(block{0, 0, ds.shape()[0]});
        REQUIRE(std::memcmp(got.data(), expect.data(), expect.size() * sizeof(double)) == 0);
    }
    REQUIRE((h5::detail::plugin_decodes().load() > before) == plugin);
    // Only plugins on the list run in the worker: LZ4's (it trusts damaged data) never does.
    REQUIRE(h5::detail::plugin_safe_in_worker(32000));
    REQUIRE_FALSE(h5::detail::plugin_safe_in_worker(32004));
    REQUIRE_FALSE(h5::detail::plugin_safe_in_worker(307));
}

namespace {

/// The value bytes of one T (long double: its 10 bytes of 80-bit value, not the padding).
template <class T>
constexpr std::size_t value_bytes() {
    if constexpr (std::is_same_v<T, long double>) {
        return std::numeric_limits<long double>::digits == 64 ? 10 : sizeof(long double);
    } else {
        return sizeof(T);
    }
}

/// Writes `a` as T with every codec option (partial edge chunks included), reads it back with
/// chunkwise and with h5py (through Debian's plugins; in T's own width), to the bit.
template <class T>
void write_every_codec(const fs::path& dir, const char* type) {
    const auto file = dir / (std::string(type) + ".h5");
    xt::xtensor<T, 3> a = xt::xtensor<T, 3>::from_shape({37, 200, 3});
    for (std::size_t i = 0; i < a.size(); ++i) {
        a.data()[i] = static_cast<T>(static_cast<int>((i * 7919) % 5003)) * static_cast<T>(0.01) - static_cast<T>(20);
    }
    struct option {
        const char* name;
        const char* codec;
        bool shuffle;
        int deflate;
        bool built;
    };
    const bool lz4 = built_lz4, zstd = built_zstd, blosc = built_blosc;
    const option options[] = {{"/none", "", false, 0, true},           {"/deflate", "", false, 4, true},
                              {"/shuffle_deflate", "", true, 1, true}, {"/lz4", "lz4", false, 0, lz4},
                              {"/lz4_shuffle", "lz4", true, 0, lz4},   {"/zstd", "zstd", false, 0, zstd},
                              {"/zstd_shuffle", "zstd", true, 0, zstd}, {"/blosc", "blosc", true, 0, blosc},
                              {"/blosc_zstd", "blosc:zstd", false, 0, blosc},
                              {"/blosc_lz4hc", "blosc:lz4hc", true, 0, blosc}};
    for (const option& o : options) {
        INFO(type << " " << o.name);
        h5::write_options opt;
        opt.chunk = {5, 200, 3};  // 37 rows: a partial last chunk
        opt.codec = o.codec;
        opt.shuffle = o.shuffle;
        opt.deflate = o.deflate;
        if (!o.built) {
            REQUIRE_THROWS_WITH(h5::write(file, o.name, a, opt), Contains("needs chunkwise built with"));
            continue;
        }
        h5::write(file, o.name, a, opt);
        h5::dataset ds(file, o.name);
        REQUIRE(ds.decodes_in_worker<T>());
        const auto back = ds.read<T, 3>(block{0, 0, 37});
        for (std::size_t i = 0; i < a.size(); ++i) REQUIRE(std::memcmp(back.data() + i, a.data() + i, value_bytes<T>()) == 0);
        if (std::string(o.codec) == "zstd") continue;  // no Zstandard plugin for h5py here
        const auto out = dir / "dump.bin";
        const std::string command = std::string(CHUNKWISE_TEST_PYTHON) + " " + script + " dump " + file.string() + " " +
                                    o.name + " " + out.string() + " " + type;
        REQUIRE(std::system(command.c_str()) == 0);
        std::ifstream in(out, std::ios::binary);
        std::vector<T> h5py_values(a.size());
        in.read(reinterpret_cast<char*>(h5py_values.data()), static_cast<std::streamsize>(h5py_values.size() * sizeof(T)));
        REQUIRE(in.gcount() == static_cast<std::streamsize>(h5py_values.size() * sizeof(T)));
        for (std::size_t i = 0; i < a.size(); ++i) {
            INFO("element " << i);
            REQUIRE(std::memcmp(h5py_values.data() + i, a.data() + i, value_bytes<T>()) == 0);
        }
    }
}

}  // namespace

TEST_CASE("writing every codec in every float width: chunkwise and h5py read them back to the bit", "[hdf5][codecs]") {
    const auto dir = test::scratch("codec-writes");
    write_every_codec<float>(dir, "float32");
    write_every_codec<double>(dir, "float64");
    write_every_codec<long double>(dir, "longdouble");
    const auto file = dir / "float32.h5";
    xt::xtensor<float, 3> a = xt::xtensor<float, 3>::from_shape({37, 200, 3});
    for (std::size_t i = 0; i < a.size(); ++i) {
        a.data()[i] = static_cast<float>(static_cast<int>((i * 7919) % 5003)) * 0.01f - 20.0f;
    }
#if defined(CHUNKWISE_USE_ZSTD)
    // Zstandard chunks are what libzstd itself decodes back to the values.
    std::uint32_t mask = 0;
    const auto raw = raw_chunk(file, "/zstd", mask);
    std::vector<float> first(5 * 200 * 3);
    REQUIRE(ZSTD_decompress(first.data(), first.size() * sizeof(float), raw.data(), raw.size()) ==
            first.size() * sizeof(float));
    REQUIRE(std::memcmp(first.data(), a.data(), first.size() * sizeof(float)) == 0);
#endif
    // Bad options are refused, naming them.
    h5::write_options both;
    both.deflate = 4;
    both.codec = "lz4";
    REQUIRE_THROWS_WITH(h5::write(file, "/both", a, both), Contains("deflate and codec 'lz4' are both asked for"));
    h5::write_options unknown;
    unknown.codec = "lzma";
    REQUIRE_THROWS_WITH(h5::write(file, "/unknown", a, unknown), Contains("codec 'lzma' is not one of"));
    std::filesystem::remove_all(dir);
}

TEST_CASE("a filter that neither chunkwise nor HDF5 can decode is an h5::error naming its plugin",
          "[hdf5][codecs]") {
    const auto dir = test::scratch("missing-plugin");
    const auto file = dir / "zfp.h5";
    {
        const hid_t f = H5Fcreate(file.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
        const hsize_t dims[2] = {4, 8}, chunk[2] = {2, 8};
        const hid_t space = H5Screate_simple(2, dims, nullptr);
        const hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
        H5Pset_chunk(dcpl, 2, chunk);
        const unsigned cd[4] = {1, 2, 3, 4};
        H5Pset_filter(dcpl, 32013, H5Z_FLAG_OPTIONAL, 4, cd);  // zfp: no plugin here
        const hid_t d = H5Dcreate2(f, "/z", H5T_IEEE_F32LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
        REQUIRE(d >= 0);
        const std::vector<unsigned char> junk(64, 7);
        const hsize_t at[2] = {0, 0};
        REQUIRE(H5Dwrite_chunk(d, H5P_DEFAULT, 0, at, junk.size(), junk.data()) >= 0);
        H5Dclose(d);
        H5Pclose(dcpl);
        H5Sclose(space);
        H5Fclose(f);
    }
    h5::dataset ds(file, "/z");  // opening works: the metadata is HDF5's
    REQUIRE(ds.filters() == std::vector<std::string>{"zfp"});
    REQUIRE_FALSE(ds.decodes_in_worker<float>());
    REQUIRE_THROWS_AS(ds.read<float>(block{0, 0, 2}), h5::error);
    REQUIRE_THROWS_WITH(ds.read<float>(block{0, 0, 2}), Contains("needs HDF5 filter 32013 (zfp)") &&
                                                            Contains("its plugin is not installed") &&
                                                            Contains("H5Z-ZFP") && Contains("HDF5 looks for plugins in"));
    std::filesystem::remove_all(dir);
}

namespace {

/// The sweep's values (tests/support/h5py_codecs.py, sweep_values), as doubles.
std::vector<double> sweep_values(std::size_t n, char kind, const std::string& type) {
    std::vector<double> v(n);
    for (std::size_t i = 0; i < n; ++i) {
        const std::uint64_t h = kind == 'r' ? ((i * std::uint64_t{2654435761} + 12345) % (std::uint64_t{1} << 32)) >> 8
                                            : (i / 97) % 5;
        if (type == "u8") {
            v[i] = static_cast<double>(h % 256);
        } else if (type == "i16") {
            v[i] = static_cast<double>(static_cast<std::int64_t>(h % 65536) - 32768);
        } else if (type == "f32") {
            v[i] = static_cast<double>(static_cast<float>(static_cast<double>(h % 100000) / 8.0 - 5000.0));
        } else {
            v[i] = static_cast<double>(h % 1000000007) / 16.0;
        }
    }
    return v;
}

/// The largest single allocation of this process since the last reset (the sweep checks that a
/// codec's scratch is bounded by the chunk, not by the block size its parameters declare).
std::atomic<std::size_t> largest_allocation{0};

}  // namespace

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"  // a replacement operator new over malloc
#endif
namespace {
void* counted_malloc(std::size_t n) noexcept {
    std::size_t seen = largest_allocation.load(std::memory_order_relaxed);
    while (n > seen && !largest_allocation.compare_exchange_weak(seen, n, std::memory_order_relaxed)) {
    }
    return std::malloc(n == 0 ? 1 : n);
}
}  // namespace

// Every form of the replaceable operators but the aligned ones (which stay the library's, with
// their own deletes): each allocation goes through counted_malloc, each release to free.
void* operator new(std::size_t n) {
    if (void* p = counted_malloc(n)) return p;
    throw std::bad_alloc();
}
void* operator new[](std::size_t n) {
    if (void* p = counted_malloc(n)) return p;
    throw std::bad_alloc();
}
void* operator new(std::size_t n, const std::nothrow_t&) noexcept { return counted_malloc(n); }
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept { return counted_malloc(n); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

TEST_CASE("every plugin's parameters over their range, chunks of 1 byte to 4 MiB, read as h5py wrote them",
          "[hdf5][codecs][sweep]") {
    // tests/support/h5py_codecs.py sweep: LZ4 block sizes 0 and 1 byte to 1 GiB (stored up to 5x
    // their chunk), bitshuffle blocks up to 2^24 elements with and without LZ4 (1.6x at 8), Blosc's
    // levels, shuffles and compressors, bzip2's and deflate's levels, LZF, Fletcher-32, LZ4 blocks
    // of one byte under deflate; data that compresses worst and best. Every dataset is read whole
    // and in blocks on 3 threads, and must equal the values h5py stored (and H5Dread, where this
    // HDF5 loads the plugin); scratch never grows past a few chunks.
    const fs::path dir = test::scratch("codec-sweep");
    const std::string command = std::string(CHUNKWISE_TEST_PYTHON) + " " + script + " sweep " + dir.string();
    REQUIRE(std::system(command.c_str()) == 0);
    const fs::path file = dir / "sweep.h5";
    std::ifstream list(dir / "sweep.txt");
    std::size_t datasets = 0, in_worker = 0, against_h5dread = 0;
    chunkwise::thread_policy pool(3);
    for (std::string name; std::getline(list, name);) {
        if (name.empty()) continue;
        INFO(name);
        // "/<setting>/<type>_<chunk bytes>_<kind>_<n>"
        const std::string leaf = name.substr(name.rfind('/') + 1);
        const std::string type = leaf.substr(0, leaf.find('_'));
        const std::size_t chunk_bytes = std::stoul(leaf.substr(type.size() + 1));
        const char kind = leaf[leaf.find('_', type.size() + 1) + 1];
        const std::size_t n = std::stoul(leaf.substr(leaf.rfind('_') + 1));
        const auto expect = sweep_values(n, kind, type);
        h5::dataset ds(file, name);
        REQUIRE(ds.shape() == std::vector<std::size_t>{n});
        in_worker += ds.decodes_in_worker<double>() ? 1 : 0;
        largest_allocation = 0;
        const auto whole = ds.read<double>(block{0, 0, n});
        REQUIRE(std::memcmp(whole.data(), expect.data(), n * sizeof(double)) == 0);
        // Decoding needs the chunk, its stored bytes and the pipeline's stages: a few chunks.
        CHECK(largest_allocation.load() <= std::max<std::size_t>(8 * chunk_bytes, std::size_t{1} << 20) + n * 8);
        const auto blocks = h5::partition(ds, chunkwise::parts{3});
        const auto parts = chunkwise::gather(pool, chunkwise::map_blocks(pool, blocks, [&](const block& b) {
                                                 return ds.read<double>(b);
                                             }));
        for (std::size_t k = 0; k < blocks.size(); ++k) {
            REQUIRE(std::memcmp(parts[k].data(), expect.data() + blocks[k].begin, blocks[k].size() * sizeof(double)) == 0);
        }
        if (n * 8 <= (std::size_t{1} << 16)) {
            if (const auto v = test::try_h5dread<double>(file, name, H5T_NATIVE_DOUBLE, 0, n)) {
                REQUIRE(*v == expect);
                ++against_h5dread;
            }
        }
        ++datasets;
    }
    std::printf("codec sweep: %zu datasets, %zu decoded in the worker, %zu also against H5Dread\n", datasets,
                in_worker, against_h5dread);
    REQUIRE(datasets > 800);
    REQUIRE(in_worker >= datasets * 9 / 10);
}
