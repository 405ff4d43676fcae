// packaging.new_codec: a copy of include/ with filters/xor.hpp added and one line in
// filters/table.hpp. The new filter is written (h5::write, through the workers' encoders),
// read back in the worker to the bit, listed by h5::known_filters, and named in the errors.
#include <chunkwise/hdf5.hpp>

#include <cstdio>
#include <filesystem>
#include <string>

int main(int argc, char** argv) {
    if (argc != 2) return 2;
    const std::filesystem::path file = std::filesystem::path(argv[1]) / "xor.h5";
    std::filesystem::remove(file);
    xt::xtensor<double, 2> a = xt::xtensor<double, 2>::from_shape({37, 11});
    for (std::size_t i = 0; i < a.size(); ++i) a.data()[i] = static_cast<double>(i) * 0.25 - 3;
    chunkwise::h5::write_options opt;
    opt.chunk = {5, 11};
    opt.codec = "xor";
    opt.level = 0x5a;
    opt.shuffle = true;  // HDF5's shuffle before it, as for any codec
    chunkwise::h5::write(file, "/x", a, opt);
    chunkwise::h5::dataset ds(file, "/x");
    const auto back = ds.read<double, 2>(chunkwise::block{0, 0, 37});
    bool same = back == a;
    bool listed = false;
    for (const auto& f : chunkwise::h5::known_filters()) listed = listed || (f.name == "xor" && f.decoded_here && f.writable);
    chunkwise::h5::write_options bad = opt;
    bad.level = 300;
    const std::string problem = chunkwise::h5::codec_problem(bad);
    std::printf("filters %s, %s; read back %s; listed %s; bad key: %s\n", ds.filters()[0].c_str(),
                ds.filters()[1].c_str(), same ? "to the bit" : "WRONG", listed ? "yes" : "no", problem.c_str());
    return same && listed && ds.decodes_in_worker<double>() ? 0 : 1;
}
