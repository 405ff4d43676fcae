// 12: an analysis that ends in products others open: per-frame and per-atom results of an H5MD
// trajectory, written with units and dimension names into an HDF5 file and a Zarr group that
// xarray opens (examples/products_check.py checks them against numpy).
//   - first run, frames [0, N): the time of each frame (a coordinate), the radius of gyration and
//     the centre of geometry per frame, the RMSF per atom; each written by write_blocks from the
//     workers (create; HDF5 datasets growable along time);
//   - the run continued, frames [N, N + M): its per-frame results appended (write_mode::append);
//   - the ligand's atoms re-analysed over both runs: their RMSF written over theirs
//     (write_mode::update), the other atoms' values kept.
//
//   12-products [--frames 3000] [--continued 1000] [--atoms 2000] [--ligand 100] [--threads N] [--dir DIR]
#include "trajectory.hpp"
#include "trajectory_h5.hpp"

#include <chunkwise/accumulate.hpp>
#include <chunkwise/chunkwise.hpp>
#include <chunkwise/hdf5.hpp>
#include <chunkwise/zarr.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

namespace {

namespace h5 = chunkwise::h5;
namespace zarr = chunkwise::zarr;
namespace acc = chunkwise::acc;
using chunkwise::write_mode;
const std::string positions = "/particles/all/position/value";
constexpr double picoseconds_per_frame = 10.0;

// Per frame of `b`: time (ps), radius of gyration (nm), centre of geometry (nm, x y z).
struct frame_results {
    std::vector<double> time, rgyr;
    xt::xtensor<double, 2> cog;
};

frame_results per_frame(const h5::dataset& ds, const chunkwise::block& b) {
    thread_local h5::read_buffer<float> buffer;
    const auto x = ds.read<float, 3>(b, buffer);
    const std::size_t atoms = x.shape()[1];
    frame_results r{std::vector<double>(b.size()), std::vector<double>(b.size()),
                    xt::xtensor<double, 2>::from_shape({b.size(), 3})};
    for (std::size_t f = 0; f < b.size(); ++f) {
        double c[3] = {0, 0, 0};
        for (std::size_t a = 0; a < atoms; ++a)
            for (std::size_t d = 0; d < 3; ++d) c[d] += x(f, a, d);
        for (double& v : c) v /= static_cast<double>(atoms);
        double s = 0;
        for (std::size_t a = 0; a < atoms; ++a)
            for (std::size_t d = 0; d < 3; ++d) s += (x(f, a, d) - c[d]) * (x(f, a, d) - c[d]);
        r.time[f] = picoseconds_per_frame * static_cast<double>(b.begin + f);
        r.rgyr[f] = std::sqrt(s / static_cast<double>(atoms));
        for (std::size_t d = 0; d < 3; ++d) r.cog(f, d) = c[d];
    }
    return r;
}

// RMSF per atom (nm) over frames [first, last): one pass, acc::variance of every coordinate.
std::vector<double> rmsf(chunkwise::thread_policy& pool, const h5::dataset& ds, std::size_t first, std::size_t last) {
    std::vector<chunkwise::block> blocks;
    for (const chunkwise::block& b : h5::partition(ds, h5::block_bytes{std::size_t{64} << 20}))
        if (b.end > first && b.begin < last)
            blocks.push_back(chunkwise::block{blocks.size(), std::max(b.begin, first), std::min(b.end, last)});
    auto var = chunkwise::reduce(pool, chunkwise::map_blocks(pool, blocks, [&](const chunkwise::block& b) {
                                     thread_local h5::read_buffer<float> buffer;
                                     acc::variance<xt::xtensor<double, 2>> v;
                                     v.add_rows(ds.read<float, 3>(b, buffer));
                                     return v;
                                 }));
    const auto fluct = var.var();
    std::vector<double> out(fluct.shape()[0]);
    for (std::size_t a = 0; a < out.size(); ++a) out[a] = std::sqrt(fluct(a, 0) + fluct(a, 1) + fluct(a, 2));
    return out;
}

// The per-frame results of frames [first, last), each by the worker that read its block, into both stores:
// created (the first run) or appended (the run continued).
void write_frames(chunkwise::thread_policy& pool, const h5::dataset& ds, std::size_t first, std::size_t last,
                  const std::filesystem::path& file, const std::filesystem::path& group, write_mode mode) {
    std::vector<chunkwise::block> blocks;
    for (const chunkwise::block& b : h5::partition(ds, chunkwise::parts{pool.workers() * 4}))
        if (b.end > first && b.begin < last)
            blocks.push_back(chunkwise::block{blocks.size(), std::max(b.begin, first), std::min(b.end, last)});
    auto results = chunkwise::map_blocks(pool, blocks, [&](const chunkwise::block& b) { return per_frame(ds, b); });
    // Each product is one partial_results of its own; the coordinate first, so that its scale exists.
    const auto field = [&](auto pick) {
        using R = decltype(pick(results.values()[0]));
        std::vector<R> values;
        for (const frame_results& r : results.values()) values.push_back(pick(r));
        return chunkwise::partial_results<R>(results.total_blocks(), results.indices(), std::move(values));
    };
    const auto units = [](const char* u, const char* what) {
        return chunkwise::attributes{{"units", std::string(u)}, {"long_name", std::string(what)}};
    };
    const auto store = [&](const std::string& name, auto pick, const chunkwise::attributes& attrs,
                           const std::vector<std::string>& dims) {
        h5::write_blocks(pool, file, name, field(pick),
                         {.chunk = {256}, .mode = mode, .growable = true, .attributes = attrs, .dimensions = dims});
        zarr::write_blocks(pool, group / name, field(pick),
                           {.chunk = {256}, .mode = mode, .attributes = attrs, .dimensions = dims});
    };
    if (mode == write_mode::create) {
        store("time", [](const frame_results& r) { return r.time; }, units("ps", "time"), {"time"});
        store("rgyr", [](const frame_results& r) { return r.rgyr; }, units("nm", "radius of gyration"), {"time"});
    } else {  // append: the options checked against the arrays there; attributes and names kept
        store("time", [](const frame_results& r) { return r.time; }, {}, {});
        store("rgyr", [](const frame_results& r) { return r.rgyr; }, {}, {});
    }
    const std::vector<std::string> cog_dims{"time", "spatial"};
    const auto cog = [](const frame_results& r) { return r.cog; };
    h5::write_blocks(
        pool, file, "cog", field(cog),
        {.chunk = {256, 3},
         .mode = mode,
         .growable = true,
         .attributes = mode == write_mode::create ? units("nm", "centre of geometry") : chunkwise::attributes{},
         .dimensions = cog_dims});
    zarr::write_blocks(
        pool, group / "cog", field(cog),
        {.chunk = {256, 3},
         .mode = mode,
         .attributes = mode == write_mode::create ? units("nm", "centre of geometry") : chunkwise::attributes{},
         .dimensions = cog_dims});
}

}  // namespace

int main(int argc, char** argv) {
    const std::size_t frames = example::arg(argc, argv, "--frames", 3000);
    const std::size_t continued = example::arg(argc, argv, "--continued", 1000);
    const std::size_t atoms = example::arg(argc, argv, "--atoms", 2000);
    const std::size_t ligand = example::arg(argc, argv, "--ligand", 100);
    const std::size_t threads = example::arg(argc, argv, "--threads", chunkwise::thread_policy::default_workers());
    const std::filesystem::path dir =
        example::text_arg(argc, argv, "--dir", (std::filesystem::temp_directory_path() / "chunkwise-12").string());
    if (continued == 0 || continued >= frames || ligand == 0 || ligand > atoms || threads == 0) {
        std::fprintf(stderr,
                     "usage: 12-products [--frames N] [--continued M < N] [--atoms A] [--ligand L <= A] "
                     "[--threads N] [--dir DIR]\n");
        return 2;
    }
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    const auto trajectory = dir / "traj.h5", file = dir / "products.h5", group = dir / "products.zarr";
    example::write_trajectory_h5(trajectory.string(), positions, frames, atoms, 64, atoms);
    const h5::dataset ds(trajectory, positions);
    chunkwise::thread_policy pool(threads);
    const std::size_t first_run = frames - continued;
    const auto t0 = std::chrono::steady_clock::now();

    // The first run: frames [0, first_run).
    zarr::create_group(group, {{"title", std::string("products of an H5MD trajectory")}});
    write_frames(pool, ds, 0, first_run, file, group, write_mode::create);
    const chunkwise::attributes rmsf_attrs{{"units", std::string("nm")}, {"long_name", std::string("RMSF per atom")}};
    const std::vector<double> rmsf_first = rmsf(pool, ds, 0, first_run);
    h5::write(file, "rmsf", rmsf_first, {.attributes = rmsf_attrs, .dimensions = {"atom"}});
    zarr::write(group / "rmsf", rmsf_first, {.attributes = rmsf_attrs, .dimensions = {"atom"}});
    std::printf("first run: %zu frames, time, rgyr, cog and rmsf written to %s and %s (%.2f s)\n", first_run,
                file.filename().c_str(), group.filename().c_str(), example::seconds_since(t0));

    // The run continued: frames [first_run, frames) appended.
    const auto t1 = std::chrono::steady_clock::now();
    write_frames(pool, ds, first_run, frames, file, group, write_mode::append);
    std::printf("continued: %zu frames appended (%.2f s)\n", continued, example::seconds_since(t1));

    // The ligand (atoms [0, ligand)) re-analysed over both runs: its rows of rmsf updated, the others kept.
    const auto t2 = std::chrono::steady_clock::now();
    const std::vector<double> rmsf_all = rmsf(pool, ds, 0, frames);
    const std::vector<double> ligand_rmsf(rmsf_all.begin(), rmsf_all.begin() + static_cast<std::ptrdiff_t>(ligand));
    h5::write(file, "rmsf", ligand_rmsf, {.mode = write_mode::update, .first_row = 0});
    zarr::write(group / "rmsf", ligand_rmsf, {.mode = write_mode::update, .first_row = 0});
    std::printf("ligand: rmsf of atoms [0, %zu) updated over all %zu frames (%.2f s)\n", ligand, frames,
                example::seconds_since(t2));

    // Read back from both stores.
    const auto h5_rgyr = h5::dataset(file, "rgyr").read<double, 1>(chunkwise::block{0, 0, frames});
    const auto zarr_rgyr = zarr::array(group / "rgyr").read<double, 1>(chunkwise::block{0, 0, frames});
    const auto h5_rmsf = h5::dataset(file, "rmsf").read<double, 1>(chunkwise::block{0, 0, atoms});
    const bool kept =
        h5_rmsf(ligand - 1) == rmsf_all[ligand - 1] && (ligand == atoms || h5_rmsf(ligand) == rmsf_first[ligand]);
    std::printf(
        "read back: time %zu frames in both; rgyr the same in both: %s; rmsf updated and kept: %s; "
        "dimensions %s, %s\n",
        zarr::array(group / "time").shape()[0], h5_rgyr == zarr_rgyr ? "yes" : "NO", kept ? "yes" : "NO",
        h5::dataset(file, "cog").dimensions()[0].c_str(), zarr::array(group / "cog").dimensions()[1].c_str());
    std::printf("products: %s, %s (check: python3 examples/products_check.py %s)\n", file.string().c_str(),
                group.string().c_str(), dir.string().c_str());
    return 0;
}
