#pragma once
// Internal: the log file and progress line of a production run. Included by
// <chunkwise/run_options.hpp> after the public types it uses (progress_report).
#include <chunkwise/detail/core/clock.hpp>
#include <chunkwise/detail/core/posix_io.hpp>
#include <chunkwise/error.hpp>

#include <fcntl.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <string>
#include <utility>

namespace chunkwise::detail {

/// Columns of the terminal on `fd` (TIOCGWINSZ), 80 where it cannot tell.
inline std::size_t terminal_columns(int fd) {
    struct winsize w {};
    if (::ioctl(fd, TIOCGWINSZ, &w) == 0 && w.ws_col > 0) return w.ws_col;
    return 80;
}

inline std::string format_duration(double s) {
    if (s < 0 || s != s) return "?";
    const long total = static_cast<long>(s + 0.5);
    char buf[32];
    if (total >= 3600) {
        std::snprintf(buf, sizeof buf, "%ld:%02ld:%02ld", total / 3600, (total / 60) % 60, total % 60);
    } else {
        std::snprintf(buf, sizeof buf, "%ld:%02ld", total / 60, total % 60);
    }
    return buf;
}

class run_reporter;
/// The reporter and block of the block running on this thread, for log_note().
inline thread_local run_reporter* current_reporter = nullptr;
inline thread_local const std::string* current_block_label = nullptr;

/// Appends timestamped lines to the log (one write(2) per line, O_APPEND: lines of several
/// threads and ranks do not interleave) and draws progress on stderr.
class run_reporter {
public:
    /// \param log file to append lines to (empty: none); \param progress draw progress;
    /// \param show_progress this process draws it (the root under MPI)
    run_reporter(const std::filesystem::path& log, bool progress, std::size_t total, int rank, bool show_progress)
            : total_(total),
              rank_(rank),
              progress_(progress && show_progress),
              show_(show_progress),
              start_(clock_type::now()) {
        if (!log.empty()) {
            // Never blocks: a FIFO without a reader is refused at once (ENXIO), not waited on.
            fd_ = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NONBLOCK, 0644);
            if (fd_ < 0) {
                const int err = errno;
                throw error("[chunkwise.log] cannot open " + log.string() + ": " +
                            (err == ENXIO ? std::string("a FIFO with no reader") : std::string(std::strerror(err))));
            }
            const int flags = ::fcntl(fd_, F_GETFL);
            if (flags >= 0) (void)::fcntl(fd_, F_SETFL, flags & ~O_NONBLOCK);
        }
        tty_ = progress_ && ::isatty(2) != 0;
    }
    run_reporter(const run_reporter&) = delete;
    run_reporter& operator=(const run_reporter&) = delete;
    ~run_reporter() {
        if (fd_ >= 0) ::close(fd_);
    }

    /// Log lines also go to `log_to`, progress goes to `progress_to` instead of stderr (either may be empty).
    void set_callbacks(std::function<void(const progress_report&)> progress_to,
                       std::function<void(const std::string&)> log_to) {
        on_progress_ = std::move(progress_to);
        on_log_ = std::move(log_to);
    }

    [[nodiscard]] bool logging() const noexcept { return fd_ >= 0 || static_cast<bool>(on_log_); }

    /// Turns the progress line on or off (drawn only where show_progress was given).
    void set_progress(bool on) {
        progress_ = on && show_;
        tty_ = progress_ && ::isatty(2) != 0;
    }

    /// One log line: "TIME [rank R] TEXT".
    void line(const std::string& text) {
        if (fd_ < 0 && !on_log_) return;
        const std::string l = utc_now() + " [rank " + std::to_string(rank_) + "] " + text + "\n";
        if (on_log_) {
            std::lock_guard lock(log_mutex_);
            on_log_(l.substr(0, l.size() - 1));
        }
        if (fd_ < 0) return;
        (void)posix::write_all(fd_, l.data(), l.size());  // a full disk loses log lines, never the run
    }

    /// Progress after `done` of total blocks (`computed` of them run, not loaded).
    void progress(std::size_t done, std::size_t computed, bool final = false) {
        if (!progress_) return;
        std::lock_guard lock(mutex_);
        const double elapsed = std::chrono::duration<double>(clock_type::now() - start_).count();
        const bool due =
            final || ((tty_ || on_progress_)
                          ? elapsed - last_ >= 0.1
                          : (done * 10 / std::max<std::size_t>(total_, 1) > last_decile_ || elapsed - last_ >= 30));
        if (!due || (final && done == last_done_)) return;
        last_ = elapsed;
        last_done_ = done;
        last_decile_ = done * 10 / std::max<std::size_t>(total_, 1);
        const double rate = elapsed > 0 ? static_cast<double>(computed) / elapsed : 0;
        const std::size_t left = total_ > done ? total_ - done : 0;
        if (on_progress_) {
            on_progress_(progress_report{done, total_, computed, elapsed, rate,
                                         final ? 0.0 : (rate > 0 ? static_cast<double>(left) / rate : -1.0), final});
            return;
        }
        char buf[200];
        std::snprintf(
            buf, sizeof buf, "[chunkwise] %zu/%zu blocks %3.0f%%  %.2f blocks/s  elapsed %s  ETA %s", done, total_,
            total_ ? 100.0 * static_cast<double>(done) / static_cast<double>(total_) : 100.0, rate,
            format_duration(elapsed).c_str(),
            final ? "0:00" : (rate > 0 ? format_duration(static_cast<double>(left) / rate) : std::string("?")).c_str());
        if (tty_) {
            // One terminal line: cut to the terminal's width, the rest of the old line cleared.
            std::string text = buf;
            const std::size_t columns = terminal_columns(2);
            if (text.size() >= columns) text.resize(columns > 1 ? columns - 1 : 0);
            std::fprintf(stderr, "\r%s\033[K%s", text.c_str(), final ? "\n" : "");
        } else {
            std::fprintf(stderr, "%s\n", buf);
        }
        std::fflush(stderr);
    }

    [[nodiscard]] double elapsed() const { return std::chrono::duration<double>(clock_type::now() - start_).count(); }

private:
    using clock_type = std::chrono::steady_clock;
    std::size_t total_;
    int rank_;
    bool progress_;
    bool show_;
    bool tty_ = false;
    int fd_ = -1;
    std::mutex mutex_;
    std::mutex log_mutex_;
    std::function<void(const progress_report&)> on_progress_;
    std::function<void(const std::string&)> on_log_;
    double last_ = -1;
    std::size_t last_decile_ = 0;
    std::size_t last_done_ = static_cast<std::size_t>(-1);
    clock_type::time_point start_;
};

}  // namespace chunkwise::detail
