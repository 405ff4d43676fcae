#pragma once
// Shared by 04-rechunk and 05-hdf5-trajectory: rewrite a dataset with another chunk shape and
// compression, in parallel. Workers read chunk-aligned blocks of rows (decoding in parallel),
// cut them into the new chunks, shuffle and deflate each chunk themselves, and only the final
// H5Dwrite_chunk holds the HDF5 lock.
#include <chunkwise/chunkwise.hpp>
#include <chunkwise/hdf5.hpp>

#include <zlib.h>

#include <algorithm>
#include <cstring>
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
    std::size_t bytes_in = 0, bytes_out = 0;
    chunkwise::run_stats stats;
};

// Copies the part of `rows` (rows [first_row, ...) of the dataset, row-major) that lies in the
// chunk at `off` into `chunk_buf` (zero padded where the chunk passes the dataset's edge).
template <class T>
void cut_chunk(const T* rows, std::size_t first_row, const std::vector<std::size_t>& dims,
               const std::vector<std::size_t>& chunk, const std::vector<std::size_t>& off, std::vector<T>& chunk_buf) {
    const std::size_t n = dims.size();
    std::fill(chunk_buf.begin(), chunk_buf.end(), T{});
    std::vector<std::size_t> idx(n, 0), cs(n, 1), ds(n, 1);
    for (std::size_t d = n - 1; d > 0; --d) {
        cs[d - 1] = cs[d] * chunk[d];
        ds[d - 1] = ds[d] * dims[d];
    }
    const std::size_t run = std::min(chunk[n - 1], dims[n - 1] - off[n - 1]);
    for (;;) {
        bool inside = true;
        std::size_t src = 0, dst = 0;
        for (std::size_t d = 0; d + 1 < n; ++d) {
            const std::size_t pos = off[d] + idx[d];
            if (pos >= dims[d]) inside = false;
            src += (d == 0 ? pos - first_row : pos) * ds[d];
            dst += idx[d] * cs[d];
        }
        if (inside) std::copy_n(rows + src + off[n - 1], run, chunk_buf.data() + dst);
        std::size_t d = n - 1;
        for (;;) {
            if (d == 0) return;
            --d;
            if (++idx[d] < chunk[d]) break;
            idx[d] = 0;
        }
    }
}

template <class T>
rechunk_result rechunk(const chunkwise::h5::dataset& src, const std::string& out_file, const std::string& out_path,
                       rechunk_options opt, hid_t file_type) {
    namespace h5 = chunkwise::h5;
    const auto dims = src.shape();
    const std::size_t n = dims.size();
    if (opt.chunk.empty()) {
        opt.chunk = dims;
        opt.chunk[0] = 1;
    }
    if (opt.chunk.size() != n) throw std::invalid_argument("rechunk: the chunk shape needs " + std::to_string(n) + " axes");
    for (std::size_t d = 0; d < n; ++d) opt.chunk[d] = std::max<std::size_t>(1, opt.chunk[d]);

    // Create the output dataset.
    hid_t dset = -1, file = -1;
    {
        h5::library_lock lock;
        file = std::filesystem::exists(out_file) ? H5Fopen(out_file.c_str(), H5F_ACC_RDWR, H5P_DEFAULT)
                                                 : H5Fcreate(out_file.c_str(), H5F_ACC_EXCL, H5P_DEFAULT, H5P_DEFAULT);
        if (file < 0) throw std::runtime_error("rechunk: cannot open " + out_file + ": " + h5::last_hdf5_error());
        std::vector<hsize_t> hd(dims.begin(), dims.end()), hc(opt.chunk.begin(), opt.chunk.end());
        hid_t space = H5Screate_simple(static_cast<int>(n), hd.data(), nullptr);
        hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
        hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);
        H5Pset_create_intermediate_group(lcpl, 1);
        H5Pset_chunk(dcpl, static_cast<int>(n), hc.data());
        if (opt.shuffle) H5Pset_shuffle(dcpl);
        if (opt.deflate > 0) H5Pset_deflate(dcpl, static_cast<unsigned>(opt.deflate));
        dset = H5Dcreate2(file, out_path.c_str(), file_type, space, lcpl, dcpl, H5P_DEFAULT);
        H5Pclose(lcpl);
        H5Pclose(dcpl);
        H5Sclose(space);
        if (dset < 0) {
            H5Fclose(file);
            throw std::runtime_error("rechunk: cannot create " + out_path + ": " + h5::last_hdf5_error());
        }
    }

    // Blocks of whole output chunk rows; each worker reads, cuts, compresses and writes its chunks.
    chunkwise::thread_policy pool(opt.threads);
    const auto blocks = chunkwise::partition(dims[0], chunkwise::parts{opt.threads * 8}, chunkwise::align{opt.chunk[0]});
    const std::size_t chunk_elems = std::accumulate(opt.chunk.begin(), opt.chunk.end(), std::size_t{1}, std::multiplies<>{});
    std::vector<std::size_t> grid(n);
    for (std::size_t d = 0; d < n; ++d) grid[d] = (dims[d] + opt.chunk[d] - 1) / opt.chunk[d];

    auto partial = chunkwise::map_blocks(pool, blocks, [&](const chunkwise::block& b) {
        const auto rows = src.read<T>(b);
        std::vector<T> chunk_buf(chunk_elems);
        std::vector<unsigned char> shuffled(chunk_elems * sizeof(T));
        std::vector<unsigned char> packed(compressBound(static_cast<uLong>(chunk_elems * sizeof(T))));
        std::size_t written = 0;
        std::vector<std::size_t> c(n, 0), off(n, 0);
        for (c[0] = b.begin / opt.chunk[0]; c[0] * opt.chunk[0] < b.end; ++c[0]) {
            std::fill(c.begin() + 1, c.end(), 0);
            for (;;) {
                for (std::size_t d = 0; d < n; ++d) off[d] = c[d] * opt.chunk[d];
                cut_chunk(rows.data(), b.begin, dims, opt.chunk, off, chunk_buf);
                const unsigned char* bytes = reinterpret_cast<const unsigned char*>(chunk_buf.data());
                std::size_t size = chunk_elems * sizeof(T);
                if (opt.shuffle) {
                    for (std::size_t e = 0; e < chunk_elems; ++e) {
                        for (std::size_t k = 0; k < sizeof(T); ++k) shuffled[k * chunk_elems + e] = bytes[e * sizeof(T) + k];
                    }
                    bytes = shuffled.data();
                }
                if (opt.deflate > 0) {
                    uLongf out_size = static_cast<uLongf>(packed.size());
                    if (compress2(packed.data(), &out_size, bytes, static_cast<uLong>(size), opt.deflate) != Z_OK) {
                        throw std::runtime_error("rechunk: deflate failed");
                    }
                    bytes = packed.data();
                    size = out_size;
                }
                std::vector<hsize_t> hoff(off.begin(), off.end());
                {
                    h5::library_lock lock;
                    if (H5Dwrite_chunk(dset, H5P_DEFAULT, 0, hoff.data(), size, bytes) < 0) {
                        throw std::runtime_error("rechunk: writing a chunk failed: " + h5::last_hdf5_error());
                    }
                }
                written += size;
                std::size_t d = n;
                bool more = false;
                while (d > 1) {
                    --d;
                    if (++c[d] < grid[d]) {
                        more = true;
                        break;
                    }
                    c[d] = 0;
                }
                if (!more) break;
            }
        }
        return written;
    });
    rechunk_result r;
    r.stats = partial.stats();
    r.bytes_out = chunkwise::reduce(pool, std::move(partial), std::plus<>{});
    r.chunks = std::accumulate(grid.begin(), grid.end(), std::size_t{1}, std::multiplies<>{});
    r.bytes_in = std::accumulate(dims.begin(), dims.end(), sizeof(T), std::multiplies<>{});
    {
        h5::library_lock lock;
        H5Dclose(dset);
        H5Fclose(file);
    }
    return r;
}

}  // namespace example
