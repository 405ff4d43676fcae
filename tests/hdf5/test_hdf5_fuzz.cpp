// Differential fuzzing of chunkwise::h5 against HDF5 itself: small files in every layout and
// filter chunkwise decodes itself are damaged (bytes flipped, runs overwritten, the file cut)
// with a fixed seed, then read every way (read<T, N>, read<T>, read_into on 1 and 3 threads).
// Each read must either throw h5::error or give exactly what H5Dread gives for the same damaged
// file. Crashes and sanitizer reports fail the run (this test also runs under ASan + UBSan).
//
// Cases: CHUNKWISE_FUZZ_CASES (default 300); seed: CHUNKWISE_FUZZ_SEED (default 20261123);
// CHUNKWISE_FUZZ_ONLY=N checks case N alone and keeps its file (damaged.h5 in the test's folder);
// CHUNKWISE_FUZZ_FIRST=N skips the cases before N.
#include "catch.hpp"
#include "h5_compare.hpp"
#include "h5_files.hpp"

#include <chunkwise/chunkwise.hpp>
#include <chunkwise/hdf5.hpp>

#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

using chunkwise::block;
namespace h5 = chunkwise::h5;

namespace {

std::size_t env_or(const char* name, std::size_t fallback) {
    const char* v = std::getenv(name);
    return v != nullptr && *v != '\0' ? static_cast<std::size_t>(std::strtoull(v, nullptr, 10)) : fallback;
}

struct sample {
    std::filesystem::path file;
    std::vector<std::string> datasets;
    std::vector<char> bytes;
};

/// One small file per layout: four datasets each (types, ranks, partial edge chunks).
std::vector<sample> make_samples(const std::filesystem::path& dir) {
    std::vector<sample> out;
    for (const char* layout : {"contiguous", "chunked", "deflate", "deflate+shuffle"}) {
        sample s;
        s.file = dir / (std::string(layout) + ".h5");
        const bool chunked = std::string(layout) != "contiguous";
        test::write_dataset(s.file, "/a", {23, 5}, test::type("f32le"), test::layout(layout), {4, 5});
        test::write_dataset(s.file, "/b", {17, 4, 3}, test::type("i16le"), test::layout(layout), {3, 2, 3});
        test::write_dataset(s.file, "/c", {30}, test::type("f64be"), test::layout(layout), {7});
        // One coordinate per chunk (h5py's automatic trajectory chunks): read woven.
        test::write_dataset(s.file, "/d", {19, 6, 3}, test::type("f32le"), test::layout(layout), {4, 2, 1});
        s.datasets = {"/a", "/b", "/c", "/d"};
        if (chunked) {  // and one with chunks never written
            const hid_t f = H5Fopen(s.file.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
            hsize_t dims[2] = {12, 4}, chunk[2] = {3, 4}, start[2] = {3, 0}, count[2] = {3, 4};
            const hid_t space = H5Screate_simple(2, dims, nullptr);
            const hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
            H5Pset_chunk(dcpl, 2, chunk);
            if (std::string(layout) != "chunked") H5Pset_deflate(dcpl, 1);
            const float fill = 2.5f;
            H5Pset_fill_value(dcpl, H5T_NATIVE_FLOAT, &fill);
            const hid_t d = H5Dcreate2(f, "/partial", H5T_IEEE_F32LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
            std::vector<float> v(12, -1.0f);
            H5Sselect_hyperslab(space, H5S_SELECT_SET, start, nullptr, count, nullptr);
            const hid_t ms = H5Screate_simple(2, count, nullptr);
            H5Dwrite(d, H5T_NATIVE_FLOAT, ms, space, H5P_DEFAULT, v.data());
            H5Sclose(ms);
            H5Dclose(d);
            H5Pclose(dcpl);
            H5Sclose(space);
            H5Fclose(f);
            s.datasets.push_back("/partial");
        }
        s.bytes = test::file_bytes(s.file);
        out.push_back(std::move(s));
    }
    return out;
}

struct tally {
    std::size_t cases = 0, reads = 0, errors = 0, identical = 0;
};

/// Reads `name` of `file` every way; each must be an h5::error or equal H5Dread.
void check_dataset(const std::filesystem::path& file, const std::string& name, tally& t) {
    INFO("dataset " << name);
    std::optional<h5::dataset> ds;
    try {
        ds.emplace(file, name);
    } catch (const h5::error&) {
        ++t.errors;
        return;
    }
    std::size_t row = 1;
    for (std::size_t d = 1; d < ds->rank(); ++d) row *= ds->shape()[d];
    // Damage can make a shape enormous: then only the first rows are read.
    const std::size_t rows = row > (1u << 16)
                                 ? std::min<std::size_t>(ds->shape()[0], 1)
                                 : std::min<std::size_t>(ds->shape()[0], (1u << 16) / std::max<std::size_t>(row, 1));
    std::optional<std::vector<double>> whole;
    bool fetched = false;
    auto compare = [&](const double* got, std::size_t n, std::size_t first_value) {
        ++t.reads;
        INFO("values from " << first_value << ", " << n << " of them");
        if (!fetched) {  // the reference, only once chunkwise has read values
            whole = test::try_h5dread<double>(file, name, H5T_NATIVE_DOUBLE, 0, rows);
            fetched = true;
        }
        REQUIRE(whole.has_value());  // chunkwise read values where HDF5 fails: a silent wrong value
        REQUIRE(first_value + n <= whole->size());
        REQUIRE(std::memcmp(got, whole->data() + first_value, n * sizeof(double)) == 0);
        ++t.identical;
    };
    if (rows == 0 || row > (1u << 20)) return;
    try {
        const auto a = ds->read<double>(block{0, 0, rows});
        compare(a.data(), a.size(), 0);
    } catch (const h5::error&) {
        ++t.errors;
    }
    if (name == "/d") {  // float32 read as float: one coordinate per chunk, woven, never converted
        try {
            const auto a = ds->read<float>(block{0, 0, rows});
            ++t.reads;
            const auto expect = test::try_h5dread<float>(file, name, H5T_NATIVE_FLOAT, 0, rows);
            REQUIRE(expect.has_value());
            REQUIRE(a.size() == expect->size());
            REQUIRE(std::memcmp(a.data(), expect->data(), a.size() * sizeof(float)) == 0);
            ++t.identical;
        } catch (const h5::error&) {
            ++t.errors;
        }
    }
    try {
        if (ds->rank() == 2 && rows > 1) {
            const auto a = ds->read<double, 2>(block{0, 1, rows});
            compare(a.data(), a.size(), row);
        }
    } catch (const h5::error&) {
        ++t.errors;
    }
    for (std::size_t threads : {1u, 3u}) {
        chunkwise::thread_policy pool(threads);
        const auto blocks = chunkwise::partition(rows, chunkwise::parts{4});
        try {
            auto parts = chunkwise::gather(pool, chunkwise::map_blocks(pool, blocks, [&](const block& b) {
                                               std::vector<double> v(b.size() * row);
                                               ds->read_into(b, std::span<double>(v));
                                               return v;
                                           }));
            for (std::size_t k = 0; k < blocks.size(); ++k)
                compare(parts[k].data(), parts[k].size(), blocks[k].begin * row);
        } catch (const chunkwise::block_error& e) {
            // A block's h5::error, reported through map_blocks: still an h5::error.
            REQUIRE_THROWS_AS(std::rethrow_exception(e.original()), h5::error);
            ++t.errors;
        }
    }
}

}  // namespace

TEST_CASE("damaged files: every read is an h5::error or exactly H5Dread's values", "[hdf5][fuzz]") {
    const auto dir = test::scratch("fuzz");
    const auto samples = make_samples(dir);
    const std::size_t cases = env_or("CHUNKWISE_FUZZ_CASES", 300);
    std::mt19937_64 rng(env_or("CHUNKWISE_FUZZ_SEED", 20261123));
    tally t;
    // Undamaged files first: all identical, no error.
    for (const sample& s : samples) {
        for (const auto& name : s.datasets) check_dataset(s.file, name, t);
    }
    REQUIRE(t.errors == 0);
    const auto damaged = dir / "damaged.h5";
    const std::size_t only = env_or("CHUNKWISE_FUZZ_ONLY", static_cast<std::size_t>(-1));
    const std::size_t first = env_or("CHUNKWISE_FUZZ_FIRST", 0);
    for (std::size_t c = 0; c < cases; ++c) {
        const sample& s = samples[rng() % samples.size()];
        std::vector<char> bytes = s.bytes;
        const unsigned how = static_cast<unsigned>(rng() % 4);
        if (how == 0) {  // cut the file
            bytes.resize(rng() % bytes.size());
        } else if (how == 1) {  // flip one to four bytes
            for (unsigned k = 0, n = 1 + static_cast<unsigned>(rng() % 4); k < n; ++k) {
                bytes[rng() % bytes.size()] ^= static_cast<char>(1 + rng() % 255);
            }
        } else if (how == 2) {  // overwrite a run of up to 16 bytes
            const std::size_t at = rng() % bytes.size();
            for (std::size_t i = at; i < std::min(bytes.size(), at + 1 + rng() % 16); ++i)
                bytes[i] = static_cast<char>(rng());
        } else {  // set one byte to 0 or 0xff (sizes, counts, flags)
            bytes[rng() % bytes.size()] = static_cast<char>((rng() & 1) ? 0 : 0xff);
        }
        if ((only != static_cast<std::size_t>(-1) && c != only) || c < first) continue;
        test::write_bytes(damaged, bytes);
        INFO("case " << c << ": " << s.file.filename().string() << ", damage kind " << how);
        ++t.cases;
        for (const auto& name : s.datasets) check_dataset(damaged, name, t);
    }
    std::printf("fuzz: %zu damaged files, %zu reads identical to H5Dread, %zu h5::error, 0 mismatches, 0 crashes\n",
                t.cases, t.identical, t.errors);
    if (only != static_cast<std::size_t>(-1)) {
        std::printf("kept %s\n", damaged.c_str());
        return;
    }
    REQUIRE(t.cases == cases - first);
    std::filesystem::remove_all(dir);
}
