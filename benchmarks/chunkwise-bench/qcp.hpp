#pragma once
// RMSD after optimal superposition by Theobald's quaternion characteristic polynomial (QCP):
// the largest eigenvalue of Horn's 4x4 key matrix, found by Newton's method on its
// characteristic polynomial, gives the minimal RMSD without building the rotation. The same
// quantity as MDAnalysis' rms.rmsd(a, b, center=True, superposition=True).
#include <cmath>
#include <cstddef>
#include <vector>

namespace bench_rmsd {

/// Coordinates of the selected atoms of the reference frame, centred, with their sum of squares.
struct reference {
    std::vector<double> xyz;  // n x 3, centred
    double squares = 0;
};

/// Copies atoms idx of frame (atoms x 3 floats) into out (n x 3), centred; returns their sum of squares.
inline double centred_selection(const float* frame, const std::vector<std::size_t>& idx, std::vector<double>& out) {
    const std::size_t n = idx.size();
    out.resize(n * 3);
    double c[3] = {0, 0, 0};
    for (std::size_t k = 0; k < n; ++k) {
        for (int d = 0; d < 3; ++d) {
            const double v = frame[idx[k] * 3 + static_cast<std::size_t>(d)];
            out[k * 3 + static_cast<std::size_t>(d)] = v;
            c[d] += v;
        }
    }
    for (double& v : c) v /= static_cast<double>(n);
    double squares = 0;
    for (std::size_t k = 0; k < n; ++k) {
        for (std::size_t d = 0; d < 3; ++d) {
            out[k * 3 + d] -= c[d];
            squares += out[k * 3 + d] * out[k * 3 + d];
        }
    }
    return squares;
}

inline reference make_reference(const float* frame, const std::vector<std::size_t>& idx) {
    reference r;
    r.squares = centred_selection(frame, idx, r.xyz);
    return r;
}

/// Determinant of a 4x4 matrix (Laplace expansion along the first two rows by 2x2 minors).
inline double det4(const double m[4][4]) {
    auto minor = [&](int r0, int r1, int c0, int c1) { return m[r0][c0] * m[r1][c1] - m[r0][c1] * m[r1][c0]; };
    return minor(0, 1, 0, 1) * minor(2, 3, 2, 3) - minor(0, 1, 0, 2) * minor(2, 3, 1, 3) +
           minor(0, 1, 0, 3) * minor(2, 3, 1, 2) + minor(0, 1, 1, 2) * minor(2, 3, 0, 3) -
           minor(0, 1, 1, 3) * minor(2, 3, 0, 2) + minor(0, 1, 2, 3) * minor(2, 3, 0, 1);
}

/// Minimal RMSD between the centred selection `b` (n x 3, sum of squares gb) and the reference.
inline double qcp_rmsd(const reference& ref, const std::vector<double>& b, double gb) {
    const std::size_t n = ref.xyz.size() / 3;
    double s[3][3] = {};  // s[i][j] = sum over atoms of ref_i * b_j
    for (std::size_t k = 0; k < n; ++k) {
        const double* a = &ref.xyz[k * 3];
        const double* x = &b[k * 3];
        for (int i = 0; i < 3; ++i) {
            for (int j = 0; j < 3; ++j) s[i][j] += a[i] * x[j];
        }
    }
    const double sxx = s[0][0], sxy = s[0][1], sxz = s[0][2], syx = s[1][0], syy = s[1][1], syz = s[1][2],
                 szx = s[2][0], szy = s[2][1], szz = s[2][2];
    // Horn's key matrix: its largest eigenvalue is the best inner product after rotation.
    const double k[4][4] = {{sxx + syy + szz, syz - szy, szx - sxz, sxy - syx},
                            {syz - szy, sxx - syy - szz, sxy + syx, szx + sxz},
                            {szx - sxz, sxy + syx, -sxx + syy - szz, syz + szy},
                            {sxy - syx, szx + sxz, syz + szy, -sxx - syy + szz}};
    // Its characteristic polynomial: x^4 + c2 x^2 + c1 x + c0 (trace 0).
    double frob = 0;
    for (const auto& row : s) {
        for (double v : row) frob += v * v;
    }
    const double det_s = sxx * (syy * szz - syz * szy) - sxy * (syx * szz - syz * szx) + sxz * (syx * szy - syy * szx);
    const double c2 = -2.0 * frob, c1 = -8.0 * det_s, c0 = det4(k);
    const double e0 = 0.5 * (ref.squares + gb);
    double x = e0;  // an upper bound of the largest root: Newton descends onto it
    for (int it = 0; it < 60; ++it) {
        const double f = ((x * x + c2) * x + c1) * x + c0;
        const double df = (4.0 * x * x + 2.0 * c2) * x + c1;
        if (df == 0) break;
        const double step = f / df;
        x -= step;
        if (std::fabs(step) <= 1e-14 * std::fabs(x)) break;
    }
    return std::sqrt(std::max(0.0, 2.0 * (e0 - x) / static_cast<double>(n)));
}

/// Every `every`-th atom of `atoms`: 0, every, 2 every, ...
inline std::vector<std::size_t> every_nth(std::size_t atoms, std::size_t every) {
    std::vector<std::size_t> idx;
    for (std::size_t a = 0; a < atoms; a += every) idx.push_back(a);
    return idx;
}

}  // namespace bench_rmsd
