#pragma once
/// \file
/// Plots of a scaling report, drawn by gnuplot (Debian: gnuplot-nox): speedup.png (measured
/// speedup, the ideal line and the fitted Amdahl curve) and phases.png (time per worker in each
/// phase, stacked, per worker count). Needs POSIX (popen) besides the standard library.

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

/// The gnuplot script that draws both plots of `r` into `dir`.
inline std::string plot_script(const bench::scaling_report& r, const std::filesystem::path& dir) {
    std::ostringstream s;
    s.precision(9);
    s << "$points << EOD\n";
    for (const bench::scaling_point& p : r.points) {
        s << p.workers << ' ' << p.speedup << ' ' << p.phases.read << ' ' << p.phases.compute << ' ' << p.phases.wait
          << ' ' << p.phases.combine << '\n';
    }
    s << "EOD\n";
    const double max_n = r.points.empty() ? 1.0 : static_cast<double>(r.points.back().workers);
    s << "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) { set terminal pngcairo size 900,600 font ',11' } "
         "else { set terminal png size 900,600 }\n"
      << "set output '" << (dir / "speedup.png").string() << "'\n"
      << "set title '" << r.workload << ": strong scaling (" << r.mode << ", " << r.machine.host << ")' noenhanced\n"
      << "set xlabel 'workers'\nset ylabel 'speedup'\nset key top left\nset grid\n"
      << "set xrange [0:" << max_n * 1.05 << "]\nset yrange [0:" << max_n * 1.05 << "]\n"
      << "set samples 200\n";
    s << "plot x title 'ideal' with lines dashtype 2 linecolor rgb '#888888'";
    if (r.amdahl_fitted) {
        s << ", 1.0 / (" << r.amdahl.serial_fraction << " + (1 - " << r.amdahl.serial_fraction
          << ") / x) title sprintf('Amdahl, s = %.4f', " << r.amdahl.serial_fraction
          << ") with lines linewidth 2 linecolor rgb '#d95f02'";
    }
    s << ", $points using 1:2 title 'measured' with linespoints pointtype 7 pointsize 1.5 linecolor rgb '#1b9e77'\n";
    s << "set output '" << (dir / "phases.png").string() << "'\n"
      << "set title '" << r.workload << ": seconds per worker in each phase' noenhanced\n"
      << "set xlabel 'workers'\nset ylabel 'seconds per worker'\nset key top right\nset autoscale\nset yrange [0:*]\n"
      << "set style data histograms\nset style histogram rowstacked\nset style fill solid 0.85 border -1\n"
      << "set boxwidth 0.7\n"
      << "plot $points using 3:xtic(1) title 'read' linecolor rgb '#7570b3', '' using 4 title 'compute' linecolor rgb "
         "'#1b9e77', '' using 5 title 'wait' linecolor rgb '#d95f02', '' using 6 title 'combine' linecolor rgb "
         "'#e7298a'\n";
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
