#pragma once
// The decode floor of chunkwise-bench read, codecs and first-read: every stored chunk of a dataset,
// read into memory first (set-up, not timed), decoded by the dataset's own pipeline
// (h5::decode_chunk: each filter by chunkwise's codec for it, shuffle included) on N threads at
// once, each thread a contiguous share of the chunks into a buffer of its own, allocated and
// touched before the clock starts. What N decoders alone give on this machine, with no file and
// no HDF5 in it: beside the pread floor (floor.hpp), the floor of a read that must do both is
// their sum, at each N.
#include "floor.hpp"

#include <chunkwise/hdf5.hpp>

#include <hdf5.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace bench_floor {

/// Every stored chunk of a dataset (1 filter mask each), in memory.
struct stored_chunks {
    std::vector<std::vector<unsigned char>> bytes;
    std::vector<std::uint32_t> masks;
    std::size_t chunk_bytes = 0;
};

/// The stored chunks of `path` in `file`, row-major in the chunk grid, with plain HDF5
/// (H5Dread_chunk); a dataset that is not chunked is refused.
inline stored_chunks load_stored(const std::filesystem::path& file, const std::string& path) {
    chunkwise::h5::library_lock lock;
    stored_chunks s;
    const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0) throw std::runtime_error("H5Fopen " + file.string() + " failed");
    const hid_t d = H5Dopen2(f, path.c_str(), H5P_DEFAULT);
    const hid_t space = H5Dget_space(d);
    const int rank = H5Sget_simple_extent_ndims(space);
    std::vector<hsize_t> dims(static_cast<std::size_t>(rank)), chunk(dims.size()), at(dims.size(), 0);
    H5Sget_simple_extent_dims(space, dims.data(), nullptr);
    const hid_t dcpl = H5Dget_create_plist(d);
    if (H5Pget_layout(dcpl) != H5D_CHUNKED) throw std::invalid_argument(path + " is not chunked");
    H5Pget_chunk(dcpl, rank, chunk.data());
    const hid_t type = H5Dget_type(d);
    s.chunk_bytes = H5Tget_size(type);
    for (hsize_t c : chunk) s.chunk_bytes *= static_cast<std::size_t>(c);
    H5Tclose(type);
    bool more = !dims.empty() && dims[0] > 0;
    while (more) {
        hsize_t size = 0;
        if (H5Dget_chunk_storage_size(d, at.data(), &size) >= 0 && size > 0) {
            std::vector<unsigned char> b(static_cast<std::size_t>(size));
            std::uint32_t mask = 0;
            if (H5Dread_chunk(d, H5P_DEFAULT, at.data(), &mask, b.data()) < 0)
                throw std::runtime_error("H5Dread_chunk failed");
            s.bytes.push_back(std::move(b));
            s.masks.push_back(mask);
        }
        for (std::size_t k = dims.size(); k-- > 0;) {
            at[k] += chunk[k];
            if (at[k] < dims[k]) break;
            at[k] = 0;
            if (k == 0) more = false;
        }
    }
    H5Pclose(dcpl);
    H5Sclose(space);
    H5Dclose(d);
    H5Fclose(f);
    return s;
}

/// The stored chunks of one dataset decoded from memory on N threads at once.
class decode_floor {
public:
    decode_floor(const std::filesystem::path& file, const std::string& path)
            : raw_(load_stored(file, path)), ds_(file, path) {}
    decode_floor(const decode_floor&) = delete;
    decode_floor& operator=(const decode_floor&) = delete;

    /// Makes the threads and one output buffer per thread for up to `threads`, each touched once.
    void prepare(std::size_t threads) {
        while (out_.size() < threads) out_.emplace_back(std::max<std::size_t>(raw_.chunk_bytes, 1), 1);
        (void)teams_.of(threads);
    }

    /// Decodes every stored chunk once, on `threads` threads (each a contiguous share); throws
    /// where a chunk decodes to another size than a chunk's.
    void pass(std::size_t threads) {
        prepare(threads);
        const std::size_t n = raw_.bytes.size();
        std::vector<int> wrong(threads, 0);
        teams_.of(threads).run([&](std::size_t t) {
            for (std::size_t k = n * t / threads; k < n * (t + 1) / threads; ++k) {
                if (chunkwise::h5::decode_chunk(ds_, raw_.bytes[k], raw_.masks[k], out_[t]) != raw_.chunk_bytes)
                    wrong[t] = 1;
            }
        });
        for (int w : wrong) {
            if (w != 0) throw std::runtime_error("decode floor: a chunk decodes to another size than a chunk's");
        }
    }

    /// Frees the chunks, the buffers and the threads (before memory is measured).
    void release() {
        stored_chunks().bytes.swap(raw_.bytes);
        std::vector<std::vector<unsigned char>>().swap(out_);
        teams_.clear();
    }

    /// The stored chunks (for the codec-alone figures that read them too).
    [[nodiscard]] const stored_chunks& chunks() const noexcept { return raw_; }

    /// Bytes stored.
    [[nodiscard]] std::size_t stored_bytes() const noexcept {
        std::size_t s = 0;
        for (const auto& b : raw_.bytes) s += b.size();
        return s;
    }

private:
    stored_chunks raw_;
    chunkwise::h5::dataset ds_;
    std::vector<std::vector<unsigned char>> out_;
    teams teams_;
};

}  // namespace bench_floor
