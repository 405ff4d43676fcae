#pragma once
// Internal: the clock every timing in chunkwise uses (<chunkwise/clock.hpp>), the read and lock
// time a thread has reported so far (read_scope, the HDF5 library lock), which executors sample
// around each stretch of blocks, UTC timestamps, and the host name.
#include <chunkwise/clock.hpp>

#include <unistd.h>  // gethostname

#include <chrono>
#include <cstdio>
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
