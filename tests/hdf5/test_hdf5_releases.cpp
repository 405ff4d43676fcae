// What chunkwise relies on in each HDF5 release, tested by name so that a release that changes it
// fails here first: the file driver interface the probe driver fills in, the chunk listing
// (H5Dchunk_iter) and its addresses in files with a user block, and reads without the probe
// driver (CHUNKWISE_HDF5_PROBE=off: the test hdf5_releases.noprobe) or without the file's own
// chunk index (CHUNKWISE_HDF5_INDEX=off: *.noindex, *.noprobe_noindex) that still equal H5Dread.
#include "catch.hpp"
#include "h5_compare.hpp"
#include "h5_files.hpp"

#include <chunkwise/hdf5.hpp>

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

using chunkwise::block;
namespace h5 = chunkwise::h5;
namespace detail = chunkwise::h5::detail;

namespace {

bool index_on() { return detail::index_walk_unused_because().empty(); }

bool probe_off() {
    const char* v = std::getenv("CHUNKWISE_HDF5_PROBE");
    return v != nullptr && std::strcmp(v, "off") == 0;
}

/// A chunked (rows, 4) float dataset, deflated or not, with only the rows in `written` written,
/// in a file with a user block of `userblock` bytes (0: none).
void make_partial(const std::filesystem::path& file, const std::string& name, hsize_t rows, bool deflate,
                  const std::vector<std::pair<hsize_t, hsize_t>>& written, hsize_t userblock = 0) {
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    const hid_t fcpl = H5Pcreate(H5P_FILE_CREATE);
    if (userblock > 0) H5Pset_userblock(fcpl, userblock);
    const hid_t f = std::filesystem::exists(file) ? H5Fopen(file.c_str(), H5F_ACC_RDWR, H5P_DEFAULT)
                                                  : H5Fcreate(file.c_str(), H5F_ACC_TRUNC, fcpl, H5P_DEFAULT);
    H5Pclose(fcpl);
    REQUIRE(f >= 0);
    const hsize_t dims[2] = {rows, 4}, maxdims[2] = {H5S_UNLIMITED, 4}, chunk[2] = {3, 4};
    const hid_t space = H5Screate_simple(2, dims, maxdims);
    const hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, 2, chunk);
    if (deflate) H5Pset_deflate(dcpl, 1);
    const float fill = -1.5f;
    H5Pset_fill_value(dcpl, H5T_NATIVE_FLOAT, &fill);
    const hid_t d = H5Dcreate2(f, name.c_str(), H5T_IEEE_F32LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    REQUIRE(d >= 0);
    for (const auto& [begin, end] : written) {
        const hsize_t start[2] = {begin, 0}, count[2] = {end - begin, 4};
        std::vector<float> v(static_cast<std::size_t>(count[0] * 4));
        for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(begin * 4 + i) * 0.25f;
        const hid_t ms = H5Screate_simple(2, count, nullptr);
        H5Sselect_hyperslab(space, H5S_SELECT_SET, start, nullptr, count, nullptr);
        H5Dwrite(d, H5T_NATIVE_FLOAT, ms, space, H5P_DEFAULT, v.data());
        H5Sclose(ms);
    }
    H5Dclose(d);
    H5Pclose(dcpl);
    H5Sclose(space);
    H5Fclose(f);
}

}  // namespace

TEST_CASE("the probe driver: HDF5's file driver interface is one chunkwise knows", "[hdf5][releases]") {
    INFO("compiled against HDF5 " << H5_VERS_MAJOR << "." << H5_VERS_MINOR << "." << H5_VERS_RELEASE);
#if defined(H5FD_CLASS_VERSION)
    // HDF5 1.14 gave H5FD_class_t a version; a new one means new or moved members.
    REQUIRE(H5FD_CLASS_VERSION == detail::probe_driver::known_class_version);
#else
    REQUIRE_FALSE(H5_VERSION_GE(1, 13, 0));  // 1.10 and 1.12 have no version: the layout chunkwise fills
#endif
    if (probe_off()) {
        REQUIRE(detail::probe_driver::unused_because() == "CHUNKWISE_HDF5_PROBE=off");
        return;
    }
    // The library loaded is the one compiled against, and the driver registers with it.
    REQUIRE(detail::probe_driver::unused_because().empty());
    {
        detail::library_lock lock;
        REQUIRE(detail::probe_driver::id() >= 0);
    }
    // A probe names the address and size HDF5's own index gives for the chunk.
    const auto dir = test::scratch("releases-probe");
    const auto file = dir / "p.h5";
    make_partial(file, "/x", 12, true, {{0, 12}});
    h5::dataset ds(file, "/x");
    REQUIRE(ds.decodes_in_worker<float>());
    const auto* s = &detail::dataset_access::state(ds);
    REQUIRE(s->probing);
    detail::library_lock lock;
    const hsize_t offset[2] = {3, 0};
    haddr_t address = HADDR_UNDEF;
    hsize_t size = 0;
    unsigned mask = 0;
    REQUIRE(H5Dget_chunk_info_by_coord(s->dset_h.get(), offset, &mask, &address, &size) >= 0);
    detail::probe_record rec;
    std::uint32_t filters = 0;
    unsigned char unused[64];
    {
        detail::probe_scope scope(rec);
        REQUIRE(detail::direct_read_chunk(s->dset_h.get(), offset, &filters, unused, sizeof unused + (1u << 30)) >= 0);
    }
    REQUIRE(rec.reads == 1);
    REQUIRE(rec.address == address);
    REQUIRE(rec.size == size);
    std::filesystem::remove_all(dir);
}

TEST_CASE("partly written datasets read as H5Dread reads them, on every path", "[hdf5][releases]") {
    const auto dir = test::scratch("releases-partial");
    for (const hsize_t userblock : {hsize_t{0}, hsize_t{1024}}) {
        const auto file = dir / ("partial-" + std::to_string(userblock) + ".h5");
        INFO("user block " << userblock << " bytes");
        // A preallocated output with a gap, one that stopped early, one never written, one grown
        // along an unlimited axis past what was written (netCDF's unlimited dimension).
        make_partial(file, "/gap", 15, false, {{0, 3}, {9, 12}}, userblock);
        make_partial(file, "/gap_deflate", 15, true, {{0, 3}, {9, 12}});
        make_partial(file, "/stopped", 15, true, {{0, 5}});
        make_partial(file, "/never", 7, true, {});
        make_partial(file, "/grown", 4, false, {{0, 4}});
        {
            const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
            const hid_t d = H5Dopen2(f, "/grown", H5P_DEFAULT);
            const hsize_t grown[2] = {20, 4};
            REQUIRE(H5Dset_extent(d, grown) >= 0);
            H5Dclose(d);
            H5Fclose(f);
        }
        for (const char* name : {"/gap", "/gap_deflate", "/stopped", "/never", "/grown"}) {
            INFO(name);
            test::require_same_as_hdf5<float, 2>(file, name, H5T_NATIVE_FLOAT);
            test::require_same_as_hdf5<double, 2>(file, name, H5T_NATIVE_DOUBLE);
            h5::dataset ds(file, name);
            REQUIRE(ds.read<float, 2>(block{0, ds.shape()[0] - 1, ds.shape()[0]})(0, 3) == -1.5f);
            // Where the locations are learnt (the file's index, the probe driver or a listing),
            // the bytes are decoded in the worker; without any, H5Dread serves every read.
            REQUIRE(ds.decodes_in_worker<float>() ==
                    (index_on() || !probe_off() || detail::has_chunk_iter));
        }
        REQUIRE(h5::dataset(file, "/gap").read<float, 2>(block{0, 0, 15})(10, 1) == 41 * 0.25f);
    }
    std::filesystem::remove_all(dir);
}

TEST_CASE("a chunk listing that disagrees with HDF5's lookups is not used", "[hdf5][releases]") {
    if (!detail::has_chunk_iter) return;  // no listing in this HDF5: nothing to disagree
    const auto dir = test::scratch("releases-listing");
    const auto file = dir / "l.h5";
    make_partial(file, "/x", 30, true, {{0, 30}});
    h5::dataset ds(file, "/x");
    (void)ds.read<float, 2>(block{0, 0, 3});
    // An intact file: its own index walked (the test *.noindex: listed in one pass).
    if (index_on()) {
        REQUIRE(detail::dataset_access::state(ds).index.usable());
    } else {
        REQUIRE(detail::dataset_access::state(ds).listed);
    }
    std::filesystem::remove_all(dir);
}
