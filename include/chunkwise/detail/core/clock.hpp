#pragma once
// Internal: the clock every timing in chunkwise uses (<chunkwise/clock.hpp>), the read and lock
// time a thread has reported so far (read_scope, the HDF5 library lock), which executors sample
// around each stretch of blocks, the scheduler's account of the thread (time on a CPU, time
// waiting for one), UTC timestamps, and the host name.
#include <chunkwise/clock.hpp>

#include <fcntl.h>   // open
#include <time.h>    // clock_gettime
#include <unistd.h>  // gethostname, pread, getpid

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>

namespace chunkwise::detail {

using chunkwise::clock;          // <chunkwise/clock.hpp>
using chunkwise::seconds_since;  // <chunkwise/clock.hpp>

/// Read seconds reported on this thread so far (read_scope adds to it).
inline thread_local double thread_read_seconds = 0;
/// Bytes this thread read from storage so far (count_read_bytes and the HDF5 reads add to it).
inline thread_local double thread_read_bytes = 0;
/// read_scopes open on this thread (a read inside a read counts once).
inline thread_local unsigned thread_read_depth = 0;
/// Seconds this thread spent waiting for, and holding, a lock of the read path so far (the HDF5
/// library lock adds to them).
inline thread_local double thread_lock_wait_seconds = 0;
inline thread_local double thread_lock_held_seconds = 0;

/// What the scheduler says of the calling thread so far, seconds: time it ran on a CPU, and time
/// it was ready to run but waited for one (NaN where the kernel does not say).
struct thread_sched {
    double on_cpu = 0;
    double waiting = std::numeric_limits<double>::quiet_NaN();
};

/// The calling thread's /proc/thread-self/schedstat, kept open (one pread per sample); reopened
/// after a fork.
struct sched_file {
    int fd = -1;
    ::pid_t pid = 0;
    sched_file() = default;
    sched_file(const sched_file&) = delete;
    sched_file& operator=(const sched_file&) = delete;
    ~sched_file() {
        if (fd >= 0) ::close(fd);
    }
};
inline thread_local sched_file thread_sched_file;

/// The scheduler's account of the calling thread: time on a CPU from the thread's CPU clock
/// (exact to the call), time waiting for one from Linux's /proc/thread-self/schedstat (updated
/// each time the thread is put on a CPU; NaN elsewhere).
inline thread_sched thread_sched_now() noexcept {
    thread_sched s;
    ::timespec ts{};
    if (::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) == 0) {
        s.on_cpu = static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
    }
#if defined(__linux__)
    sched_file& f = thread_sched_file;
    const ::pid_t me = ::getpid();
    if (f.pid != me) {  // first use on this thread, or a forked child
        if (f.fd >= 0) ::close(f.fd);
        f.fd = ::open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
        f.pid = me;
    }
    if (f.fd >= 0) {
        char buf[128];
        const ::ssize_t n = ::pread(f.fd, buf, sizeof buf - 1, 0);
        if (n > 0) {
            buf[n] = '\0';
            char* end = nullptr;
            (void)std::strtoull(buf, &end, 10);  // time on a CPU, as of the last switch: the clock's is exact
            char* end2 = nullptr;
            const unsigned long long wait = std::strtoull(end, &end2, 10);
            if (end != buf && end2 != end) s.waiting = static_cast<double>(wait) * 1e-9;
        }
    }
#endif
    return s;
}

/// This machine's host name ("unknown" where it cannot be read), read once per process.
inline const std::string& this_host() {
    static const std::string name = [] {
        char buf[256] = {};
        if (::gethostname(buf, sizeof buf - 1) != 0 || buf[0] == '\0') return std::string("unknown");
        return std::string(buf);
    }();
    return name;
}

/// Now, UTC, ISO 8601 with milliseconds: 2026-11-22T14:30:01.123Z.
inline std::string utc_now() {
    using namespace std::chrono;
    const auto now = system_clock::now();
    const auto day = floor<days>(now);
    const year_month_day date{day};
    const hh_mm_ss<milliseconds> time{floor<milliseconds>(now - day)};
    char buf[64];
    std::snprintf(buf, sizeof buf, "%04d-%02u-%02uT%02d:%02d:%02d.%03dZ", static_cast<int>(date.year()),
                  static_cast<unsigned>(date.month()), static_cast<unsigned>(date.day()),
                  static_cast<int>(time.hours().count()), static_cast<int>(time.minutes().count()),
                  static_cast<int>(time.seconds().count()), static_cast<int>(time.subseconds().count()));
    return buf;
}

}  // namespace chunkwise::detail
