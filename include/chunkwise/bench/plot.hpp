#pragma once
/// \file
/// Plots of a scaling report, drawn by gnuplot (Debian: gnuplot-nox): speedup.png (measured
/// speedup against the measured baseline, the ideal line and, with a baseline of 1 worker, the
/// fitted Amdahl curve) and phases.png (the critical path's phases stacked per worker count, which
/// add up to the wall time drawn beside them, with the slowest rank, its host and the imbalance
/// under each). Needs POSIX (popen) besides the standard library.

#include <chunkwise/bench/scaling.hpp>

#include <stdio.h>  // popen, pclose (POSIX)

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>
#include <system_error>

namespace chunkwise::detail {

/// The gnuplot executable on PATH, or "" when there is none.
inline std::string find_gnuplot() {
    const char* path = std::getenv("PATH");
    std::stringstream dirs(path != nullptr ? path : "/usr/bin:/bin");
    for (std::string dir; std::getline(dirs, dir, ':');) {
        if (dir.empty()) continue;
        const std::filesystem::path candidate = std::filesystem::path(dir) / "gnuplot";
        std::error_code ec;
        if (std::filesystem::is_regular_file(candidate, ec)) return candidate.string();
    }
    return {};
}

/// `s` for a gnuplot double-quoted string (where \\n breaks the line).
inline std::string gnuplot_dq(const std::string& s) {
    std::string out;
    for (char c : s) {
        if (c == '"' || c == '\\') out += '\\';
        out += c;
    }
    return out;
}

/// `s` for a gnuplot single-quoted string.
inline std::string gnuplot_text(const std::string& s) {
    std::string out;
    for (char c : s) out += c == '\'' ? std::string("''") : std::string(1, c);
    return out;
}

/// The gnuplot script that draws both plots of `r` into `dir`.
inline std::string plot_script(const bench::scaling_report& r, const std::filesystem::path& dir) {
    std::ostringstream s;
    s.precision(9);
    s << "$points << EOD\n";
    for (const bench::scaling_point& p : r.points) {
        s << p.workers << ' ' << (std::isnan(p.speedup) ? 0.0 : p.speedup) << ' ' << p.phases.read << ' '
          << p.phases.compute << ' ' << p.phases.wait << ' ' << p.phases.combine << ' ' << p.phases.other << ' '
          << p.mean << " \"" << p.workers << "\\nrank " << p.slowest_rank << ", " << gnuplot_text(p.slowest_host)
          << "\\n" << static_cast<int>(p.imbalance * 100 + 0.5) / 100.0 << "\"\n";
    }
    s << "EOD\n";
    const double max_n = r.points.empty() ? 1.0 : static_cast<double>(r.points.back().workers);
    const double n0 = r.baseline_workers > 0 ? static_cast<double>(r.baseline_workers) : 1.0;
    const std::string baseline = r.baseline_workers == 1
                                     ? std::string("baseline: 1 worker, measured")
                                     : "baseline: " + std::to_string(r.baseline_workers) +
                                           " workers (no run at 1 worker: speedups relative to it)";
    s << "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) { set terminal pngcairo size 900,600 font ',11' } "
         "else { set terminal png size 900,600 }\n"
      << "set output '" << gnuplot_text((dir / "speedup.png").string()) << "'\n"
      << "set title \"" << gnuplot_dq(r.workload) << "\\nstrong scaling (" << r.mode << ", "
      << gnuplot_dq(r.machine.host) << "); " << gnuplot_dq(baseline) << "\" noenhanced font ',10'\n"
      << "set xlabel 'workers'\nset ylabel '" << (r.baseline_workers == 1 ? "speedup" : "speedup relative to the baseline")
      << "'\nset key top left\nset grid\n"
      << "set xrange [0:" << max_n * 1.05 << "]\nset yrange [0:" << max_n / n0 * 1.05 << "]\n"
      << "set samples 200\n";
    s << "plot x / " << n0 << " title 'ideal' with lines dashtype 2 linecolor rgb '#888888'";
    if (r.amdahl_fitted) {
        s << ", 1.0 / (" << r.amdahl.serial_fraction << " + (1 - " << r.amdahl.serial_fraction
          << ") / x) title sprintf('Amdahl, s = %.4f', " << r.amdahl.serial_fraction
          << ") with lines linewidth 2 linecolor rgb '#d95f02'";
    }
    if (r.prediction.fitted && !r.points.empty()) {
        const bench::prediction_report& q = r.prediction;
        const double cap = q.bytes > 0 && q.shared_bandwidth > 0 ? q.bytes / q.shared_bandwidth : 0.0;
        s << ", " << r.points.front().mean << " / (" << q.t_serial << " + " << q.work << " / x + (" << q.read_one
          << " / x > " << cap << " ? " << q.read_one << " / x : " << cap << ") + " << q.comm << " * "
          << (q.growth == "n" ? "x" : "log(x) / log(2)")
          << ") title 'per-phase model' with lines linewidth 2 dashtype 3 linecolor rgb '#7570b3'";
    }
    s << ", $points using 1:2 title 'measured' with linespoints pointtype 7 pointsize 1.5 linecolor rgb '#1b9e77'\n";
    s << "set output '" << gnuplot_text((dir / "phases.png").string()) << "'\n"
      << "set title \"" << gnuplot_dq(r.workload)
      << "\\nthe critical path (the slowest rank) in phases, and the wall time\" noenhanced font ',10'\n"
      << "set xlabel 'workers / the slowest rank and its host / imbalance' noenhanced offset 0,-1.5\n"
      << "set ylabel 'seconds'\nset key top right\nset autoscale\nset yrange [0:*]\nset bmargin 6\n"
      << "set style data histograms\nset style histogram rowstacked\nset style fill solid 0.85 border -1\n"
      << "set boxwidth 0.7\nset xtics font ',9' noenhanced\n"
      << "plot $points using 3:xtic(9) title 'read' linecolor rgb '#7570b3', '' using 4 title 'compute' linecolor rgb "
         "'#1b9e77', '' using 5 title 'wait' linecolor rgb '#d95f02', '' using 6 title 'combine' linecolor rgb "
         "'#e7298a', '' using 7 title 'other' linecolor rgb '#a6761d', '' using 0:8 with points pointtype 7 "
         "pointsize 1.5 linecolor rgb '#000000' title 'wall'\n";
    return s.str();
}

}  // namespace chunkwise::detail

namespace chunkwise::bench {

/// Draws speedup.png and phases.png of `r` into `dir` with gnuplot.
/// \returns "" when both were drawn, else why not ("gnuplot was not found on PATH (Debian:
///          apt-get install gnuplot-nox)", or gnuplot's failure): JSON and CSV do not need it
[[nodiscard]] inline std::string write_plots(const scaling_report& r, const std::filesystem::path& dir) {
    const std::string gnuplot = chunkwise::detail::find_gnuplot();
    if (gnuplot.empty()) return "gnuplot was not found on PATH (Debian: apt-get install gnuplot-nox)";
    if (r.points.empty()) return "no points to plot";
    FILE* pipe = ::popen(("'" + gnuplot + "' >/dev/null 2>&1").c_str(), "w");
    if (pipe == nullptr) return "cannot start gnuplot";
    const std::string script = chunkwise::detail::plot_script(r, dir);
    const bool written = std::fwrite(script.data(), 1, script.size(), pipe) == script.size();
    const int status = ::pclose(pipe);
    std::error_code ec;
    if (!written || status != 0 || !std::filesystem::exists(dir / "speedup.png", ec) ||
        !std::filesystem::exists(dir / "phases.png", ec)) {
        return "gnuplot failed (exit status " + std::to_string(status) + ")";
    }
    return {};
}

}  // namespace chunkwise::bench
