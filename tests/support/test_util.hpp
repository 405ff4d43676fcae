#pragma once
// Helpers the test files share.
#include <chunkwise/error.hpp>
#include <chunkwise/partition.hpp>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <exception>
#include <stdexcept>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <random>
#include <sstream>
#include <system_error>
#include <string>
#include <vector>

namespace test {

/// The message of the exception of type E (a chunkwise::error by default) that f() throws, or `none` where it
/// throws none; any other exception passes through.
template <class E = chunkwise::error, class F>
std::string error_of(F&& f, const std::string& none = "no error") {
    try {
        f();
    } catch (const E& e) {
        return e.what();
    }
    return none;
}

/// Runs f() (which returns a std::string) in a child process whose files may grow to at most
/// `limit` bytes in all — a write past it fails with EFBIG, as on a full disk — and returns what
/// f returned there ("threw: ..." when it threw).
/// \throws std::runtime_error when the child cannot be started or does not exit normally
template <class F>
std::string in_child_with_file_limit(rlim_t limit, F f) {
    int fds[2];
    if (::pipe(fds) != 0) throw std::runtime_error("pipe failed");
    const pid_t pid = ::fork();
    if (pid < 0) throw std::runtime_error("fork failed");
    if (pid == 0) {
        ::close(fds[0]);
        std::signal(SIGXFSZ, SIG_IGN);
        struct rlimit rl {
            limit, limit
        };
        ::setrlimit(RLIMIT_FSIZE, &rl);
        std::string out;
        try {
            out = f();
        } catch (const std::exception& e) {
            out = std::string("threw: ") + e.what();
        }
        (void)!::write(fds[1], out.data(), out.size());
        ::_exit(0);
    }
    ::close(fds[1]);
    std::string out;
    char buf[512];
    for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;) out.append(buf, static_cast<std::size_t>(n));
    ::close(fds[0]);
    int status = 0;
    ::waitpid(pid, &status, 0);
    if (!WIFEXITED(status)) throw std::runtime_error("the child process did not exit normally: " + out);
    return out;
}

/// The scratch folders this process made, removed when it exits normally (a forked child leaves
/// by _exit and removes nothing); CHUNKWISE_TEST_KEEP=1 keeps them, to look into a failure.
struct scratch_folders {
    std::mutex m;
    std::vector<std::filesystem::path> dirs;
    const pid_t owner = ::getpid();
    void add(const std::filesystem::path& dir) {
        std::lock_guard<std::mutex> lock(m);
        dirs.push_back(dir);
    }
    ~scratch_folders() {
        const char* keep = std::getenv("CHUNKWISE_TEST_KEEP");
        if (::getpid() != owner || (keep != nullptr && std::string(keep) == "1")) return;
        for (const auto& d : dirs) {
            std::error_code ec;
            std::filesystem::remove_all(d, ec);
        }
    }
    static scratch_folders& get() {
        static scratch_folders all;
        return all;
    }
};

/// A fresh, empty directory for one test's files (named after the test and this process),
/// removed when the process exits.
inline std::filesystem::path scratch(const std::string& name) {
    const auto dir =
        std::filesystem::temp_directory_path() / ("chunkwise-test-" + name + "-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    scratch_folders::get().add(dir);
    return dir;
}

/// Sums of values spanning 20 orders of magnitude: any change in the order of additions changes bits.
inline double wild_sum(const chunkwise::block& b) {
    std::mt19937_64 rng(b.begin * 7919 + b.end);
    std::uniform_real_distribution<double> mant(-1.0, 1.0);
    std::uniform_int_distribution<int> expo(-10, 10);
    double s = 0;
    for (std::size_t i = b.begin; i < b.end; ++i) s += std::ldexp(mant(rng), expo(rng) * 3);
    return s;
}

/// A value that depends on the block's range only.
inline double value_of(const chunkwise::block& b) {
    return std::sqrt(static_cast<double>(b.begin) + 0.5) / static_cast<double>(b.size());
}

/// A whole file as a string.
inline std::string read_text(const std::filesystem::path& p) {
    std::ifstream in(p);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

}  // namespace test
