#pragma once
// The reference workload of chunkwise-bench: RMSD per frame after superposition, over
// chunk-aligned blocks of about `block_bytes`, each read into the worker's reused buffer (the
// way docs/hdf5.md teaches).
#include "../common/io.hpp"
#include "qcp.hpp"

#include <chunkwise/chunkwise.hpp>
#include <chunkwise/hdf5.hpp>

#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

namespace bench_rmsd {

/// RMSD to `ref` of each of `n` frames of `atoms` x 3 floats at `frames`, over the atoms `selection`,
/// into out[0, n); `x` is scratch.
inline void frames_rmsd(const float* frames, std::size_t n, std::size_t atoms,
                        const std::vector<std::size_t>& selection, const reference& ref, std::vector<double>& x,
                        double* out) {
    for (std::size_t f = 0; f < n; ++f) {
        const double g = centred_selection(frames + f * atoms * 3, selection, x);
        out[f] = qcp_rmsd(ref, x, g);
    }
}

/// RMSD of every frame to frame 0 after optimal superposition, over every `every`-th atom.
class rmsd_workload {
public:
    rmsd_workload(const std::filesystem::path& file, const std::string& path, std::size_t every,
                  std::size_t block_bytes)
            : ds_(file, path) {
        const auto shape = ds_.shape();
        if (ds_.rank() != 3 || shape[2] != 3) {
            throw std::invalid_argument(file.string() + ":" + path + " has shape " + bench_io::shape_text(shape) +
                                        ", not (frames, atoms, 3)");
        }
        if (shape[0] == 0 || shape[1] == 0)
            throw std::invalid_argument(file.string() + ":" + path + " holds no frames");
        atoms_ = shape[1];
        selection_ = every_nth(atoms_, every);
        const auto first = ds_.read<float, 3>(chunkwise::block{0, 0, 1});
        reference_ = make_reference(first.data(), selection_);
        blocks_ = chunkwise::h5::partition(ds_, chunkwise::h5::block_bytes{block_bytes});
    }

    [[nodiscard]] std::size_t frames() const { return ds_.shape()[0]; }
    [[nodiscard]] std::size_t selected() const { return selection_.size(); }
    [[nodiscard]] std::size_t blocks() const { return blocks_.size(); }
    [[nodiscard]] const std::vector<chunkwise::block>& block_list() const { return blocks_; }

    template <class Policy>
    auto run(Policy& policy) const {
        return chunkwise::map_blocks(policy, blocks_, [this](const chunkwise::block& b) {
            thread_local std::vector<double> x;
            const auto frames = ds_.read<float, 3>(b, buffer());
            std::vector<double> out(b.size());
            frames_rmsd(frames.data(), b.size(), atoms_, selection_, reference_, x, out.data());
            return out;
        });
    }

    /// The same blocks read the same way, without the RMSD: the read alone (returns each
    /// block's first value, so the read cannot be left out).
    template <class Policy>
    auto read_only(Policy& policy) const {
        return chunkwise::map_blocks(policy, blocks_, [this](const chunkwise::block& b) {
            const auto frames = ds_.read<float, 3>(b, buffer());
            return frames(0, 0, 0);
        });
    }

private:
    /// The calling thread's read buffer, one per thread for every pass and workload.
    static chunkwise::h5::read_buffer<float>& buffer() {
        thread_local chunkwise::h5::read_buffer<float> b;
        return b;
    }

    chunkwise::h5::dataset ds_;
    std::size_t atoms_ = 0;
    std::vector<std::size_t> selection_;
    reference reference_;
    std::vector<chunkwise::block> blocks_;
};

}  // namespace bench_rmsd
