#pragma once
// Internal: the checkpoint store of a production run: one append-only log per rank,
// DIR/rank-R.ckptlog, of records
//
//     "cwCKrec2" header_length payload_length sequence payload_checksum header_checksum header payload
//
// (the six fields u64; header = "type=...\nkey=...\nblock=...\n"; header_checksum covers the
// first four fields and the header, payload_checksum the payload). Each record is written with
// one write(2), so a run killed at any moment leaves whole records and at most one torn one at
// the end.
//
// Opening indexes every log of the folder without reading payloads: a record's place and lengths
// are trusted only when its header checksum holds, so a damaged length can never make the scan
// skip the records after it; where a header is damaged the scan finds the next record by its
// marker. For each key the record with the highest sequence wins; its payload is checked when it
// is loaded, and a record that fails any check is a cache miss (its block is recomputed). Before
// this rank appends to its log, only bytes after the last record with a sound header are cut off
// (a torn tail), never a record that passes its checksums. Records of 0.2's format ("cwCKrec1",
// one checksum over everything) are still read, each checked whole when indexed. Anything in the
// folder that is not a regular file is skipped and reported (notes()), never opened blocking.
#include <chunkwise/checkpoint.hpp>
#include <chunkwise/detail/core/posix_io.hpp>
#include <chunkwise/detail/run/checkpoint_record.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <unordered_map>
#include <utility>
#include <vector>

namespace chunkwise::detail {

/// Tuning of the checkpoint store (tests lower them).
/// A rank's log is compacted when it has grown past this many bytes and more than half of it
/// holds records that newer ones replaced.
inline std::uint64_t checkpoint_compact_bytes = std::uint64_t{64} << 20;
/// Records are fdatasync'ed at most this often (and when the run ends): kill -9 loses nothing
/// written already; a machine that crashes loses at most this much.
inline double checkpoint_sync_seconds = 1.0;

/// A run's checkpoint: one append-only log per rank (format above). Loading reads every rank's
/// log: a resume may use another rank count, or none. A few files per rank whatever the number of
/// blocks (one, plus one while it is being compacted).
class checkpoint_store {
public:
    /// Opens (creates) the checkpoint folder `dir` for the process of MPI rank `rank`: indexes
    /// every log in it, cuts a torn tail off this rank's log, compacts it when due, opens it for
    /// appending.
    /// \throws checkpoint_error naming the folder or file when it cannot be created or written
    checkpoint_store(std::filesystem::path dir, int rank) : dir_(std::move(dir)), rank_(rank) {
        std::error_code ec;
        std::filesystem::create_directories(dir_, ec);
        if (ec || !std::filesystem::is_directory(dir_)) {
            throw checkpoint_error("[chunkwise.checkpoint] cannot create the checkpoint directory " + dir_.string() +
                                   (ec ? ": " + ec.message() : std::string()));
        }
        const auto own = log_path(rank_);
        scan_folder(own.filename().string());
        compact_if_due(own);
        posix::open_outcome how{};
        fd_ = posix::open_regular(own, O_WRONLY | O_CREAT | O_APPEND, 0644, how);
        if (fd_ < 0 && how == posix::open_outcome::not_regular) {
            throw checkpoint_error("[chunkwise.checkpoint] " + own.string() + " is " + posix::file_kind(own) +
                                   ", not a regular file: this rank cannot append its log there; remove it");
        }
        if (fd_ < 0 && read_only_error(errno)) {
            // An archived run on a read-only disk: every sound record still loads; new results are
            // computed and kept, their saves fail and are counted (a checkpoint is a cache).
            read_only_ = "the checkpoint folder " + dir_.string() + " cannot be written (" + std::strerror(errno) +
                         "): its records are loaded, new results are not saved";
            warnings_.push_back("checkpoint: " + read_only_);
            return;
        }
        if (fd_ < 0) fail("cannot open " + own.string() + " for appending");
        if (!torn_cut_failed_.empty()) {
            throw checkpoint_error("[chunkwise.checkpoint] " + torn_cut_failed_);
        }
        ++files_created_;
    }
    checkpoint_store(const checkpoint_store&) = delete;
    checkpoint_store& operator=(const checkpoint_store&) = delete;
    ~checkpoint_store() {
        if (fd_ >= 0) {
            if (dirty_) (void)posix::sync_data(fd_);
            ::close(fd_);
        }
        for (const auto& f : files_) ::close(f.fd);
    }

    [[nodiscard]] const std::filesystem::path& dir() const noexcept { return dir_; }

    /// What opening found worth a line in the run's log (a torn tail cut off), one line each.
    [[nodiscard]] const std::vector<std::string>& notes() const noexcept { return notes_; }
    /// What opening found that the user should hear of even without a log (entries of the folder
    /// skipped because they are not regular files), one line each.
    [[nodiscard]] const std::vector<std::string>& warnings() const noexcept { return warnings_; }

    /// The stored payload of block `key`, if a record of this type and block exists whose
    /// checksums hold. Thread-safe (reads only what was indexed when the store opened).
    [[nodiscard]] std::optional<std::string> load(const std::string& key, const std::string& type,
                                                  const std::string& block) const {
        const auto it = index_.find(checksum(key.data(), key.size()));
        if (it == index_.end()) return std::nullopt;
        const entry& e = it->second;
        std::string record(static_cast<std::size_t>(e.length), '\0');
        if (!posix::pread_all(files_[e.file].fd, record.data(), record.size(), e.offset)) return std::nullopt;
        std::string_view header, payload;
        if (!checkpoint_record::parse(record, header, payload)) return std::nullopt;
        if (header != make_header(type, key, block)) return std::nullopt;
        return std::string(payload);
    }

    /// Appends block `key`'s record (one write). Thread-safe: the record is built and checksummed
    /// in the calling thread; only the append is serialised, and the periodic fdatasync runs after
    /// it, so other threads go on appending meanwhile.
    /// \throws checkpoint_error when it cannot be written (a full disk, a read-only folder): the
    /// caller keeps the result
    void save(const std::string& key, const std::string& type, const std::string& block, const std::string& payload) {
        if (fd_ < 0) throw checkpoint_error("[chunkwise.checkpoint] " + read_only_);
        const std::string record = checkpoint_record::make(make_header(type, key, block), payload, next_sequence());
        bool sync_now = false;
        {
            std::lock_guard lock(mutex_);
            if (!posix::write_all(fd_, record.data(), record.size()))
                fail("cannot append to " + log_path(rank_).string());
            bytes_written_ += record.size();
            dirty_ = true;
            const auto now = std::chrono::steady_clock::now();
            if (std::chrono::duration<double>(now - last_sync_).count() >= checkpoint_sync_seconds) {
                sync_now = true;
                last_sync_ = now;
                dirty_ = false;
            }
        }
        if (sync_now && !posix::sync_data(fd_)) {
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
    /// Distinct blocks with an indexed record when the store opened.
    [[nodiscard]] std::size_t records() const noexcept { return index_.size(); }

    /// The number of distinct blocks a resume would load from the folder `dir`: their newest
    /// record is whole and its checksums hold (for tests: reads only, writes nothing).
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

    explicit checkpoint_store(const std::filesystem::path& dir) : dir_(dir), rank_(-1) { scan_folder({}); }

    [[nodiscard]] std::filesystem::path log_path(int rank) const {
        return dir_ / ("rank-" + std::to_string(rank) + ".ckptlog");
    }
    static std::string make_header(const std::string& type, const std::string& key, const std::string& block) {
        return "type=" + type + "\nkey=" + key + "\nblock=" + block + "\n";
    }
    /// True for the errors of a folder or file that cannot be written (read-only mount, no permission).
    static bool read_only_error(int err) noexcept { return err == EROFS || err == EACCES || err == EPERM; }
    [[noreturn]] static void fail(const std::string& what) {
        throw checkpoint_error("[chunkwise.checkpoint] " + what + ": " + std::strerror(errno));
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

    // Indexes every *.ckptlog of the folder; removes leftovers of this rank's killed compactions
    // (`own` is this rank's log name, empty for a read-only scan).
    void scan_folder(const std::string& own) {
        std::error_code ec;
        for (auto it = std::filesystem::directory_iterator(dir_, ec);
             !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
            const std::string name = it->path().filename().string();
            if (!own.empty() && name.rfind(own + ".compact", 0) == 0) {
                std::error_code rm;
                std::filesystem::remove(it->path(), rm);  // left by a compaction that was killed
                continue;
            }
            if (name.size() > 8 && name.compare(name.size() - 8, 8, ".ckptlog") == 0) scan(it->path(), name == own);
        }
    }

    // Reads a log through a window, so that indexing touches record headers only: payloads are
    // skipped (a log of large results is not read at open) and checked when loaded.
    class window {
    public:
        window(int fd, std::uint64_t size) : fd_(fd), size_(size), buf_(std::size_t{1} << 20) {}
        // Bytes [pos, pos + n) (n at most the window), or null where the file ends first.
        const char* at(std::uint64_t pos, std::size_t n) {
            if (n > buf_.size() || pos > size_ || n > size_ - pos) return nullptr;
            if (pos < start_ || pos + n > start_ + len_) {
                start_ = pos;
                const std::ptrdiff_t got = posix::pread_full(
                    fd_, buf_.data(), static_cast<std::size_t>(std::min<std::uint64_t>(buf_.size(), size_ - pos)), pos);
                len_ = got > 0 ? static_cast<std::size_t>(got) : 0;
                if (pos + n > start_ + len_) return nullptr;
            }
            return buf_.data() + (pos - start_);
        }
        // The first record marker (either format) at or after pos, or the file's size.
        std::uint64_t find_magic(std::uint64_t pos) {
            while (pos + 8 <= size_) {
                const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(buf_.size(), size_ - pos));
                const char* p = at(pos, n);
                if (p == nullptr) break;
                const std::string_view view(p, n);
                for (std::size_t hit = view.find("cwCKrec"); hit != std::string_view::npos;
                     hit = view.find("cwCKrec", hit + 1)) {
                    if (hit + 8 > n) break;
                    const char v = view[hit + 7];
                    if (v == '1' || v == '2') return pos + hit;
                }
                if (n < 8) break;
                pos += n - 7;  // the marker may straddle windows
            }
            return size_;
        }

    private:
        int fd_;
        std::uint64_t size_, start_ = 0;
        std::size_t len_ = 0;
        std::vector<char> buf_;
    };

    // Indexes every record of one log whose header is sound (the newest per key wins across
    // logs). Where a header is damaged or torn, the scan goes on at the next marker. For this
    // rank's own log, a torn tail is cut off before appending.
    void scan(const std::filesystem::path& path, bool own) {
        posix::open_outcome how{};
        const int fd = posix::open_regular(path, O_RDONLY, 0, how);
        if (fd < 0) {
            if (how == posix::open_outcome::not_regular) {
                warnings_.push_back("checkpoint: skipped " + path.string() + ": it is " + posix::file_kind(path) +
                                    ", not a regular file");
            }
            return;
        }
        struct stat st {};
        if (::fstat(fd, &st) != 0) {
            ::close(fd);
            return;
        }
        const auto size = static_cast<std::uint64_t>(st.st_size);
        const auto file = static_cast<std::uint32_t>(files_.size());
        files_.push_back({path, fd});
        window w(fd, size);
        std::uint64_t at = 0, good_end = 0;  // good_end: the end of the last sound record
        while (at + checkpoint_record::fixed_v1 <= size) {
            std::uint64_t length = 0, sequence = 0;
            std::string key;
            if (sound_record(w, file, at, size, length, sequence, key)) {
                entry& slot = index_[checksum(key.data(), key.size())];
                if (sequence >= slot.sequence) slot = entry{file, at, length, sequence};
                at += length;
                good_end = at;
            } else {
                at = w.find_magic(at + 1);  // damaged or torn: resynchronise on the next record
            }
        }
        if (own && good_end < size) {
            // Only what follows the last sound record: a torn write, or bytes that hold no record.
            if (::truncate(path.c_str(), static_cast<off_t>(good_end)) != 0) {
                const int err = errno;
                const std::string what =
                    "cannot cut the torn end off " + path.string() + " before appending to it: " + std::strerror(err);
                if (!read_only_error(err)) throw checkpoint_error("[chunkwise.checkpoint] " + what);
                torn_cut_failed_ = what;  // fatal only if the log can be appended to after all
                own_size_ = static_cast<std::size_t>(std::min(good_end, size));
                return;
            }
            notes_.push_back("checkpoint: cut " + std::to_string(size - good_end) +
                             " bytes holding no whole record off the end of " + path.string() +
                             " (a run stopped while writing?)");
        }
        if (own) own_size_ = static_cast<std::size_t>(std::min(good_end, size));
    }

    // True when a record starts at `at` whose header is sound (v2: its header checksum holds and
    // it fits in the file; v1: the whole record's checksum holds); gives its length, sequence and
    // key.
    bool sound_record(window& w, std::uint32_t file, std::uint64_t at, std::uint64_t size, std::uint64_t& length,
                      std::uint64_t& sequence, std::string& key) {
        const char* fixed = w.at(at, checkpoint_record::fixed_v1);
        if (fixed == nullptr) return false;
        const std::string_view magic(fixed, 8);
        const bool v2 = magic == checkpoint_record::magic;
        if (!v2 && magic != checkpoint_record::magic_v1) return false;
        const std::size_t head = v2 ? checkpoint_record::fixed : checkpoint_record::fixed_v1;
        if (at + head > size) return false;
        std::uint64_t f[6];
        const char* p = w.at(at, head);
        if (p == nullptr) return false;
        std::memcpy(f, p + 8, head - 8);
        const std::uint64_t room = size - at - head;
        if (f[0] > checkpoint_record::max_header || f[0] > room || f[1] > room - f[0]) return false;
        const char* header = w.at(at + head, static_cast<std::size_t>(f[0]));
        if (header == nullptr) return false;
        if (v2 && checkpoint_record::header_checksum(f, header, static_cast<std::size_t>(f[0])) != f[4]) return false;
        const auto k = checkpoint_record::key_of(std::string_view(header, static_cast<std::size_t>(f[0])));
        if (!k) return false;
        key.assign(*k);  // copied before verify() below may move the window
        length = head + f[0] + f[1];
        sequence = f[2];
        return v2 || verify(file, at, length);
    }

    // The record at `offset` of `file` is whole and its checksums hold.
    [[nodiscard]] bool verify(std::uint32_t file, std::uint64_t offset, std::uint64_t length) const {
        std::string record(static_cast<std::size_t>(length), '\0');
        if (!posix::pread_all(files_[file].fd, record.data(), record.size(), offset)) return false;
        std::string_view header, payload;
        return checkpoint_record::parse(record, header, payload);
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
            ok = ok && posix::pread_all(files_[own_file].fd, record.data(), record.size(), offset) &&
                 posix::write_all(out, record.data(), record.size());
            if (!ok) break;
            moved.push_back(at);
            at += e->length;
        }
        ok = ok && posix::sync_data(out);
        ::close(out);
        if (!ok || std::rename(tmp.c_str(), own.c_str()) != 0) {
            std::error_code ec;
            std::filesystem::remove(tmp, ec);
            return;  // the index still points into the old log, which is unchanged
        }
        posix::sync_dir(dir_);
        posix::open_outcome how{};
        const int fresh = posix::open_regular(own, O_RDONLY, 0, how);
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
    std::vector<std::string> notes_, warnings_;
    std::size_t own_size_ = 0;
    int fd_ = -1;
    std::mutex mutex_;
    std::atomic<std::uint64_t> last_sequence_{0};
    std::uint64_t bytes_written_ = 0;
    std::size_t files_created_ = 0;
    std::string read_only_;        // why the folder cannot be written ("" when it can)
    std::string torn_cut_failed_;  // a torn tail that could not be cut off (read-only)
    bool dirty_ = false;
    std::chrono::steady_clock::time_point last_sync_ = std::chrono::steady_clock::now();
};

}  // namespace chunkwise::detail
