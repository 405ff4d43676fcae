// packaging.new_codec: a copy of include/ with codecs/xor.hpp added and one line in the codec
// floor's codecs/table.hpp. The new codec is written by both stores (h5::write through the
// workers' encoders; zarr::write in formats 2 and 3), read back in the worker to the bit, listed
// by h5::known_filters, named in the errors of both stores.
#include <chunkwise/hdf5.hpp>
#include <chunkwise/zarr.hpp>

#include <cstdio>
#include <filesystem>
#include <string>

int main(int argc, char** argv) {
    if (argc != 2) return 2;
    const std::filesystem::path dir = argv[1];
    const std::filesystem::path file = dir / "xor.h5";
    std::filesystem::remove(file);
    xt::xtensor<double, 2> a = xt::xtensor<double, 2>::from_shape({37, 11});
    for (std::size_t i = 0; i < a.size(); ++i) a.data()[i] = static_cast<double>(i) * 0.25 - 3;
    chunkwise::h5::write_options opt;
    opt.chunk = {5, 11};
    opt.shuffle = true;  // HDF5's shuffle before it, as for any codec
    opt.codec = "xor";
    opt.level = 0x5a;
    chunkwise::h5::write(file, "/x", a, opt);
    chunkwise::h5::dataset ds(file, "/x");
    const auto back = ds.read<double, 2>(chunkwise::block{0, 0, 37});
    bool same = back == a;
    bool listed = false;
    for (const auto& f : chunkwise::h5::known_filters()) listed = listed || (f.name == "xor" && f.decoded_here && f.writable);
    chunkwise::h5::write_options bad = opt;
    bad.level = 300;
    const std::string problem = chunkwise::h5::codec_problem(bad);
    // The same codec in Zarr, v2 (after numcodecs' shuffle filter) and v3, with no line of Zarr's.
    bool zarr_same = true;
    std::string zarr_codecs;
    for (int format : {2, 3}) {
        const auto store = dir / ("xor" + std::to_string(format) + ".zarr");
        chunkwise::zarr::write(store, a, {.chunk = {5, 11}, .shuffle = format == 2, .codec = "xor", .level = 0x5a, .format = format,
                                          .mode = chunkwise::write_mode::replace});
        const chunkwise::zarr::array z(store);
        zarr_same = zarr_same && z.read<double, 2>(chunkwise::block{0, 0, 37}) == a;
        for (const auto& c : z.codecs()) zarr_codecs += (zarr_codecs.empty() ? "" : ", ") + c;
    }
    const std::string zarr_problem = chunkwise::zarr::options_problem({.codec = "xor", .level = 300});
    std::printf("filters %s, %s; read back %s; listed %s; bad key: %s; zarr %s read back %s; bad key: %s\n",
                ds.filters()[0].c_str(), ds.filters()[1].c_str(), same ? "to the bit" : "WRONG", listed ? "yes" : "no",
                problem.c_str(), zarr_codecs.c_str(), zarr_same ? "to the bit" : "WRONG", zarr_problem.c_str());
    return same && zarr_same && listed && ds.decodes_in_worker<double>() ? 0 : 1;
}
