// Decoded GB/s reading a float32 3-D dataset (frames x atoms x 3) in warm page cache, uncompressed
// chunked and deflate(1)+shuffle, with chunkwise::h5 on 1..N threads, against `cat FILE`
// (read(2) of the whole file into a buffer) and against plain H5Dread of the same blocks.
//
//   bench_hdf5_read [--dir DIR] [--gib SIZE] [--threads 1,2,...] [--repeats R] [--blocks-per-thread B]
//                   [--index-chunks N] [--keep]
//
// First it times opening, partitioning and reading a 1-D dataset of N tiny chunks (100000).
//
// Writes the two files into DIR first (about SIZE GiB each before compression); --keep leaves them.
// chunkwise reads B blocks per thread (default: one chunk of 64 frames per block, the buffer a
// block is read into then stays in cache, as cat's does).
#include <chunkwise/chunkwise.hpp>
#include <chunkwise/hdf5.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <sstream>
#include <thread>
#include <utility>
#include <string>
#include <vector>

namespace {

using clock_type = std::chrono::steady_clock;

double seconds(clock_type::time_point t0) { return std::chrono::duration<double>(clock_type::now() - t0).count(); }

std::string arg(int argc, char** argv, const char* name, const std::string& fallback) {
    for (int i = 1; i + 1 < argc; ++i) {
        if (std::strcmp(argv[i], name) == 0) return argv[i + 1];
    }
    return fallback;
}
bool flag(int argc, char** argv, const char* name) {
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], name) == 0) return true;
    }
    return false;
}

// A trajectory-like file: atoms jitter around fixed sites, so deflate compresses as it does on
// real coordinates (little).
void make_file(const std::string& path, std::size_t frames, std::size_t atoms, bool deflate) {
    std::filesystem::remove(path);
    hsize_t dims[3] = {frames, atoms, 3}, chunk[3] = {64, atoms, 3};
    hid_t f = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    hid_t space = H5Screate_simple(3, dims, nullptr);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, 3, chunk);
    if (deflate) {
        H5Pset_shuffle(dcpl);
        H5Pset_deflate(dcpl, 1);
    }
    hid_t d = H5Dcreate2(f, "/xyz", H5T_IEEE_F32LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    std::vector<float> buf(64 * atoms * 3);
    for (hsize_t start = 0; start < frames; start += 64) {
        const hsize_t n = std::min<hsize_t>(64, frames - start);
        for (hsize_t i = 0; i < n * atoms * 3; ++i) {
            const std::size_t site = i % (atoms * 3);
            buf[i] =
                static_cast<float>(site % 97) + 0.01f * static_cast<float>(std::sin(0.001 * double(start * 7 + i)));
        }
        hsize_t off[3] = {start, 0, 0}, cnt[3] = {n, atoms, 3};
        hid_t fs = H5Dget_space(d);
        H5Sselect_hyperslab(fs, H5S_SELECT_SET, off, nullptr, cnt, nullptr);
        hid_t ms = H5Screate_simple(3, cnt, nullptr);
        H5Dwrite(d, H5T_NATIVE_FLOAT, ms, fs, H5P_DEFAULT, buf.data());
        H5Sclose(ms);
        H5Sclose(fs);
    }
    H5Dclose(d);
    H5Pclose(dcpl);
    H5Sclose(space);
    H5Fclose(f);
}

// GB/s of read(2) through the whole file (what `cat FILE > /dev/null` does).
double cat_gbs(const std::string& path) {
    std::vector<char> buf(1 << 20);
    const auto t0 = clock_type::now();
    const int fd = ::open(path.c_str(), O_RDONLY);
    std::size_t total = 0;
    for (ssize_t got; (got = ::read(fd, buf.data(), buf.size())) > 0;) total += static_cast<std::size_t>(got);
    ::close(fd);
    return static_cast<double>(total) / seconds(t0) / 1e9;
}

template <class Policy>
double chunkwise_gbs(Policy& policy, const chunkwise::h5::dataset& ds, const std::vector<chunkwise::block>& blocks) {
    const std::size_t row = ds.shape()[1] * ds.shape()[2];
    const auto t0 = clock_type::now();
    auto sums = chunkwise::map_blocks(policy, blocks, [&](const chunkwise::block& b) {
        thread_local std::vector<float> buf;
        buf.resize(b.size() * row);
        ds.read_into(b, std::span<float>(buf));
        return buf[buf.size() / 2];
    });
    const double t = seconds(t0);
    (void)sums;
    return static_cast<double>(ds.shape()[0] * row * sizeof(float)) / t / 1e9;
}

double h5dread_gbs(const std::string& path, const std::vector<chunkwise::block>& blocks, std::size_t row) {
    hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    hid_t d = H5Dopen2(f, "/xyz", H5P_DEFAULT);
    std::vector<float> buf;
    const auto t0 = clock_type::now();
    std::size_t total = 0;
    for (const auto& b : blocks) {
        buf.resize(b.size() * row);
        hid_t fs = H5Dget_space(d);
        hsize_t dims[3];
        H5Sget_simple_extent_dims(fs, dims, nullptr);
        hsize_t off[3] = {b.begin, 0, 0}, cnt[3] = {b.size(), dims[1], dims[2]};
        H5Sselect_hyperslab(fs, H5S_SELECT_SET, off, nullptr, cnt, nullptr);
        hid_t ms = H5Screate_simple(3, cnt, nullptr);
        H5Dread(d, H5T_NATIVE_FLOAT, ms, fs, H5P_DEFAULT, buf.data());
        H5Sclose(ms);
        H5Sclose(fs);
        total += buf.size() * sizeof(float);
    }
    const double t = seconds(t0);
    H5Dclose(d);
    H5Fclose(f);
    return static_cast<double>(total) / t / 1e9;
}

// Opening, partitioning and reading a dataset of `chunks` chunks: chunkwise never asks HDF5 for
// chunk addresses (quadratic in HDF5 1.10), so all three stay linear.
void chunk_index_cost(const std::string& dir, std::size_t chunks) {
    const std::string path = dir + "/chunkwise-bench-many-chunks.h5";
    {
        hsize_t dims[1] = {chunks * 4}, chunk[1] = {4};
        hid_t f = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
        hid_t space = H5Screate_simple(1, dims, nullptr);
        hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
        H5Pset_chunk(dcpl, 1, chunk);
        hid_t d = H5Dcreate2(f, "/x", H5T_IEEE_F32LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
        std::vector<float> v(chunks * 4, 1.0f);
        H5Dwrite(d, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data());
        H5Dclose(d);
        H5Pclose(dcpl);
        H5Sclose(space);
        H5Fclose(f);
    }
    auto t0 = clock_type::now();
    chunkwise::h5::dataset ds(path, "/x");
    const auto blocks = chunkwise::h5::partition(ds, chunkwise::parts{16});
    const double open_s = seconds(t0);
    t0 = clock_type::now();
    double sum = 0;
    for (const auto& b : blocks) sum += ds.read<float, 1>(b)(0);
    const double read_s = seconds(t0);
    std::printf("# %zu chunks: open + partition %.4f s, reading every chunk %.3f s (%.1f us per chunk)\n", chunks,
                open_s, read_s, read_s / double(chunks) * 1e6);
    std::filesystem::remove(path);
    (void)sum;
}

}  // namespace

int main(int argc, char** argv) {
    const std::string dir = arg(argc, argv, "--dir", std::filesystem::temp_directory_path().string());
    const double gib = std::atof(arg(argc, argv, "--gib", "1").c_str());
    const int repeats = std::atoi(arg(argc, argv, "--repeats", "3").c_str());
    const std::size_t per_thread = std::stoul(arg(argc, argv, "--blocks-per-thread", "0"));
    std::vector<std::size_t> threads;
    {
        std::stringstream ss(arg(argc, argv, "--threads", "1,2"));
        for (std::string t; std::getline(ss, t, ',');) threads.push_back(std::stoul(t));
    }
    chunk_index_cost(dir, std::stoul(arg(argc, argv, "--index-chunks", "100000")));
    const std::size_t atoms = 1000;
    const std::size_t frames = static_cast<std::size_t>(gib * double(1ull << 30) / (atoms * 3 * sizeof(float)));
    const std::string plain = dir + "/chunkwise-bench-plain.h5", zipped = dir + "/chunkwise-bench-deflate.h5";
    std::printf("# %zu frames x %zu atoms x 3 float32 = %.2f GiB decoded; chunks of 64 frames; hardware threads %u\n",
                frames, atoms, double(frames * atoms * 12) / double(1ull << 30), std::thread::hardware_concurrency());
    make_file(plain, frames, atoms, false);
    make_file(zipped, frames, atoms, true);
    std::printf("# file sizes: uncompressed %.2f GiB, deflate(1)+shuffle %.2f GiB\n",
                double(std::filesystem::file_size(plain)) / double(1ull << 30),
                double(std::filesystem::file_size(zipped)) / double(1ull << 30));
    std::printf("%-26s %8s %10s %10s %14s %12s\n", "dataset", "threads", "GB/s best", "GB/s med", "vs 1 thread",
                "vs cat");
    for (const auto& [name, path] :
         {std::pair{"uncompressed chunked", plain}, std::pair{"deflate(1)+shuffle", zipped}}) {
        (void)cat_gbs(path);  // warm the page cache
        std::vector<double> cat;
        for (int r = 0; r < repeats; ++r) cat.push_back(cat_gbs(path));
        std::sort(cat.begin(), cat.end());
        const double cat_best = cat.back();
        chunkwise::h5::dataset ds(path, "/xyz");
        std::vector<double> base;
        const auto base_blocks = chunkwise::h5::partition(ds, chunkwise::parts{64});
        for (int r = 0; r < repeats; ++r) base.push_back(h5dread_gbs(path, base_blocks, atoms * 3));
        std::sort(base.begin(), base.end());
        std::printf("%-26s %8s %10.2f %10.2f %14s %12.2f\n", name, "cat", cat_best, cat[cat.size() / 2], "", 1.0);
        std::printf("%-26s %8s %10.2f %10.2f %14s %12.2f\n", name, "H5Dread", base.back(), base[base.size() / 2], "",
                    base.back() / cat_best);
        double one = 0;
        for (std::size_t t : threads) {
            chunkwise::thread_policy pool(t);
            const auto blocks =
                chunkwise::h5::partition(ds, chunkwise::parts{per_thread > 0 ? t * per_thread : ds.shape()[0]});
            std::vector<double> g;
            for (int r = 0; r < repeats; ++r) g.push_back(chunkwise_gbs(pool, ds, blocks));
            std::sort(g.begin(), g.end());
            if (t == threads.front()) one = g.back();
            std::printf("%-26s %8zu %10.2f %10.2f %13.2fx %12.2f\n", name, t, g.back(), g[g.size() / 2], g.back() / one,
                        g.back() / cat_best);
        }
    }
    if (!flag(argc, argv, "--keep")) {
        std::filesystem::remove(plain);
        std::filesystem::remove(zipped);
    }
}
