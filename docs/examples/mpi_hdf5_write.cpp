// docs/hdf5.md "Writing results": every rank analyses its blocks of a trajectory and
// h5::write_blocks puts all results into one dataset. ctest runs it on 2 ranks.
#include <chunkwise/chunkwise.hpp>
#include <chunkwise/hdf5.hpp>
#include <chunkwise/mpi.hpp>

#include <boost/mpi/collectives/broadcast.hpp>
#include <boost/mpi/environment.hpp>

#include <cstdio>
#include <filesystem>

// The user's per-frame analysis: here each atom's coordinates, centred on the frame's mean.
static xt::xtensor<float, 3> analyse(const xt::xtensor<float, 3>& frames) {
    xt::xtensor<float, 3> out = frames;
    for (std::size_t f = 0; f < frames.shape()[0]; ++f)
        for (std::size_t k = 0; k < 3; ++k) {
            double mean = 0;
            for (std::size_t a = 0; a < frames.shape()[1]; ++a) mean += frames(f, a, k);
            mean /= double(frames.shape()[1]);
            for (std::size_t a = 0; a < frames.shape()[1]; ++a) out(f, a, k) = float(frames(f, a, k) - mean);
        }
    return out;
}

int main(int argc, char** argv) {
    namespace fs = std::filesystem;
    boost::mpi::environment env(argc, argv, boost::mpi::threading::funneled);
    chunkwise::mpi_policy mpi;
    const fs::path work = fs::temp_directory_path() / "chunkwise-doc-mpi-hdf5";
    if (mpi.is_root()) {  // rank 0 makes the input: 24 frames x 2000 atoms
        fs::remove_all(work);
        fs::create_directories(work);
        xt::xtensor<float, 3> xyz = xt::xtensor<float, 3>::from_shape({24, 2000, 3});
        for (std::size_t i = 0; i < xyz.size(); ++i) xyz.data()[i] = float(i % 11);
        chunkwise::h5::write(work / "in.h5", "/positions", xyz, chunkwise::h5::write_options{{4, 2000, 3}, 0, false});
    }
    int ready = 1;
    boost::mpi::broadcast(mpi.communicator(), ready, 0);  // the others wait for it
    fs::current_path(work);
    const chunkwise::h5::dataset ds("in.h5", "/positions");
    const auto blocks = chunkwise::h5::partition(ds, chunkwise::parts{6});

    auto frames = chunkwise::map_blocks(mpi, blocks, [&](const chunkwise::block& b) { return analyse(ds.read<float, 3>(b)); });
    chunkwise::h5::write_options opt;
    opt.chunk = {1, 1000, 3};
    chunkwise::h5::write_blocks(mpi, "out.h5", "/analysis/frames", std::move(frames), opt);

    if (mpi.is_root()) {
        const chunkwise::h5::dataset out("out.h5", "/analysis/frames");
        const auto all = out.read<float, 3>(chunkwise::items(0, 24));
        const bool same = all == analyse(ds.read<float, 3>(chunkwise::items(0, 24)));
        const std::vector<std::size_t> chunk = out.chunk_shape().value();
        std::printf("/analysis/frames: %zu x %zu x %zu, chunks %zu x %zu x %zu, equal to a serial pass: %s\n",
                    out.shape()[0], out.shape()[1], out.shape()[2], chunk[0], chunk[1], chunk[2], same ? "yes" : "no");
        fs::current_path(work.parent_path());
        fs::remove_all(work);
    }
}
