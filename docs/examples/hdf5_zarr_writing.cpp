// docs/writing.md's program: the same array written to HDF5 and to Zarr with one designated
// initializer of options, read back; the same mode refusing to overwrite in both, and replacing;
// attributes written with an array and on what exists, read back from both; dimension names; results streamed from
// the workers of a thread policy into both stores; rows appended and updated in both.
#include <chunkwise/chunkwise.hpp>
#include <chunkwise/hdf5.hpp>
#include <chunkwise/zarr.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>
#include <variant>

int main() {
    namespace h5 = chunkwise::h5;
    namespace zarr = chunkwise::zarr;
    const std::filesystem::path dir = std::filesystem::temp_directory_path() / "chunkwise-writing-guide";
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    const std::filesystem::path file = dir / "out.h5";
    xt::xtensor<double, 2> a = xt::xtensor<double, 2>::from_shape({12, 4});
    for (std::size_t i = 0; i < a.size(); ++i) a.data()[i] = std::sin(static_cast<double>(i));

    h5::write(file, "/a", a, h5::write_options{.chunk = {4, 4}, .shuffle = true, .codec = "bz2"});
    zarr::write(dir / "a.zarr", a, zarr::write_options{.chunk = {4, 4}, .shuffle = true, .codec = "bz2"});

    {  // read back; the file is closed again at the brace, before it is written to below
        const h5::dataset d(file, "/a");
        const zarr::array z(dir / "a.zarr");
        const bool same =
            d.read<double, 2>(chunkwise::block{0, 0, 12}) == z.read<double, 2>(chunkwise::block{0, 0, 12});
        std::printf("HDF5 %s, %s + %s; Zarr v%d %s, %s + %s; read back %s\n", d.dtype().c_str(), d.codecs()[0].c_str(),
                    d.codecs()[1].c_str(), z.format(), z.dtype().c_str(), z.codecs()[0].c_str(), z.codecs()[1].c_str(),
                    same ? "the same" : "DIFFERENT");
    }

    // write_mode::create (the default) refuses what exists, in both; replace replaces it.
    for (const auto& attempt :
         {+[](const std::filesystem::path&f, const xt::xtensor<double, 2>&x) { h5::write(f, "/a", x); },
          +[](const std::filesystem::path&f, const xt::xtensor<double, 2>&x) {
              zarr::write(f.parent_path() / "a.zarr", x);
          }}) {
        try {
            attempt(file, a);
        } catch (const chunkwise::error& e) {
            const std::string what = e.what();
            std::printf("refused: ...%s\n", what.substr(what.rfind(": ") + 2).c_str());
        }
    }
    xt::xtensor<double, 2> twice = a * 2.0;
    h5::write(file, "/a", twice, {.mode = chunkwise::write_mode::replace});
    zarr::write(dir / "a.zarr", twice, {.mode = chunkwise::write_mode::replace});
    std::printf("replaced: %.4f and %.4f\n", h5::dataset(file, "/a").read<double, 2>(chunkwise::block{0, 1, 2})(0, 0),
                zarr::array(dir / "a.zarr").read<double, 2>(chunkwise::block{0, 1, 2})(0, 0));

    // Attributes: with a new array, or on what exists (a dataset, a group, "/"; an array, a group).
    const chunkwise::attributes about{{"units", std::string("nm")}, {"timestep", 0.002}};
    h5::write(file, "/b", a, {.chunk = {4, 4}, .attributes = about});
    zarr::write(dir / "b.zarr", a, {.chunk = {4, 4}, .format = 3, .attributes = about});
    h5::set_attributes(file, "/b", {{"frames", std::int64_t{12}}});
    zarr::set_attributes(dir / "b.zarr", {{"frames", std::int64_t{12}}});
    const chunkwise::attributes from_h5 = h5::dataset(file, "/b").attrs();
    const chunkwise::attributes from_zarr = zarr::array(dir / "b.zarr").attrs();
    std::printf("attributes: %zu in each, the same in both: %s; units %s, frames %lld\n", from_h5.size(),
                from_h5 == from_zarr ? "yes" : "NO", std::get<std::string>(from_zarr.at("units")).c_str(),
                static_cast<long long>(std::get<std::int64_t>(from_h5.at("frames"))));

    // Dimension names: netCDF-4's dimension scales in HDF5, _ARRAY_DIMENSIONS (v2) or dimension_names (v3) in
    // Zarr, so that xarray opens both with named dimensions.
    zarr::create_group(dir / "products.zarr");
    h5::write(file, "/products/rmsd", a, {.attributes = about, .dimensions = {"frame", "atom"}});
    zarr::write(dir / "products.zarr/rmsd", a, {.attributes = about, .dimensions = {"frame", "atom"}});
    const std::vector<std::string> h5_dims = h5::dataset(file, "/products/rmsd").dimensions();
    const std::vector<std::string> zarr_dims = zarr::array(dir / "products.zarr/rmsd").dimensions();
    std::printf("dimensions: %s, %s in both: %s\n", h5_dims.at(0).c_str(), h5_dims.at(1).c_str(),
                h5_dims == zarr_dims ? "yes" : "NO");

    // Append and update: rows added at the end, rows written in place; the rest of each chunk is kept.
    const auto rows_of = [](std::size_t n, double v) {
        xt::xtensor<double, 2> r = xt::xtensor<double, 2>::from_shape({n, 4});
        r.fill(v);
        return r;
    };
    const xt::xtensor<double, 2> first = rows_of(6, 1.0), more = rows_of(3, 2.0), patch = rows_of(2, 3.0);
    h5::write(file, "/x", first, h5::write_options{.chunk = {3, 4}, .growable = true});
    h5::write(file, "/x", more, h5::write_options{.mode = chunkwise::write_mode::append});
    h5::write(file, "/x", patch, h5::write_options{.mode = chunkwise::write_mode::update, .first_row = 4});
    zarr::write(dir / "x.zarr", first, zarr::write_options{.chunk = {3, 4}, .codec = "zstd"});
    zarr::write(dir / "x.zarr", more, zarr::write_options{.mode = chunkwise::write_mode::append});
    zarr::write(dir / "x.zarr", patch, zarr::write_options{.mode = chunkwise::write_mode::update, .first_row = 4});
    {
        const auto h = h5::dataset(file, "/x").read<double, 2>(chunkwise::block{0, 0, 9});
        const auto z = zarr::array(dir / "x.zarr").read<double, 2>(chunkwise::block{0, 0, 9});
        std::printf("append and update: rows");
        for (std::size_t r = 0; r < 9; ++r) std::printf(" %.0f", h(r, 0));
        std::printf("; the same in both: %s\n", h == z ? "yes" : "NO");
    }

    // Streaming: each worker writes its block's result the moment it has it; nothing is gathered or held.
    chunkwise::thread_policy threads{2};
    const auto blocks = chunkwise::partition(1000, chunkwise::parts{8}, chunkwise::align{100});
    h5::stream_writer<float> hs(file, "/stream", {1000, 3}, {.chunk = {100, 3}, .codec = "zstd"});
    zarr::stream_writer<float> zs(dir / "stream.zarr", {1000, 3}, {.chunk = {100, 3}, .codec = "zstd"});
    (void)chunkwise::map_blocks(threads, blocks, [&](const chunkwise::block& b) {
        xt::xtensor<float, 2> r = xt::xtensor<float, 2>::from_shape({b.size(), 3});
        for (std::size_t i = 0; i < r.size(); ++i) r.data()[i] = static_cast<float>(b.begin * 3 + i);
        hs.write(b, r);  // encoded and written here, in this worker
        zs.write(b, r);
        return b.size();
    });
    hs.close();
    zs.close();
    std::printf("streamed: %zu blocks; bytes held back %zu and %zu; last value %.0f and %.0f\n", blocks.size(),
                hs.peak_buffered_bytes(), zs.peak_buffered_bytes(),
                h5::dataset(file, "/stream").read<float, 2>(chunkwise::items(999, 1000))(0, 2),
                zarr::array(dir / "stream.zarr").read<float, 2>(chunkwise::items(999, 1000))(0, 2));
    std::filesystem::remove_all(dir);
}
