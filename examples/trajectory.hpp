#pragma once
// Shared by the examples: a generated trajectory, RMSD per frame, argument parsing, timing.
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace example {

struct trajectory {
    std::size_t frames, atoms;
    std::vector<float> xyz;  // frames x atoms x 3
    const float* frame(std::size_t f) const { return xyz.data() + f * atoms * 3; }
};

// Deterministic pseudo-random numbers in [-0.5, 0.5), so every run sees the same trajectory.
inline float noise(std::uint64_t x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return static_cast<float>(x >> 40) / static_cast<float>(1ULL << 24) - 0.5f;
}

// Frame f of the generated trajectory: atoms x 3 values into out.
inline void make_frame(std::size_t f, std::size_t atoms, float* out) {
    const float drift = 0.01f * static_cast<float>(f % 1000);
    for (std::size_t k = 0; k < atoms * 3; ++k) out[k] = 10.0f * noise(k) + drift * noise(f * 7919 + k) + 0.1f * drift;
}

inline trajectory make_trajectory(std::size_t frames, std::size_t atoms) {
    trajectory t{frames, atoms, std::vector<float>(frames * atoms * 3)};
    for (std::size_t f = 0; f < frames; ++f) make_frame(f, atoms, t.xyz.data() + f * atoms * 3);
    return t;
}

// RMSD of `frame` to `ref` after moving both centroids to the origin.
inline double rmsd(const float* frame, const float* ref, std::size_t atoms) {
    double c[3] = {0, 0, 0}, r[3] = {0, 0, 0};
    for (std::size_t a = 0; a < atoms; ++a) {
        for (int d = 0; d < 3; ++d) {
            c[d] += frame[a * 3 + d];
            r[d] += ref[a * 3 + d];
        }
    }
    for (int d = 0; d < 3; ++d) {
        c[d] /= static_cast<double>(atoms);
        r[d] /= static_cast<double>(atoms);
    }
    double s = 0;
    for (std::size_t a = 0; a < atoms; ++a) {
        for (int d = 0; d < 3; ++d) {
            const double diff = (frame[a * 3 + d] - c[d]) - (ref[a * 3 + d] - r[d]);
            s += diff * diff;
        }
    }
    return std::sqrt(s / static_cast<double>(atoms));
}

inline std::size_t arg(int argc, char** argv, const char* name, std::size_t fallback) {
    for (int i = 1; i + 1 < argc; ++i) {
        if (std::strcmp(argv[i], name) == 0) return std::strtoull(argv[i + 1], nullptr, 10);
    }
    return fallback;
}

// The text after option `name`, or fallback.
inline std::string text_arg(int argc, char** argv, const char* name, std::string fallback) {
    for (int i = 1; i + 1 < argc; ++i) {
        if (std::strcmp(argv[i], name) == 0) return argv[i + 1];
    }
    return fallback;
}

// True when the flag `name` is given.
inline bool flag(int argc, char** argv, const char* name) {
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], name) == 0) return true;
    }
    return false;
}

inline double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace example
