// Every chunk index type of the newer file format (single chunk, implicit, fixed array with and
// without pages, extensible array with super blocks and paged data blocks, v2 B-tree of several
// levels), written by h5py with libver='latest' (tests/support/h5py_indexes.py): walked by the
// reading thread without the library lock, every read equal to h5py's values, every listing of
// chunks equal to HDF5's; and the same files damaged at random in their index structures, each
// read an h5::error naming the file and dataset, or exactly the values HDF5 reads.
#include "catch.hpp"
#include "h5_files.hpp"

#include <chunkwise/chunkwise.hpp>
#include <chunkwise/hdf5.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <random>
#include <string>
#include <vector>

using chunkwise::block;
namespace h5 = chunkwise::h5;

namespace {

struct fixture {
    std::filesystem::path dir, file;
};

/// h5py's file of every index type, written once per run.
const fixture& fixtures() {
    static const fixture f = [] {
        fixture x;
        x.dir = std::filesystem::temp_directory_path() / ("chunkwise-indexes-" + std::to_string(::getpid()));
        std::filesystem::create_directories(x.dir);
        const std::string script = std::string(CHUNKWISE_TEST_SUPPORT_DIR) + "/h5py_indexes.py";
        const std::string command = std::string(CHUNKWISE_TEST_PYTHON) + " " + script + " write " + x.dir.string();
        if (std::system(command.c_str()) != 0) throw std::runtime_error("cannot run " + command);
        x.file = x.dir / "indexes.h5";
        return x;
    }();
    return f;
}

struct cleanup {
    ~cleanup() {
        std::error_code ec;
        std::filesystem::remove_all(std::filesystem::temp_directory_path() / ("chunkwise-indexes-" + std::to_string(::getpid())), ec);
    }
} const remove_fixtures;

std::vector<double> expected(const std::string& name) {
    std::ifstream in(fixtures().dir / "expect" / (name + ".bin"), std::ios::binary);
    std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::vector<double> v(bytes.size() / sizeof(double));
    std::memcpy(v.data(), bytes.data(), v.size() * sizeof(double));
    return v;
}

const std::vector<std::string> names{
    "fixed",        "fixed_gzip",       "fixed_partial",   "fixed_paged",        "fixed_paged_gzip",
    "fixed_larger_max", "extensible",   "extensible_gzip", "extensible_axis1",   "extensible_partial",
    "extensible_3d", "extensible_grown", "extensible_paged", "btree2",           "btree2_gzip",
    "btree2_deep",  "single",           "single_gzip",     "single_empty",       "implicit"};

std::size_t row_elements(const h5::dataset& ds) {
    std::size_t row = 1;
    for (std::size_t d = 1; d < ds.rank(); ++d) row *= ds.shape()[d];
    return row;
}

/// Reads `name` of `file` whole, and in 7 blocks on 1 and 3 threads; each must be `expect`
/// (nullopt: compare with H5Dread of the same file). Returns false on an h5::error.
bool reads_as(const std::filesystem::path& file, const std::string& name, const std::vector<double>* expect) {
    std::optional<h5::dataset> ds;
    try {
        ds.emplace(file, name);
        const std::size_t rows = ds->shape()[0], row = row_elements(*ds);
        const auto whole = ds->read<double>(block{0, 0, rows});
        std::optional<std::vector<double>> reference;
        if (expect == nullptr) {
            reference = test::try_h5dread<double>(file, name, H5T_NATIVE_DOUBLE, 0, rows);
            INFO("chunkwise read " << name << " where HDF5 cannot");
            REQUIRE(reference.has_value());
            expect = &*reference;
        }
        REQUIRE(whole.size() == expect->size());
        REQUIRE(std::memcmp(whole.data(), expect->data(), whole.size() * sizeof(double)) == 0);
        for (std::size_t threads : {1u, 3u}) {
            chunkwise::thread_policy pool(threads);
            const auto blocks = chunkwise::partition(rows, chunkwise::parts{std::min<std::size_t>(7, rows)});
            auto parts = chunkwise::gather(pool, chunkwise::map_blocks(pool, blocks, [&](const block& b) {
                                               std::vector<double> v(b.size() * row);
                                               ds->read_into(b, std::span<double>(v));
                                               return v;
                                           }));
            for (std::size_t k = 0; k < blocks.size(); ++k) {
                REQUIRE(std::memcmp(parts[k].data(), expect->data() + blocks[k].begin * row,
                                    parts[k].size() * sizeof(double)) == 0);
            }
        }
        return true;
    } catch (const h5::error& e) {
        const std::string what = e.what();
        INFO(what);
        REQUIRE(what.find(file.string()) != std::string::npos);
        REQUIRE(what.find(name) != std::string::npos);
        return false;
    } catch (const chunkwise::block_error& e) {
        REQUIRE_THROWS_AS(std::rethrow_exception(e.original()), h5::error);
        return false;
    }
}

/// HDF5's count of the stored chunks of `name`, and its location of the chunk at each of
/// `offsets` (address, size, mask).
struct hdf5_view {
    hsize_t count = 0;
    std::vector<h5::stored_chunk> at;
};
hdf5_view hdf5_chunks(const std::filesystem::path& file, const std::string& name,
                      const std::vector<h5::stored_chunk>& offsets) {
    h5::library_lock lock;
    const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    const hid_t d = H5Dopen2(f, name.c_str(), H5P_DEFAULT);
    const hid_t space = H5Dget_space(d);
    hdf5_view out;
    REQUIRE(H5Dget_num_chunks(d, space, &out.count) >= 0);
    // HDF5 1.10 looks each chunk up by walking all of them: 40 chunks of each large dataset.
    const std::size_t step = offsets.size() > 2000 ? offsets.size() / 40 : 1;
    for (std::size_t i = 0; i < offsets.size(); i += step) {
        const auto& c = offsets[i];
        std::vector<hsize_t> offset(c.offset.begin(), c.offset.end());
        unsigned mask = 0;
        haddr_t address = 0;
        hsize_t size = 0;
        REQUIRE(H5Dget_chunk_info_by_coord(d, offset.data(), &mask, &address, &size) >= 0);
        out.at.push_back(h5::stored_chunk{c.offset, address, size, mask});
    }
    H5Sclose(space);
    H5Dclose(d);
    H5Fclose(f);
    return out;
}

}  // namespace

TEST_CASE("every chunk index type h5py writes is walked by the reader and reads as h5py does", "[hdf5]") {
    const auto& fx = fixtures();
    for (const std::string& name : names) {
        INFO("dataset " << name);
        const std::vector<double> expect = expected(name);
        REQUIRE(!expect.empty());
        std::vector<h5::stored_chunk> ours;
        {
            h5::dataset ds(fx.file, name);
            ours = h5::stored_chunks(ds);
            for (std::size_t i = 1; i < ours.size(); ++i) {
                if (!(ours[i - 1].offset < ours[i].offset)) FAIL("not in row-major order at chunk " << i);
            }
        }
        // Every stored chunk where HDF5 finds it (HDF5 opens the file while chunkwise does not).
        // HDF5 (1.10 to 2.2) finds the chunks of an extensible array whose unlimited axis is not
        // the first at other chunks' places in H5Dget_chunk_info_by_coord (its reads are right,
        // and so are chunkwise's: the values read).
        const bool swizzled = name == "extensible_axis1" || name == "extensible_3d";
        const hdf5_view theirs = hdf5_chunks(fx.file, name, ours);
        REQUIRE(ours.size() == theirs.count);
        const std::size_t step = ours.size() > 2000 ? ours.size() / 40 : 1;
        for (std::size_t i = 0; i < ours.size() && !swizzled; i += step) {
            REQUIRE(ours[i].address == theirs.at[i / step].address);
            REQUIRE(ours[i].size == theirs.at[i / step].size);
            REQUIRE(ours[i].filter_mask == theirs.at[i / step].filter_mask);
        }
        h5::dataset ds(fx.file, name);
        // CHUNKWISE_HDF5_INDEX=off: HDF5 locates the chunks (the walk is not used).
        const char* off = std::getenv("CHUNKWISE_HDF5_INDEX");
        if (off == nullptr) CHECK(h5::chunk_locations(ds) == h5::chunk_source::file_index);
        const auto walks = h5::detail::index_walks().load();
        REQUIRE(reads_as(fx.file, name, &expect));
        if (off == nullptr && name != "single_empty") CHECK(h5::detail::index_walks().load() > walks);
    }
}

TEST_CASE("a chunk index the walk reads names its type in the doctor's words", "[hdf5]") {
    const auto& fx = fixtures();
    CHECK(h5::chunk_index_type(h5::dataset(fx.file, "fixed")) == "fixed array");
    CHECK(h5::chunk_index_type(h5::dataset(fx.file, "fixed_paged")) == "fixed array");
    CHECK(h5::chunk_index_type(h5::dataset(fx.file, "extensible")) == "extensible array");
    CHECK(h5::chunk_index_type(h5::dataset(fx.file, "btree2")) == "v2 B-tree");
    CHECK(h5::chunk_index_type(h5::dataset(fx.file, "single")) == "single chunk");
    CHECK(h5::chunk_index_type(h5::dataset(fx.file, "implicit")) == "implicit");
}

namespace {

/// Offsets in `bytes` of every structure of the newer chunk indexes (by signature).
std::vector<std::size_t> index_structures(const std::vector<char>& bytes) {
    static const char* signatures[] = {"FAHD", "FADB", "EAHD", "EAIB", "EASB", "EADB", "BTHD", "BTIN", "BTLF"};
    std::vector<std::size_t> at;
    for (std::size_t i = 0; i + 4 <= bytes.size(); ++i) {
        for (const char* s : signatures) {
            // v2 B-trees of chunk records only (types 10 and 11; the group's links have others).
            if (std::memcmp(bytes.data() + i, s, 4) == 0 && i + 6 <= bytes.size() &&
                (s[0] != 'B' || bytes[i + 5] == 10 || bytes[i + 5] == 11)) {
                at.push_back(i);
            }
        }
    }
    return at;
}

/// The lookup3 checksum of a structure of `size` bytes at `at`, written again after a change.
void reseal(std::vector<char>& bytes, std::size_t at, std::size_t size) {
    if (at + size > bytes.size() || size < 8) return;
    const auto* p = reinterpret_cast<const unsigned char*>(bytes.data() + at);
    const std::uint32_t c = h5::detail::lookup3(p, size - 4);
    for (int i = 0; i < 4; ++i) bytes[at + size - 4 + static_cast<std::size_t>(i)] = static_cast<char>((c >> (8 * i)) & 0xff);
}

/// The size of the structure at `at` whose checksum is right (searching its end), or 0.
std::size_t structure_size(const std::vector<char>& bytes, std::size_t at) {
    const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
    for (std::size_t size = 10; size <= 4096 && at + size <= bytes.size(); ++size) {
        std::uint32_t stored = 0;
        for (int i = 3; i >= 0; --i) stored = (stored << 8) | p[at + size - 4 + static_cast<std::size_t>(i)];
        if (h5::detail::lookup3(p + at, size - 4) == stored) return size;
    }
    return 0;
}

}  // namespace

TEST_CASE("damaged chunk indexes of every type: an h5::error naming file and dataset, or HDF5's values", "[hdf5][fuzz]") {
    const auto& fx = fixtures();
    std::ifstream in(fx.file, std::ios::binary);
    const std::vector<char> original((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const auto structures = index_structures(original);
    REQUIRE(structures.size() > 20);
    std::vector<std::size_t> sizes(structures.size(), 1);  // 1: not known yet
    std::mt19937_64 rng(20261126);
    // 300 damaged files under AddressSanitizer (the run that proves no parser reads out of
    // bounds), 30 under ThreadSanitizer (each walk is one thread's; it is 10x slower there), 100
    // in the other builds; CHUNKWISE_TEST_FUZZ_FILES sets another count.
    int files = 100;
#if defined(__SANITIZE_ADDRESS__)
    files = 300;
#elif defined(__SANITIZE_THREAD__)
    files = 30;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
    files = 300;
#elif __has_feature(thread_sanitizer)
    files = 30;
#endif
#endif
    if (const char* n = std::getenv("CHUNKWISE_TEST_FUZZ_FILES")) files = std::atoi(n);
    std::size_t errors = 0, values = 0;
    // Datasets read from each damaged file: a few, chosen by the damage's place.
    for (int k = 0; k < files; ++k) {
        std::vector<char> bytes = original;
        const std::size_t s = std::uniform_int_distribution<std::size_t>(0, structures.size() - 1)(rng);
        if (sizes[s] == 1) sizes[s] = structure_size(original, structures[s]);
        const std::size_t at = structures[s], size = sizes[s] == 0 ? 64 : sizes[s];
        const int how = k % 6;
        const std::size_t pos = at + std::uniform_int_distribution<std::size_t>(4, std::max<std::size_t>(5, size - 5))(rng);
        if (pos >= bytes.size()) continue;
        switch (how) {
            case 0: bytes[pos] = static_cast<char>(bytes[pos] ^ (1 << (k % 8))); break;   // a bit flipped
            case 1: bytes[pos] = static_cast<char>(rng()); reseal(bytes, at, size); break;  // a byte, checksum right
            case 2:  // an address or count made huge, checksum right
                for (std::size_t i = 0; i < 8 && pos + i < at + size - 4; ++i) bytes[pos + i] = static_cast<char>(0xfe);
                reseal(bytes, at, size);
                break;
            case 3:  // a v2 B-tree header's record size 0 or 65535, or another field zeroed, checksum right
                if (std::memcmp(original.data() + at, "BTHD", 4) == 0) {
                    const char v = (k % 12 < 6) ? 0 : static_cast<char>(0xff);
                    bytes[at + 10] = v;
                    bytes[at + 11] = v;
                } else {
                    bytes[pos] = 0;
                }
                reseal(bytes, at, size);
                break;
            case 4:  // an address pointing back at the structure itself (a cycle), checksum right
                for (std::size_t i = 0; i < 8 && pos + i < at + size - 4; ++i)
                    bytes[pos + i] = static_cast<char>((at >> (8 * i)) & 0xff);
                reseal(bytes, at, size);
                break;
            default: bytes[pos] = static_cast<char>(rng()); break;  // a byte, checksum wrong
        }
        const auto damaged = fx.dir / ("damaged-" + std::to_string(k) + ".h5");
        {
            std::ofstream out(damaged, std::ios::binary);
            out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
        }
        // Three datasets of each damaged file (not the two of 10^4 chunks and more, read many
        // times over: their structures are damaged as often, and read by the others' walks).
        for (std::size_t j = 0; j < 3; ++j) {
            const std::string& name = names[(static_cast<std::size_t>(k) * 7 + j * 5 + s) % names.size()];
            if (name == "extensible_paged" || name == "btree2_deep") continue;
            INFO("damaged file " << k << " (" << how << " at " << pos << "), dataset " << name);
            const std::vector<double> expect = expected(name);
            bool same = false;
            // Values equal to the undamaged file's are right whatever HDF5 makes of the damage.
            try {
                h5::dataset ds(damaged, name);
                const auto whole = ds.read<double>(block{0, 0, ds.shape()[0]});
                same = whole.size() == expect.size() && std::memcmp(whole.data(), expect.data(), whole.size() * sizeof(double)) == 0;
            } catch (const h5::error&) {
            }
            if (reads_as(damaged, name, same ? &expect : nullptr)) {
                ++values;
            } else {
                ++errors;
            }
        }
        std::filesystem::remove(damaged);
    }
    CHECK(errors > 0);
    CHECK(values > 0);
}

namespace {

/// `original` with every structure of `signature` (whose byte 5 is one of `kinds`) changed by
/// `change(bytes, at, size)` and its checksum rewritten; written to `file`.
template <class Change>
void damage_all(const std::vector<char>& original, const std::filesystem::path& file, const char* signature,
                std::vector<int> kinds, Change&& change) {
    std::vector<char> bytes = original;
    std::size_t changed = 0;
    for (std::size_t i = 0; i + 6 <= bytes.size(); ++i) {
        if (std::memcmp(bytes.data() + i, signature, 4) != 0) continue;
        if (std::find(kinds.begin(), kinds.end(), static_cast<int>(bytes[i + 5])) == kinds.end()) continue;
        const std::size_t size = structure_size(original, i);
        REQUIRE(size > 0);
        change(bytes, i, size);
        reseal(bytes, i, size);
        ++changed;
    }
    REQUIRE(changed > 0);
    std::ofstream out(file, std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

}  // namespace

TEST_CASE("index structures that lie, with their checksums right: an h5::error naming what", "[hdf5][errors]") {
    const auto& fx = fixtures();
    std::ifstream in(fx.file, std::ios::binary);
    const std::vector<char> original((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const auto file = fx.dir / "lies.h5";
    const auto refused = [&](const std::string& name, const std::string& what) {
        INFO(name);
        REQUIRE_THROWS_WITH(
            [&] {
                h5::dataset ds(file, name);
                (void)ds.read<double>(block{0, 0, ds.shape()[0]});
            }(),
            Catch::Matchers::Contains(file.string() + ":/" + name) && Catch::Matchers::Contains(what));
    };
    // v2 B-tree headers whose record size is 0 or 65535 (HDF5 itself crashes on these).
    for (const char v : {char(0), char(0xff)}) {
        damage_all(original, file, "BTHD", {10, 11}, [v](std::vector<char>& b, std::size_t at, std::size_t) {
            b[at + 10] = v;
            b[at + 11] = v;
        });
        refused("btree2", v == 0 ? "v2 B-tree records of 0 bytes" : "v2 B-tree records of 65535 bytes");
        refused("btree2_gzip", "its chunk index is damaged");
    }
    // A fixed array of another chunk count.
    damage_all(original, file, "FAHD", {0, 1}, [](std::vector<char>& b, std::size_t at, std::size_t) { ++b[at + 8]; });
    refused("fixed", "a fixed array of 216 entries for 215 chunks");
    // An extensible array super block that says it begins elsewhere.
    damage_all(original, file, "EASB", {0, 1}, [](std::vector<char>& b, std::size_t at, std::size_t) { ++b[at + 14]; });
    refused("extensible_paged", "says it begins at entry");
    // A cycle: every internal node's first child is the node itself.
    damage_all(original, file, "BTIN", {10, 11}, [](std::vector<char>& b, std::size_t at, std::size_t size) {
        (void)size;
        // Records of 24 bytes (btree2_deep: f4, rank 2, unfiltered) start at 6; the first child
        // pointer follows this node's records: found by the record count in the parent, so
        // instead every 8-byte word after the first record that holds an address is made `at`.
        for (std::size_t p = at + 6 + 24; p + 8 + 4 <= at + size; p += 1) {
            std::uint64_t v = 0;
            std::memcpy(&v, b.data() + p, 8);
            if (v > 0 && v < b.size() && std::memcmp(b.data() + v, "BT", 2) == 0) {
                std::memcpy(b.data() + p, &at, 8);
                break;
            }
        }
    });
    refused("btree2_deep", "its chunk index is damaged");
    // An address past the end of the file.
    damage_all(original, file, "FAHD", {0}, [](std::vector<char>& b, std::size_t at, std::size_t) {
        for (std::size_t i = 0; i < 7; ++i) b[at + 16 + i] = static_cast<char>(0x7f);
    });
    refused("fixed", "past the end of the file's allocated space");
    std::filesystem::remove(file);
}
