#pragma once
// Internal: every HDF5 call chunkwise makes holds one process-wide mutex (Debian's parallel HDF5
// build is not thread-safe at all; the serial build's own lock does not protect sequences of
// calls), with HDF5's error printing silenced on the calling thread; the innermost messages of
// HDF5's error stack, for h5::error; and handles that close their hid_t under that mutex.
#include <chunkwise/detail/core/compiled.hpp>
#include <chunkwise/detail/core/clock.hpp>

#include <hdf5.h>

#include <chrono>
#include <cstddef>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace chunkwise::h5::detail {

/// The attribute a dataset carries while chunkwise writes it (a text saying so): set when the dataset is made,
/// removed when the write ends. A dataset that still has it is an unfinished write (its writer died or failed
/// and could not clean up): readers refuse it, and the next write of that path replaces it, whatever the mode.
inline constexpr const char* unfinished_mark = "_chunkwise_unfinished";

/// "(a, b, c)": a shape, or a chunk's coordinates, in messages.
CHUNKWISE_HDF5_DECL std::string box_text(const std::size_t* v, std::size_t n);
inline std::string shape_text(const std::vector<std::size_t>& v) { return box_text(v.data(), v.size()); }

inline std::recursive_mutex& library_mutex() {
    static std::recursive_mutex m;
    return m;
}

/// Holds the library mutex; silences HDF5's error printing on this thread (error stacks and
/// their settings are per thread in thread-safe builds). The outermost lock of a thread adds the
/// time it waited for the mutex and the time it held it to the thread's lock counters, which the
/// running block's statistics take up (worker_stats::lock_wait, lock_held).
class library_lock {
public:
    library_lock() {
        if (depth() == 0) {
            const auto t0 = chunkwise::detail::clock::now();
            library_mutex().lock();
            held_from_ = chunkwise::detail::clock::now();
            chunkwise::detail::thread_lock_wait_seconds += std::chrono::duration<double>(held_from_ - t0).count();
        } else {
            library_mutex().lock();
        }
        ++depth();
        thread_local bool silenced = false;
        if (!silenced) {
            H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
            silenced = true;
        }
    }
    ~library_lock() {
        if (--depth() == 0) chunkwise::detail::thread_lock_held_seconds += chunkwise::detail::seconds_since(held_from_);
        library_mutex().unlock();
    }
    library_lock(const library_lock&) = delete;
    library_lock& operator=(const library_lock&) = delete;

private:
    static unsigned& depth() noexcept {
        thread_local unsigned d = 0;
        return d;
    }
    chunkwise::detail::clock::time_point held_from_{};
};

/// HDF5's description of the last failure on this thread ("" if none), and clears it: the three
/// innermost messages of the stack, outer to inner (the cause is innermost; the outer ones differ
/// from release to release: 1.12+ adds the VOL layers). Call with the lock held.
CHUNKWISE_HDF5_DECL std::string last_error();

/// An hid_t closed with its close function under the library lock. `close()` reports whether
/// closing worked (what writers must check: HDF5 writes buffered data when closing); the
/// destructor closes silently.
class handle {
public:
    using closer = herr_t (*)(hid_t);
    handle() = default;
    handle(hid_t id, closer close_with) noexcept : id_(id), close_(close_with) {}
    handle(const handle&) = delete;
    handle& operator=(const handle&) = delete;
    handle(handle&& o) noexcept : id_(std::exchange(o.id_, H5I_INVALID_HID)), close_(o.close_) {}
    handle& operator=(handle&& o) noexcept {
        if (this != &o) {
            reset();
            id_ = std::exchange(o.id_, H5I_INVALID_HID);
            close_ = o.close_;
        }
        return *this;
    }
    ~handle() { reset(); }

    [[nodiscard]] hid_t get() const noexcept { return id_; }
    [[nodiscard]] bool valid() const noexcept { return id_ >= 0; }

    /// Closes now; false when HDF5 reports a failure (e.g. a full disk while flushing).
    [[nodiscard]] bool close() noexcept {
        if (id_ < 0 || close_ == nullptr) return true;
        library_lock lock;
        const herr_t rc = close_(std::exchange(id_, H5I_INVALID_HID));
        return rc >= 0;
    }
    void reset() noexcept {
        if (id_ >= 0 && close_ != nullptr) {
            library_lock lock;
            close_(id_);
            H5Eclear2(H5E_DEFAULT);
        }
        id_ = H5I_INVALID_HID;
    }

private:
    hid_t id_ = H5I_INVALID_HID;
    closer close_ = nullptr;
};

/// The components of an HDF5 path, as HDF5 resolves it: {"a", "b"} for "a/b", "/a/b/", "./a/b",
/// "/a//b" and "/a/./b"; none for "/".
CHUNKWISE_HDF5_DECL std::vector<std::string> path_parts(const std::string& path);

/// "/a/b" for "a/b", "/a/b/", "./a/b", "/a//b" and "/a/./b": the absolute path HDF5 resolves.
CHUNKWISE_HDF5_DECL std::string normalize_path(const std::string& path);

}  // namespace chunkwise::h5::detail

#if CHUNKWISE_HDF5_HEADER_ONLY
#include <chunkwise/detail/hdf5/library.ipp>
#endif
