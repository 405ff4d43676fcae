// Chunk locations walked from the file's own chunk index (a version 1 B-tree) by the reading
// thread, without the library lock: every read equals H5Dread, on trees of several levels, chunks
// written out of order, partly written datasets, a user block, a dataset shrunk below chunks it
// still indexes, 1-d datasets (HDF5 compares their keys its own way), and B-tree nodes damaged
// at random (the walk then finds what HDF5's lookup finds, or leaves the read to HDF5).
#include "catch.hpp"
#include "h5_compare.hpp"
#include "h5_files.hpp"

#include <chunkwise/chunkwise.hpp>
#include <chunkwise/hdf5.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <random>
#include <string>
#include <vector>

using chunkwise::block;
namespace h5 = chunkwise::h5;
using Catch::Matchers::Contains;

namespace {

/// Creates `name` (f64, shape, chunk) in `file` and writes the chunks listed in `order` (linear
/// chunk indices of a 1-d or 2-d grid), each with values that name their element.
void write_chunks(hid_t f, const std::string& name, std::vector<hsize_t> shape, std::vector<hsize_t> chunk,
                  const std::vector<std::size_t>& order, bool deflate, const std::vector<hsize_t>& maxdims = {}) {
    const int rank = static_cast<int>(shape.size());
    const hid_t space = H5Screate_simple(rank, shape.data(), maxdims.empty() ? nullptr : maxdims.data());
    const hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, rank, chunk.data());
    if (deflate) H5Pset_deflate(dcpl, 1);
    const double fill = -7.5;
    H5Pset_fill_value(dcpl, H5T_NATIVE_DOUBLE, &fill);
    const hid_t d = H5Dcreate2(f, name.c_str(), H5T_IEEE_F64LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    REQUIRE(d >= 0);
    std::vector<hsize_t> grid(shape.size());
    for (std::size_t k = 0; k < shape.size(); ++k) grid[k] = (shape[k] + chunk[k] - 1) / chunk[k];
    for (std::size_t linear : order) {
        std::vector<hsize_t> start(shape.size()), count(shape.size());
        std::size_t rest = linear;
        for (std::size_t k = shape.size(); k-- > 0;) {
            start[k] = (rest % grid[k]) * chunk[k];
            count[k] = std::min(chunk[k], shape[k] - start[k]);
            rest /= grid[k];
        }
        std::size_t n = 1;
        for (hsize_t c : count) n *= c;
        std::vector<double> v(n);
        for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<double>(linear) * 1000.0 + static_cast<double>(i);
        const hid_t ms = H5Screate_simple(rank, count.data(), nullptr);
        H5Sselect_hyperslab(space, H5S_SELECT_SET, start.data(), nullptr, count.data(), nullptr);
        REQUIRE(H5Dwrite(d, H5T_NATIVE_DOUBLE, ms, space, H5P_DEFAULT, v.data()) >= 0);
        H5Sclose(ms);
    }
    H5Dclose(d);
    H5Pclose(dcpl);
    H5Sclose(space);
}

/// Reads `name` whole and in blocks on 1 and 3 threads; each read must equal H5Dread (or, where
/// HDF5 fails, be an h5::error). Returns the number of reads compared.
std::size_t check_against_h5dread(const std::filesystem::path& file, const std::string& name) {
    INFO("dataset " << name);
    std::optional<h5::dataset> ds;
    try {
        ds.emplace(file, name);
    } catch (const h5::error&) {
        return 0;
    }
    const std::size_t rows = ds->shape()[0];
    std::size_t row = 1;
    for (std::size_t d = 1; d < ds->rank(); ++d) row *= ds->shape()[d];
    if (rows * row > (1u << 22)) return 0;
    const auto expect = test::try_h5dread<double>(file, name, H5T_NATIVE_DOUBLE, 0, rows);
    std::size_t compared = 0;
    try {
        const auto a = ds->read<double>(block{0, 0, rows});
        REQUIRE(expect.has_value());
        REQUIRE(a.size() == expect->size());
        REQUIRE(std::memcmp(a.data(), expect->data(), a.size() * sizeof(double)) == 0);
        ++compared;
    } catch (const h5::error&) {
    }
    for (std::size_t threads : {1u, 3u}) {
        chunkwise::thread_policy pool(threads);
        const auto blocks = chunkwise::partition(rows, chunkwise::parts{std::min<std::size_t>(7, rows)});
        try {
            auto parts = chunkwise::gather(pool, chunkwise::map_blocks(pool, blocks, [&](const block& b) {
                                               std::vector<double> v(b.size() * row);
                                               ds->read_into(b, std::span<double>(v));
                                               return v;
                                           }));
            REQUIRE(expect.has_value());
            for (std::size_t k = 0; k < blocks.size(); ++k) {
                REQUIRE(std::memcmp(parts[k].data(), expect->data() + blocks[k].begin * row,
                                    parts[k].size() * sizeof(double)) == 0);
            }
            ++compared;
        } catch (const chunkwise::block_error& e) {
            REQUIRE_THROWS_AS(std::rethrow_exception(e.original()), h5::error);
        }
    }
    return compared;
}

std::vector<std::size_t> shuffled(std::size_t n, std::uint64_t seed, std::size_t keep) {
    std::vector<std::size_t> v(n);
    std::iota(v.begin(), v.end(), 0);
    std::mt19937_64 rng(seed);
    std::shuffle(v.begin(), v.end(), rng);
    v.resize(std::min(keep, n));
    return v;
}

/// Offsets in `bytes` of every v1 B-tree node ("TREE").
std::vector<std::size_t> tree_nodes(const std::vector<char>& bytes) {
    std::vector<std::size_t> at;
    for (std::size_t i = 0; i + 4 <= bytes.size(); ++i) {
        if (std::memcmp(bytes.data() + i, "TREE", 4) == 0) at.push_back(i);
    }
    return at;
}

/// A file of datasets whose chunk indexes have one to three levels.
void write_index_samples(const std::filesystem::path& file, bool userblock) {
    const hid_t fcpl = H5Pcreate(H5P_FILE_CREATE);
    if (userblock) H5Pset_userblock(fcpl, 1024);
    const hid_t f = H5Fcreate(file.c_str(), H5F_ACC_TRUNC, fcpl, H5P_DEFAULT);
    REQUIRE(f >= 0);
    write_chunks(f, "/shuffled", {3000}, {3}, shuffled(1000, 1, 1000), false);  // 1-d: keys compared apart
    std::vector<std::size_t> in_order(1000);
    std::iota(in_order.begin(), in_order.end(), 0);
    write_chunks(f, "/sequential", {3000}, {3}, in_order, false);
    write_chunks(f, "/grid", {90, 40}, {2, 3}, shuffled(45 * 14, 2, 45 * 14), true);  // levels, deflate
    write_chunks(f, "/partial", {90, 40}, {2, 3}, shuffled(45 * 14, 3, 200), false);  // chunks never written
    // Whole-row chunks: read straight into the output, those that follow each other in the file
    // in one read (in order), or one by one (out of order).
    std::vector<std::size_t> rows_in_order(23);
    std::iota(rows_in_order.begin(), rows_in_order.end(), 0);
    write_chunks(f, "/rows", {90, 40}, {4, 40}, rows_in_order, false);
    write_chunks(f, "/rows_shuffled", {90, 40}, {4, 40}, shuffled(23, 7, 23), false);
    write_chunks(f, "/rows_gaps", {90, 40}, {4, 40}, shuffled(23, 8, 15), false);
    write_chunks(f, "/one", {5, 4}, {5, 4}, {0}, false);
    write_chunks(f, "/none", {10, 4}, {5, 4}, {}, false);
    write_chunks(f, "/deep", {5000}, {1}, shuffled(5000, 4, 5000), false);  // three levels
    write_chunks(f, "/grow", {40, 6}, {3, 4}, shuffled(14 * 2, 5, 28), false, {H5S_UNLIMITED, 6});
    // Shrunk below chunks the index still holds: those are never read.
    {
        const hid_t d = H5Dopen2(f, "/grow", H5P_DEFAULT);
        const hsize_t smaller[2] = {20, 5};
        REQUIRE(H5Dset_extent(d, smaller) >= 0);
        H5Dclose(d);
    }
    H5Fclose(f);
    H5Pclose(fcpl);
}

const std::vector<std::string> sample_names{"/shuffled", "/sequential",    "/grid",      "/partial", "/rows",
                                            "/rows_shuffled", "/rows_gaps", "/one", "/none", "/deep", "/grow"};

}  // namespace

TEST_CASE("chunk locations from the file's own index: every read equals H5Dread", "[hdf5]") {
    const bool walking = h5::detail::index_walk_unused_because().empty();
    const auto dir = test::scratch("index");
    for (bool userblock : {false, true}) {
        INFO("user block: " << userblock);
        const auto file = dir / (userblock ? "ub.h5" : "plain.h5");
        write_index_samples(file, userblock);
        for (const auto& name : sample_names) {
            const auto walks = h5::detail::index_walks().load();
            REQUIRE(check_against_h5dread(file, name) == 3);
            // The reads walked the index (the test *.noindex turns it off: then none did).
            if (name != "/none") CHECK((h5::detail::index_walks().load() > walks) == walking);
            h5::dataset ds(file, name);
            REQUIRE(ds.decodes_in_worker<double>());
        }
        // Rows in the middle, and a box of some columns only (selected indices).
        h5::dataset grid(file, "/grid");
        const auto expect = test::h5dread_rows<double>(file, "/grid", H5T_NATIVE_DOUBLE, 0, 90);
        const auto mid = grid.read<double, 2>(block{0, 33, 71});
        REQUIRE(std::memcmp(mid.data(), expect.data() + 33 * 40, mid.size() * sizeof(double)) == 0);
        const auto cols = grid.read<double, 2>(block{0, 10, 60}, h5::indices{1, {39, 0, 20, 20}});
        for (std::size_t r = 0; r < 50; ++r) {
            const std::size_t picks[4] = {39, 0, 20, 20};
            for (std::size_t j = 0; j < 4; ++j) REQUIRE(cols(r, j) == expect[(10 + r) * 40 + picks[j]]);
        }
    }
    // The newest file format indexes chunks otherwise (here a fixed array): walked as well
    // (test_hdf5_indexes.cpp has every type), still H5Dread's values.
    const auto latest = dir / "latest.h5";
    {
        const hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
        H5Pset_libver_bounds(fapl, H5F_LIBVER_LATEST, H5F_LIBVER_LATEST);
        const hid_t f = H5Fcreate(latest.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
        write_chunks(f, "/grid", {90, 40}, {2, 3}, shuffled(45 * 14, 6, 300), false);
        H5Fclose(f);
        H5Pclose(fapl);
    }
    const auto walks = h5::detail::index_walks().load();
    REQUIRE(check_against_h5dread(latest, "/grid") == 3);
    if (std::getenv("CHUNKWISE_HDF5_INDEX") == nullptr) {
        REQUIRE(h5::detail::index_walks().load() > walks);
    } else {
        REQUIRE(h5::detail::index_walks().load() == walks);
    }
    std::filesystem::remove_all(dir);
}

TEST_CASE("damaged chunk indexes: every read is an h5::error or exactly H5Dread's values", "[hdf5][fuzz]") {
    const auto dir = test::scratch("index-fuzz");
    const auto file = dir / "tree.h5";
    write_index_samples(file, false);
    const std::vector<char> pristine = test::file_bytes(file);
    const auto nodes = tree_nodes(pristine);
    REQUIRE(nodes.size() > 20);
    std::mt19937_64 rng(20261125);
    const auto damaged = dir / "damaged.h5";
    std::size_t compared = 0;
    for (std::size_t c = 0; c < 120; ++c) {
        std::vector<char> bytes = pristine;
        // One to three nodes, each damaged in its header, a key or a child address.
        for (unsigned k = 0, n = 1 + static_cast<unsigned>(rng() % 3); k < n; ++k) {
            const std::size_t at = nodes[rng() % nodes.size()] + rng() % 600;
            if (at >= bytes.size()) continue;
            switch (rng() % 3) {
                case 0: bytes[at] ^= static_cast<char>(1 + rng() % 255); break;
                case 1: bytes[at] = static_cast<char>((rng() & 1) ? 0 : 0xff); break;
                default:
                    for (std::size_t i = at; i < std::min(bytes.size(), at + 8); ++i) bytes[i] = static_cast<char>(rng());
            }
        }
        test::write_bytes(damaged, bytes);
        INFO("case " << c);
        for (const auto& name : sample_names) compared += check_against_h5dread(damaged, name);
    }
    REQUIRE(compared > 500);  // most reads still give values, and each equals H5Dread's
    std::filesystem::remove_all(dir);
}

TEST_CASE("compressed chunks next to each other in the file: one pread per run, counted per MiB", "[hdf5]") {
    const auto dir = test::scratch("coalesce");
    const auto file = dir / "runs.h5";
    // 4000 x 64 float64 in chunks of 8 rows (4 KiB each, about 1 KiB deflated): 500 chunks,
    // written in grid order to /inorder (each follows the one before it in the file) and in
    // reverse to /reversed (none does).
    std::vector<std::size_t> order(500);
    std::iota(order.begin(), order.end(), std::size_t{0});
    {
        const hid_t f = H5Fcreate(file.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
        write_chunks(f, "/inorder", {4000, 64}, {8, 64}, order, true);
        std::vector<std::size_t> reversed(order.rbegin(), order.rend());
        write_chunks(f, "/reversed", {4000, 64}, {8, 64}, reversed, true);
        H5Fclose(f);
    }
    for (const std::string name : {"/inorder", "/reversed"}) {
        INFO("dataset " << name);
        h5::dataset ds(file, name);
        REQUIRE(ds.decodes_in_worker<double>());
        std::uint64_t stored = 0;
        std::size_t chunks = 0;
        for (const auto& c : h5::stored_chunks(ds)) {
            stored += c.size;
            ++chunks;
        }
        REQUIRE(chunks == 500);
        const double mib = static_cast<double>(stored) / (1 << 20);
        const auto expect = test::h5dread_rows<double>(file, name, H5T_NATIVE_DOUBLE, 0, 4000);
        // Whole, and rows 100 to 3999 (a run may start in the middle of a chunk's rows).
        for (std::size_t first : {std::size_t{0}, std::size_t{100}}) {
            const std::uint64_t before = h5::detail::thread_preads();
            const auto got = ds.read<double, 2>(block{0, first, 4000});
            const std::uint64_t preads = h5::detail::thread_preads() - before;
            REQUIRE(std::memcmp(got.data(), expect.data() + first * 64, got.size() * sizeof(double)) == 0);
            INFO(preads << " preads for " << mib << " MiB in " << chunks << " chunks");
            if (name == "/inorder") {
                // One pread per MiB of runs (at most 1 MiB each), the last one short.
                REQUIRE(mib > 0.1);
                REQUIRE(static_cast<double>(preads) <= std::ceil(mib) + 1);
            } else {
                REQUIRE(preads == 500 - first / 8);  // one per chunk
            }
        }
    }
    // A run cut short by the end of the file (cut after opening): each chunk then read alone,
    // the one missing named; the chunks before it still read.
    const auto cut = dir / "cut.h5";
    std::filesystem::copy_file(file, cut);
    {
        h5::dataset damaged(cut, "/inorder");
        const auto all = h5::stored_chunks(damaged);
        REQUIRE(all[499].address == all[498].address + all[498].size);
        std::filesystem::resize_file(cut, all[499].address + 3);  // inside the last chunk (rows 3992-3999)
        const auto expect = test::h5dread_rows<double>(file, "/inorder", H5T_NATIVE_DOUBLE, 0, 3992);
        const auto most = damaged.read<double, 2>(block{0, 0, 3992});
        REQUIRE(std::memcmp(most.data(), expect.data(), most.size() * sizeof(double)) == 0);
        REQUIRE_THROWS_WITH((damaged.read<double, 2>(block{0, 3900, 4000})),
                            Contains("chunk at (3992, 0)") && Contains("the file ends early (truncated?)"));
    }
    std::filesystem::remove_all(dir);
}
