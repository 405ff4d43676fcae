#pragma once
/// \file
/// How block results are saved in and loaded from a checkpoint directory
/// (`run_options::checkpoint`: one append-only log per rank), and `checkpoint_traits<T>`, the
/// customization point for your own result types.

#include <chunkwise/detail/block_identity.hpp>
#include <chunkwise/detail/value_kinds.hpp>
#include <chunkwise/error.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <mutex>
#include <unordered_map>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>
#include <tuple>
#include <type_traits>
#include <variant>
#include <vector>

namespace chunkwise {

/// A checkpoint that cannot be created, written or decoded (a chunkwise::error; what() starts with
/// "[chunkwise.checkpoint]").
class checkpoint_error : public error {
public:
    using error::error;
};

/// How a result type is saved in a checkpoint. Specialize it for your own types with three
/// static members:
///
///     template <> struct chunkwise::checkpoint_traits<my_result> {
///         static std::string type_name() { return "my_result/v1"; }          // stored, compared on load
///         static void save(const my_result& r, std::string& out);            // append bytes to out
///         static my_result load(std::string_view bytes);                     // inverse of save
///     };
///
/// Built in: arithmetic types, std::vector of them, std::string, std::monostate (void block
/// functions) and tensors such as xtensor arrays (shape(), data(), R::from_shape). A checkpoint
/// written for one type is never loaded as another: the type name is stored and compared.
template <class T, class Enable = void>
struct checkpoint_traits;

namespace detail {

template <class T>
std::string arithmetic_name() {
    if constexpr (std::is_floating_point_v<T>) {
        return "float" + std::to_string(sizeof(T) * 8);
    } else if constexpr (std::is_signed_v<T>) {
        return "int" + std::to_string(sizeof(T) * 8);
    } else {
        return "uint" + std::to_string(sizeof(T) * 8);
    }
}

template <class T>
void append_raw(std::string& out, const T* p, std::size_t n) {
    out.append(reinterpret_cast<const char*>(p), n * sizeof(T));
}

[[noreturn]] inline void bad_checkpoint(const std::string& what) {
    throw checkpoint_error("[chunkwise.checkpoint] " + what);
}

inline void need(std::string_view bytes, std::uint64_t n, const char* what) {
    if (bytes.size() < n) bad_checkpoint(std::string("too short for ") + what);
}

inline std::uint64_t read_u64(std::string_view& bytes) {
    need(bytes, 8, "a length");
    std::uint64_t v;
    std::memcpy(&v, bytes.data(), 8);
    bytes.remove_prefix(8);
    return v;
}

}  // namespace detail

template <class T>
struct checkpoint_traits<T, std::enable_if_t<detail::plain_arithmetic<T>>> {
    static std::string type_name() { return detail::arithmetic_name<T>(); }
    static void save(const T& v, std::string& out) { detail::append_raw(out, &v, 1); }
    static T load(std::string_view bytes) {
        if (bytes.size() != sizeof(T)) detail::bad_checkpoint("holds a value of another size");
        T v;
        std::memcpy(&v, bytes.data(), sizeof(T));
        return v;
    }
};

template <class T>
struct checkpoint_traits<T, std::enable_if_t<detail::arithmetic_vector<T>>> {
    using E = typename T::value_type;
    static std::string type_name() { return "vector<" + detail::arithmetic_name<E>() + ">"; }
    static void save(const T& v, std::string& out) { detail::append_raw(out, v.data(), v.size()); }
    static T load(std::string_view bytes) {
        if (bytes.size() % sizeof(E) != 0) detail::bad_checkpoint("holds a partial element");
        T v(bytes.size() / sizeof(E));
        if (!v.empty()) std::memcpy(v.data(), bytes.data(), bytes.size());
        return v;
    }
};

template <class T>
struct checkpoint_traits<T, std::enable_if_t<detail::arithmetic_tensor<T>>> {
    using E = typename T::value_type;
    // Fixed-rank tensors (xtensor<T, N>) name their rank: a checkpoint of another rank is
    // recomputed, not failed; dynamic-rank ones (xarray) take any.
    static std::string type_name() {
        if constexpr (requires { std::tuple_size<typename T::shape_type>::value; }) {
            return "tensor<" + detail::arithmetic_name<E>() + "," +
                   std::to_string(std::tuple_size<typename T::shape_type>::value) + ">";
        } else {
            return "tensor<" + detail::arithmetic_name<E>() + ">";
        }
    }
    static void save(const T& v, std::string& out) {
        const auto& shape = v.shape();
        const std::uint64_t dims = std::size(shape);
        detail::append_raw(out, &dims, 1);
        for (const auto extent : shape) {
            const std::uint64_t e = static_cast<std::uint64_t>(extent);
            detail::append_raw(out, &e, 1);
        }
        detail::append_raw(out, v.data(), static_cast<std::size_t>(v.size()));
    }
    static T load(std::string_view bytes) {
        const std::uint64_t dims = detail::read_u64(bytes);
        typename T::shape_type shape{};
        if constexpr (requires { shape.resize(dims); }) shape.resize(dims);
        if (std::size(shape) != dims) detail::bad_checkpoint("holds a tensor of another rank");
        std::size_t count = 1;
        bool empty = false, overflow = false;
        for (std::size_t d = 0; d < dims; ++d) {
            const std::uint64_t e = detail::read_u64(bytes);
            shape[d] = static_cast<typename T::shape_type::value_type>(e);
            empty = empty || e == 0;
            overflow = overflow || __builtin_mul_overflow(count, static_cast<std::size_t>(e), &count);
        }
        if (empty) count = 0;
        if ((overflow && !empty) || count > bytes.size() / sizeof(E) || bytes.size() != count * sizeof(E)) {
            detail::bad_checkpoint("tensor data has the wrong size");
        }
        T v = T::from_shape(shape);
        if (count > 0) std::memcpy(v.data(), bytes.data(), bytes.size());
        return v;
    }
};

/// Checkpoint form of a std::string: its bytes.
template <>
struct checkpoint_traits<std::string> {
    static std::string type_name() { return "string"; }                           ///< "string"
    static void save(const std::string& v, std::string& out) { out += v; }        ///< appends the bytes
    static std::string load(std::string_view bytes) { return std::string(bytes); }  ///< the bytes
};

/// Checkpoint form of a block whose function returns void (std::monostate): no bytes.
template <>
struct checkpoint_traits<std::monostate> {
    static std::string type_name() { return "none"; }        ///< "none"
    static void save(const std::monostate&, std::string&) {}  ///< writes nothing
    /// \throws chunkwise::checkpoint_error if the file holds data
    static std::monostate load(std::string_view bytes) {
        if (!bytes.empty()) detail::bad_checkpoint("of a void block holds data");
        return {};
    }
};

/// A type with a usable checkpoint_traits specialization.
template <class T>
concept checkpointable = requires(const T& v, std::string& out, std::string_view in) {
    { checkpoint_traits<T>::type_name() } -> std::convertible_to<std::string>;
    checkpoint_traits<T>::save(v, out);
    { checkpoint_traits<T>::load(in) } -> std::convertible_to<T>;
};

namespace detail {

/// Tuning of the checkpoint store (tests lower them).
/// A rank's log is compacted when it has grown past this many bytes and more than half of it
/// holds records that newer ones replaced.
inline std::uint64_t checkpoint_compact_bytes = std::uint64_t{64} << 20;
/// Records are fdatasync'ed at most this often (and when the run ends): kill -9 loses nothing
/// written already; a machine that crashes loses at most this much.
inline double checkpoint_sync_seconds = 1.0;

/// A checksum of bytes, 8 at a time (FNV-style, for corruption, not adversaries).
inline std::uint64_t checksum(const char* p, std::size_t n, std::uint64_t h = 0xcbf29ce484222325ull) {
    std::size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        std::uint64_t w;
        std::memcpy(&w, p + i, 8);
        h = (h ^ w) * 0x100000001b3ull;
        h ^= h >> 29;
    }
    for (; i < n; ++i) h = (h ^ static_cast<unsigned char>(p[i])) * 0x100000001b3ull;
    return h;
}

/// A run's checkpoint: one append-only log per rank, DIR/rank-R.ckptlog, of records
///
///     "cwCKrec1" header_length payload_length sequence checksum header payload
///
/// (lengths, sequence and checksum u64; header = "type=...\nkey=...\nblock=...\n"; the checksum
/// covers the lengths, the sequence, the header and the payload). Each record is written with one
/// write(2), so a run killed at any moment leaves whole records and at most one torn one at the
/// end, which loading skips (it resynchronises on the next "cwCKrec1", so a corrupt record in the
/// middle costs that record only). Loading reads every rank's log: a resume may use another rank
/// count, or none. For each key the record with the highest sequence wins; it is used only when
/// its type, key and block description match the block's. A few files per rank whatever the
/// number of blocks (one, plus one while it is being compacted).
class checkpoint_store {
public:
    /// Opens (creates) the checkpoint folder `dir` for the process of MPI rank `rank`: reads the
    /// index of every log in it, compacts this rank's log when due, opens it for appending.
    /// \throws checkpoint_error naming the folder when it cannot be created or written
    checkpoint_store(std::filesystem::path dir, int rank) : dir_(std::move(dir)), rank_(rank) {
        std::error_code ec;
        std::filesystem::create_directories(dir_, ec);
        if (ec || !std::filesystem::is_directory(dir_)) {
            throw checkpoint_error("[chunkwise.checkpoint] cannot create the checkpoint directory " + dir_.string() +
                                   (ec ? ": " + ec.message() : std::string()));
        }
        const auto own = log_path(rank_);
        for (auto it = std::filesystem::directory_iterator(dir_, ec);
             !ec && it != std::filesystem::directory_iterator(); ++it) {
            const std::string name = it->path().filename().string();
            if (name.rfind(own.filename().string() + ".compact", 0) == 0) {
                std::filesystem::remove(it->path(), ec);  // left by a compaction that was killed
                ec.clear();
                continue;
            }
            if (name.size() > 8 && name.compare(name.size() - 8, 8, ".ckptlog") == 0) scan(it->path());
        }
        compact_if_due(own);
        fd_ = ::open(own.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
        if (fd_ < 0) fail("cannot open " + own.string() + " for appending");
        ++files_created_;
    }
    checkpoint_store(const checkpoint_store&) = delete;
    checkpoint_store& operator=(const checkpoint_store&) = delete;
    ~checkpoint_store() {
        if (fd_ >= 0) {
            if (dirty_) (void)sync_data(fd_);
            ::close(fd_);
        }
        for (const auto& f : files_) ::close(f.fd);
    }

    [[nodiscard]] const std::filesystem::path& dir() const noexcept { return dir_; }

    /// The stored payload of block `key`, if a valid record of this type and block exists.
    /// Thread-safe (reads only what was indexed when the store opened).
    [[nodiscard]] std::optional<std::string> load(const std::string& key, const std::string& type,
                                                  const std::string& block) const {
        const auto it = index_.find(checksum(key.data(), key.size()));
        if (it == index_.end()) return std::nullopt;
        const entry& e = it->second;
        std::string record(e.length, '\0');
        std::size_t done = 0;
        while (done < e.length) {
            const ssize_t got =
                ::pread(files_[e.file].fd, record.data() + done, e.length - done, static_cast<off_t>(e.offset + done));
            if (got <= 0) return std::nullopt;
            done += static_cast<std::size_t>(got);
        }
        std::string_view header, payload;
        std::uint64_t sequence = 0;
        if (parse(record, 0, header, payload, sequence) != record.size()) return std::nullopt;
        if (header != make_header(type, key, block)) return std::nullopt;
        return std::string(payload);
    }

    /// Appends block `key`'s record (one write). Thread-safe: the record is built and checksummed
    /// in the calling thread; only the append is serialised, and the periodic fdatasync runs after
    /// it, so other threads go on appending meanwhile.
    /// \throws checkpoint_error when it cannot be written (a full disk): the caller keeps the result
    void save(const std::string& key, const std::string& type, const std::string& block, const std::string& payload) {
        const std::string header = make_header(type, key, block);
        const std::uint64_t sequence = next_sequence();
        std::string record = "cwCKrec1";
        const std::uint64_t fields[4] = {header.size(), payload.size(), sequence, 0};
        record.reserve(sizeof fields + 8 + header.size() + payload.size());
        record.append(reinterpret_cast<const char*>(fields), sizeof fields);
        record += header;
        record += payload;
        const std::uint64_t sum = record_checksum(record.data() + 8, header.size() + payload.size());
        std::memcpy(record.data() + 8 + 24, &sum, 8);
        bool sync_now = false;
        {
            std::lock_guard lock(mutex_);
            std::size_t done = 0;
            while (done < record.size()) {
                const ssize_t w = ::write(fd_, record.data() + done, record.size() - done);
                if (w < 0 && errno == EINTR) continue;
                if (w <= 0) fail("cannot append to " + log_path(rank_).string());
                done += static_cast<std::size_t>(w);
            }
            bytes_written_ += record.size();
            dirty_ = true;
            const auto now = std::chrono::steady_clock::now();
            if (std::chrono::duration<double>(now - last_sync_).count() >= checkpoint_sync_seconds) {
                sync_now = true;
                last_sync_ = now;
                dirty_ = false;
            }
        }
        if (sync_now && !sync_data(fd_)) {
            const int err = errno;
            {
                std::lock_guard lock(mutex_);
                dirty_ = true;  // the destructor tries again
            }
            errno = err;
            fail("cannot sync " + log_path(rank_).string());
        }
    }

    /// Bytes this store appended, and files it created (for the benchmark).
    [[nodiscard]] std::uint64_t bytes_written() const noexcept { return bytes_written_; }
    [[nodiscard]] std::size_t files_created() const noexcept { return files_created_; }
    /// Distinct blocks with a valid record when the store opened.
    [[nodiscard]] std::size_t records() const noexcept { return index_.size(); }

    /// The number of distinct blocks a resume would load from the folder `dir`: their newest
    /// record is whole and its checksum holds (for tests: reads only, writes nothing).
    [[nodiscard]] static std::size_t count(const std::filesystem::path& dir) {
        checkpoint_store reader(dir);
        std::size_t n = 0;
        for (const auto& [key, e] : reader.index_) n += reader.verify(e.file, e.offset, e.length) ? 1 : 0;
        return n;
    }

private:
    struct entry {
        std::uint32_t file = 0;
        std::uint64_t offset = 0, length = 0, sequence = 0;
    };
    struct log_file {
        std::filesystem::path path;
        int fd = -1;
    };

    explicit checkpoint_store(const std::filesystem::path& dir) : dir_(dir), rank_(-1) {  // read-only scan
        std::error_code ec;
        for (auto it = std::filesystem::directory_iterator(dir_, ec);
             !ec && it != std::filesystem::directory_iterator(); ++it) {
            const std::string name = it->path().filename().string();
            if (name.size() > 8 && name.compare(name.size() - 8, 8, ".ckptlog") == 0) scan(it->path());
        }
    }

    [[nodiscard]] std::filesystem::path log_path(int rank) const {
        return dir_ / ("rank-" + std::to_string(rank) + ".ckptlog");
    }
    static std::string make_header(const std::string& type, const std::string& key, const std::string& block) {
        return "type=" + type + "\nkey=" + key + "\nblock=" + block + "\n";
    }
    static std::uint64_t record_checksum(const char* fields_then_body, std::size_t body) {
        // the three u64 fields before the checksum, then header and payload after it
        const std::uint64_t h = checksum(fields_then_body, 24);
        return checksum(fields_then_body + 32, body, h);
    }
    [[noreturn]] static void fail(const std::string& what) {
        throw checkpoint_error("[chunkwise.checkpoint] " + what + ": " + std::strerror(errno));
    }
    static bool sync_data(int fd) {
#if defined(__APPLE__)
        return ::fsync(fd) == 0;  // macOS has no fdatasync
#else
        return ::fdatasync(fd) == 0;
#endif
    }
    std::uint64_t next_sequence() {
        // Increasing within a process; across runs ordered by the clock.
        const auto now = static_cast<std::uint64_t>(
            std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
                .count());
        std::uint64_t prev = last_sequence_.load(std::memory_order_relaxed), next = 0;
        do {
            next = now > prev ? now : prev + 1;
        } while (!last_sequence_.compare_exchange_weak(prev, next, std::memory_order_relaxed));
        return next;
    }

    // The record at `at` of `data`: its end (0 if there is no valid record there).
    static std::size_t parse(std::string_view data, std::size_t at, std::string_view& header, std::string_view& payload,
                             std::uint64_t& sequence) {
        if (data.size() < at + 40 || data.compare(at, 8, "cwCKrec1") != 0) return 0;
        std::uint64_t f[4];
        std::memcpy(f, data.data() + at + 8, sizeof f);
        const std::uint64_t room = data.size() - at - 40;
        if (f[0] > room || f[1] > room - f[0]) return 0;
        if (record_checksum(data.data() + at + 8, static_cast<std::size_t>(f[0] + f[1])) != f[3]) return 0;
        header = data.substr(at + 40, static_cast<std::size_t>(f[0]));
        payload = data.substr(at + 40 + static_cast<std::size_t>(f[0]), static_cast<std::size_t>(f[1]));
        sequence = f[2];
        return at + 40 + static_cast<std::size_t>(f[0] + f[1]);
    }

    // Reads a log through a window, so that indexing touches record headers only: payloads are
    // skipped (a log of large results is not read at open) and checked when loaded.
    class window {
    public:
        window(int fd, std::uint64_t size) : fd_(fd), size_(size), buf_(std::size_t{1} << 20) {}
        // Bytes [pos, pos + n) (n at most the window), or null where the file ends first.
        const char* at(std::uint64_t pos, std::size_t n) {
            if (n > buf_.size() || pos + n > size_) return nullptr;
            if (pos < start_ || pos + n > start_ + len_) {
                start_ = pos;
                len_ = 0;
                while (len_ < buf_.size() && start_ + len_ < size_) {
                    const ssize_t got =
                        ::pread(fd_, buf_.data() + len_, buf_.size() - len_, static_cast<off_t>(start_ + len_));
                    if (got <= 0) break;
                    len_ += static_cast<std::size_t>(got);
                }
                if (pos + n > start_ + len_) return nullptr;
            }
            return buf_.data() + (pos - start_);
        }
        // The first "cwCKrec1" at or after pos, or the file's size.
        std::uint64_t find_magic(std::uint64_t pos) {
            while (pos + 8 <= size_) {
                const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(buf_.size(), size_ - pos));
                const char* p = at(pos, n);
                if (p == nullptr) break;
                const std::string_view view(p, n);
                const std::size_t hit = view.find("cwCKrec1");
                if (hit != std::string_view::npos) return pos + hit;
                if (n < 8) break;
                pos += n - 7;  // the magic may straddle windows
            }
            return size_;
        }

    private:
        int fd_;
        std::uint64_t size_, start_ = 0;
        std::size_t len_ = 0;
        std::vector<char> buf_;
    };

    // Indexes every record of one log whose header is whole (the newest per key wins across
    // logs); a torn or damaged header makes the scan resynchronise on the next record.
    void scan(const std::filesystem::path& path) {
        const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
        if (fd < 0) return;
        struct stat st {};
        if (::fstat(fd, &st) != 0) {
            ::close(fd);
            return;
        }
        const auto size = static_cast<std::uint64_t>(st.st_size);
        const auto file = static_cast<std::uint32_t>(files_.size());
        files_.push_back({path, fd});
        window w(fd, size);
        std::uint64_t at = 0, last_start = 0, last_end = 0;
        while (at + 40 <= size) {
            const char* fixed = w.at(at, 40);
            std::uint64_t f[4];
            bool ok = fixed != nullptr && std::memcmp(fixed, "cwCKrec1", 8) == 0;
            if (ok) {
                std::memcpy(f, fixed + 8, sizeof f);
                const std::uint64_t room = size - at - 40;
                ok = f[0] <= (std::uint64_t{1} << 20) && f[0] <= room && f[1] <= room - f[0];
            }
            const char* header = ok ? w.at(at + 40, static_cast<std::size_t>(f[0])) : nullptr;
            std::string_view key;
            if (header != nullptr) {
                const std::string_view h(header, static_cast<std::size_t>(f[0]));
                const std::size_t k = h.find("\nkey=");
                const std::size_t e = k == std::string_view::npos ? k : h.find('\n', k + 5);
                if (h.rfind("type=", 0) == 0 && e != std::string_view::npos && h.back() == '\n') {
                    key = h.substr(k + 5, e - k - 5);
                } else {
                    header = nullptr;
                }
            }
            if (header == nullptr) {  // torn or damaged: resynchronise on the next record
                at = w.find_magic(at + 1);
                continue;
            }
            const std::uint64_t end = at + 40 + f[0] + f[1];
            entry& slot = index_[checksum(key.data(), key.size())];
            if (f[2] >= slot.sequence) slot = entry{file, at, end - at, f[2]};
            last_start = at;
            last_end = end;
            at = end;
        }
        if (path == log_path(rank_)) {
            own_size_ = static_cast<std::size_t>(size);
            cut_torn_tail(file, size, last_start, last_end);
        }
    }

    // A record is torn only at the end of a log, where its writer died mid-write. Before this rank
    // appends to its log again, such a tail (or stray bytes after the last record) is cut off:
    // otherwise the torn record's length could swallow the records appended after it.
    void cut_torn_tail(std::uint32_t file, std::uint64_t size, std::uint64_t last_start, std::uint64_t last_end) {
        std::uint64_t good = last_end;
        if (last_end > last_start && !verify(file, last_start, last_end - last_start)) {
            good = last_start;
            for (auto it = index_.begin(); it != index_.end(); ++it) {
                if (it->second.file == file && it->second.offset == last_start) {
                    index_.erase(it);
                    break;
                }
            }
        }
        if (good < size && ::truncate(files_[file].path.c_str(), static_cast<off_t>(good)) == 0) {
            own_size_ = static_cast<std::size_t>(good);
        }
    }

    // The record at `offset` of `file` is whole and its checksum holds.
    [[nodiscard]] bool verify(std::uint32_t file, std::uint64_t offset, std::uint64_t length) const {
        std::string record(static_cast<std::size_t>(length), '\0');
        std::size_t done = 0;
        while (done < record.size()) {
            const ssize_t got =
                ::pread(files_[file].fd, record.data() + done, record.size() - done, static_cast<off_t>(offset + done));
            if (got <= 0) return false;
            done += static_cast<std::size_t>(got);
        }
        std::string_view header, payload;
        std::uint64_t sequence = 0;
        return parse(record, 0, header, payload, sequence) == record.size();
    }

    // Rewrites this rank's log with only its records that are still the newest for their key,
    // when it has grown past checkpoint_compact_bytes and is more than half dead. The new log
    // replaces the old by rename: a reader sees one or the other, both whole.
    void compact_if_due(const std::filesystem::path& own) {
        if (own_size_ < checkpoint_compact_bytes) return;
        std::uint32_t own_file = 0;
        bool found = false;
        for (std::uint32_t i = 0; i < files_.size(); ++i) {
            if (files_[i].path == own) {
                own_file = i;
                found = true;
            }
        }
        if (!found) return;
        std::uint64_t live_bytes = 0;
        for (const auto& [key, e] : index_) live_bytes += e.file == own_file ? e.length : 0;
        if (live_bytes * 2 > own_size_) return;
        const auto tmp = std::filesystem::path(own.string() + ".compact." + std::to_string(::getpid()));
        const int out = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (out < 0) return;  // compaction is an optimisation: carry on with the long log
        ++files_created_;
        std::uint64_t at = 0;
        std::vector<std::pair<std::uint64_t, entry*>> live;
        for (auto& [key, e] : index_) {
            if (e.file == own_file) live.emplace_back(e.offset, &e);
        }
        std::sort(live.begin(), live.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
        bool ok = true;
        std::string record;
        std::vector<std::uint64_t> moved;  // each live record's place in the new log
        for (auto& [offset, e] : live) {
            record.resize(static_cast<std::size_t>(e->length));
            ok = ok &&
                 ::pread(files_[own_file].fd, record.data(), record.size(), static_cast<off_t>(offset)) ==
                     static_cast<ssize_t>(record.size()) &&
                 ::write(out, record.data(), record.size()) == static_cast<ssize_t>(record.size());
            if (!ok) break;
            moved.push_back(at);
            at += e->length;
        }
        ok = ok && sync_data(out);
        ::close(out);
        if (!ok || std::rename(tmp.c_str(), own.c_str()) != 0) {
            std::error_code ec;
            std::filesystem::remove(tmp, ec);
            return;  // the index still points into the old log, which is unchanged
        }
        const int dfd = ::open(dir_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd >= 0) {
            ::fsync(dfd);
            ::close(dfd);
        }
        const int fresh = ::open(own.c_str(), O_RDONLY | O_CLOEXEC);
        if (fresh < 0) return;  // the old descriptor still reads the old (unlinked) log
        ::close(files_[own_file].fd);
        files_[own_file].fd = fresh;
        for (std::size_t i = 0; i < live.size(); ++i) live[i].second->offset = moved[i];
        own_size_ = at;
    }

    std::filesystem::path dir_;
    int rank_;
    std::vector<log_file> files_;
    std::unordered_map<std::uint64_t, entry> index_;
    std::size_t own_size_ = 0;
    int fd_ = -1;
    std::mutex mutex_;
    std::atomic<std::uint64_t> last_sequence_{0};
    std::uint64_t bytes_written_ = 0;
    std::size_t files_created_ = 0;
    bool dirty_ = false;
    std::chrono::steady_clock::time_point last_sync_ = std::chrono::steady_clock::now();
};

}  // namespace detail
}  // namespace chunkwise
