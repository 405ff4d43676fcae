#pragma once
// The pread floor of chunkwise-bench read and first-read: exactly the stored bytes a chunkwise
// pass reads (each chunk's bytes at its file offset, or each block's rows of a contiguous
// dataset), read with plain pread into buffers allocated and touched once, the block's pieces
// placed where chunkwise places them (pieces that follow each other in the file and in the buffer
// read at once), on 1 or N threads (each a contiguous share of the blocks). What the hardware gives for the
// same I/O, with no HDF5 and no chunkwise in it: the reference every reader is printed against.
// (Chunk addresses come from H5Dget_chunk_info_by_coord, which leaves out a user block in the
// HDF5 releases before 2024: the floor is for files without one, as chunkwise-bench writes them.)
#include <chunkwise/chunkwise.hpp>
#include <chunkwise/hdf5.hpp>

#include "../common/io.hpp"

#include <hdf5.h>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <barrier>
#include <functional>
#include <memory>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace bench_floor {

/// One pread: `size` bytes at file offset `offset`, to byte `dst` of the block's buffer.
struct piece {
    std::uint64_t offset = 0;
    std::size_t size = 0;
    std::size_t dst = 0;
};

/// Threads started once and kept waiting: run(f) calls f(0) on the calling thread and f(1..n) on
/// the n others at once, and returns when all are done.
class team {
public:
    explicit team(std::size_t others)
            : start_(static_cast<std::ptrdiff_t>(others + 1)), done_(static_cast<std::ptrdiff_t>(others + 1)) {
        for (std::size_t t = 1; t <= others; ++t) {
            threads_.emplace_back([this, t] {
                while (true) {
                    start_.arrive_and_wait();
                    if (stop_) return;
                    (*work_)(t);
                    done_.arrive_and_wait();
                }
            });
        }
    }
    ~team() {
        stop_ = true;
        start_.arrive_and_wait();
        for (auto& t : threads_) t.join();
    }
    team(const team&) = delete;
    team& operator=(const team&) = delete;

    void run(const std::function<void(std::size_t)>& work) {
        work_ = &work;
        start_.arrive_and_wait();
        work(0);
        done_.arrive_and_wait();
    }

private:
    std::barrier<> start_, done_;
    std::vector<std::thread> threads_;
    const std::function<void(std::size_t)>* work_ = nullptr;
    bool stop_ = false;
};

/// One team per thread count, each made the first time it is asked for.
class teams {
public:
    /// The team of `threads` threads (the calling one and threads - 1 others).
    team& of(std::size_t threads) {
        if (all_.size() < threads) all_.resize(threads);
        if (!all_[threads - 1]) all_[threads - 1] = std::make_unique<team>(threads - 1);
        return *all_[threads - 1];
    }
    /// Stops and joins every team's threads.
    void clear() { all_.clear(); }

private:
    std::vector<std::unique_ptr<team>> all_;  // all_[n - 1]: n threads
};

/// The pieces of each block (blocks of rows, as h5::partition makes them) and their buffers.
class floor_reader {
public:
    floor_reader(const std::filesystem::path& file, const std::string& path,
                 const std::vector<chunkwise::block>& blocks)
            : blocks_(blocks.size()) {
        chunkwise::h5::library_lock lock;  // this thread's HDF5 calls
        const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
        if (f < 0) throw std::runtime_error("floor: H5Fopen " + file.string() + " failed");
        const hid_t d = H5Dopen2(f, path.c_str(), H5P_DEFAULT);
        const hid_t space = H5Dget_space(d);
        const int rank = H5Sget_simple_extent_ndims(space);
        std::vector<hsize_t> dims(static_cast<std::size_t>(rank));
        H5Sget_simple_extent_dims(space, dims.data(), nullptr);
        H5Sclose(space);
        const hid_t type = H5Dget_type(d);
        const std::size_t esize = H5Tget_size(type);
        H5Tclose(type);
        std::size_t row_bytes = esize;
        for (std::size_t k = 1; k < dims.size(); ++k) row_bytes *= static_cast<std::size_t>(dims[k]);
        const hid_t dcpl = H5Dget_create_plist(d);
        if (H5Pget_layout(dcpl) == H5D_CHUNKED) {
            std::vector<std::size_t> fill(blocks.size(), 0);
            std::size_t b = 0;
            const auto add = [&](std::size_t row, std::uint64_t addr, std::size_t size) {
                while (b + 1 < blocks.size() && row >= blocks[b].end) ++b;
                blocks_[b].push_back(piece{addr, size, fill[b]});
                fill[b] += size;
            };
            // Every chunk in row-major order, as chunkwise lists them (h5::stored_chunks: the file's
            // own chunk index where chunkwise walks it, in time linear in the chunks; set-up, not
            // timed).
            for (const chunkwise::h5::stored_chunk& c :
                 chunkwise::h5::stored_chunks(chunkwise::h5::dataset(file, path))) {
                add(c.offset[0], c.address, static_cast<std::size_t>(c.size));
            }
            for (std::size_t k = 0; k < blocks.size(); ++k) buffer_bytes_ = std::max(buffer_bytes_, fill[k]);
        } else {
            const haddr_t base = H5Dget_offset(d);
            if (base == HADDR_UNDEF) throw std::runtime_error("floor: " + path + " has no data");
            for (std::size_t k = 0; k < blocks.size(); ++k) {
                const std::size_t bytes = blocks[k].size() * row_bytes;
                blocks_[k].push_back(piece{base + blocks[k].begin * row_bytes, bytes, 0});
                buffer_bytes_ = std::max(buffer_bytes_, bytes);
            }
        }
        H5Pclose(dcpl);
        H5Dclose(d);
        H5Fclose(f);
        // Pieces that follow each other in the file and in the buffer are one pread.
        for (auto& pieces : blocks_) {
            std::vector<piece> merged;
            for (const piece& p : pieces) {
                if (!merged.empty() && merged.back().offset + merged.back().size == p.offset &&
                    merged.back().dst + merged.back().size == p.dst) {
                    merged.back().size += p.size;
                } else {
                    merged.push_back(p);
                }
            }
            pieces.swap(merged);
        }
        fd_ = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
        if (fd_ < 0) throw std::runtime_error("floor: cannot open " + file.string());
    }
    ~floor_reader() {
        if (fd_ >= 0) ::close(fd_);
    }
    floor_reader(const floor_reader&) = delete;
    floor_reader& operator=(const floor_reader&) = delete;

    /// Makes one buffer per thread for up to `threads` threads, each touched once.
    void prepare(std::size_t threads) {
        while (buffers_.size() < threads) buffers_.emplace_back(std::max<std::size_t>(buffer_bytes_, 1), 1);
        (void)teams_.of(threads);
    }

    /// Frees the buffers (before memory is measured).
    void release() {
        std::vector<std::vector<char>>().swap(buffers_);
        teams_.clear();
    }

    /// Reads every block's pieces on `threads` threads (the calling one and threads - 1 started
    /// before the clock starts); throws where a pread fails.
    void pass(std::size_t threads) {
        prepare(threads);
        const std::size_t n = blocks_.size();
        std::vector<int> failed(threads, 0);
        teams_.of(threads).run([&](std::size_t t) {
            char* buf = buffers_[t].data();
            for (std::size_t b = n * t / threads; b < n * (t + 1) / threads; ++b) {
                for (const piece& p : blocks_[b]) {
                    if (!bench_io::pread_all(fd_, buf + p.dst, p.size, p.offset)) failed[t] = 1;
                }
            }
        });
        for (int x : failed) {
            if (x != 0) throw std::runtime_error("floor: a pread failed");
        }
    }

    /// Bytes a pass reads.
    [[nodiscard]] std::size_t bytes() const {
        std::size_t s = 0;
        for (const auto& b : blocks_)
            for (const piece& p : b) s += p.size;
        return s;
    }

private:
    std::vector<std::vector<piece>> blocks_;
    std::vector<std::vector<char>> buffers_;
    teams teams_;
    std::size_t buffer_bytes_ = 0;
    int fd_ = -1;
};

}  // namespace bench_floor
