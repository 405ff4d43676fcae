#pragma once
// Shared by 04-rechunk, 05-hdf5-trajectory and 09-mpi-hdf5: rewrite a dataset with another chunk
// shape and compression, in parallel, on threads or across MPI ranks. Workers read blocks (decoding
// in parallel) and hand each to an h5::stream_writer, which cuts, shuffles and deflates the new
// chunks in the same worker; only the final H5Dwrite_chunk holds the HDF5 lock (under MPI the root
// writes the file, the other ranks' encoded chunks reaching it through their spill files). Blocks
// of whole output chunk rows never wait for each other; a process holds only the blocks its
// workers are on.
#include <chunkwise/chunkwise.hpp>
#include <chunkwise/hdf5.hpp>

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

namespace example {

struct rechunk_options {
    std::vector<std::size_t> chunk;  // empty: one row per chunk, (1, rest of the shape)
    int deflate = 0;
    bool shuffle = false;
    std::size_t threads = 2;
};

struct rechunk_result {
    std::size_t chunks = 0;
    std::size_t bytes_in = 0;
    chunkwise::run_stats stats;
};

// On the workers of `policy` (collective under MPI: every rank calls it with the same arguments).
template <class T, class Policy>
rechunk_result rechunk(Policy& policy, const chunkwise::h5::dataset& src, const std::string& out_file,
                       const std::string& out_path, rechunk_options opt) {
    namespace h5 = chunkwise::h5;
    const auto dims = src.shape();
    if (opt.chunk.empty()) {
        opt.chunk = dims;
        opt.chunk[0] = 1;
    }
    if (opt.chunk.size() != dims.size()) {
        throw std::invalid_argument("rechunk: the chunk shape needs " + std::to_string(dims.size()) + " axes");
    }
    h5::write_options wo;
    wo.chunk = opt.chunk;
    wo.deflate = opt.deflate;
    wo.shuffle = opt.shuffle;
    h5::stream_writer<T> out(policy, out_file, out_path, dims, wo);

    const auto blocks = chunkwise::partition(dims[0], chunkwise::parts{std::max<std::size_t>(policy.workers(), 1) * 8},
                                             chunkwise::align{opt.chunk[0]});
    auto partial = chunkwise::map_blocks(policy, blocks, [&](const chunkwise::block& b) {
        const auto rows = src.read<T>(b);
        out.write(b, rows);  // written now, from this worker
    });
    out.close();
    rechunk_result r;
    r.stats = partial.stats();
    r.chunks = 1;
    for (std::size_t d = 0; d < dims.size(); ++d) r.chunks *= (dims[d] + opt.chunk[d] - 1) / opt.chunk[d];
    r.bytes_in = std::accumulate(dims.begin(), dims.end(), sizeof(T), std::multiplies<>{});
    return r;
}

// On opt.threads threads.
template <class T>
rechunk_result rechunk(const chunkwise::h5::dataset& src, const std::string& out_file, const std::string& out_path,
                       rechunk_options opt) {
    chunkwise::thread_policy pool(opt.threads);
    return rechunk<T>(pool, src, out_file, out_path, std::move(opt));
}

}  // namespace example
