#pragma once
// Helpers the test files share.
#include <chunkwise/partition.hpp>

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>

namespace test {

/// A fresh, empty directory for one test's files (named after the test and this process).
inline std::filesystem::path scratch(const std::string& name) {
    const auto dir =
        std::filesystem::temp_directory_path() / ("chunkwise-test-" + name + "-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
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
