#pragma once
/// \file
/// Plots of a scaling report, drawn by gnuplot (Debian: gnuplot-nox): speedup.png (measured
/// speedup against the measured baseline with each point's 95% interval, the ideal line, the
/// chosen fit from 1 worker up, the knee and the recommended count, or the range where the
/// prediction is not confident; the title says how many hosts took part) and phases.png (the critical path's phases
/// stacked per worker count, which add up to the wall time drawn beside them, with the slowest rank, its host and the
/// imbalance under each). Needs POSIX (popen) besides the standard library.

#include <chunkwise/bench/scaling.hpp>

#include <stdio.h>  // popen, pclose (POSIX)

#include <algorithm>
#include <cmath>
#include <cstdio>
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

/// The chosen fit's speedup t(1) / t(x) as a gnuplot expression of x ("" when there is none).
inline std::string chosen_fit_expression(const bench::scaling_report& r) {
    const bench::prediction_report& q = r.prediction;
    if (!q.fitted || r.points.empty()) return {};
    std::ostringstream e;
    e.precision(9);
    const double t1 = r.points.front().mean;
    if (q.chosen == "amdahl") {
        e << t1 << " / (" << q.amdahl.t1 << " * (" << q.amdahl.serial_fraction << " + (1 - " << q.amdahl.serial_fraction
          << ") / x))";
    } else if (q.chosen == "usl") {
        e << t1 << " / (" << q.usl.t1 << " * (1 + " << q.usl.sigma << " * (x - 1) + " << q.usl.kappa
          << " * x * (x - 1)) / x)";
    } else {
        const double cap = q.bytes > 0 && q.shared_bandwidth > 0 ? q.bytes / q.shared_bandwidth : 0.0;
        e << t1 << " / (" << q.t_serial << " + " << q.work << " / x + (" << q.read_one << " / x > " << cap << " ? "
          << q.read_one << " / x : " << cap << ") + " << q.comm << " * " << (q.growth == "n" ? "x" : "log(x) / log(2)")
          << ")";
    }
    return e.str();
}

/// The gnuplot script that draws both plots of `r` into `dir`.
inline std::string plot_script(const bench::scaling_report& r, const std::filesystem::path& dir) {
    std::ostringstream s;
    s.precision(9);
    const double base = r.points.empty() ? 1.0 : r.points.front().mean;
    s << "$points << EOD\n";
    for (const bench::scaling_point& p : r.points) {
        const double sp = std::isnan(p.speedup) ? 0.0 : p.speedup;
        // The speedup's interval from the point's 95% interval of its mean (the baseline's own
        // noise aside).
        const double lo = std::isnan(p.interval_high) || !(p.interval_high > 0) ? sp : base / p.interval_high;
        const double hi = std::isnan(p.interval_low) || !(p.interval_low > 0) ? sp : base / p.interval_low;
        s << p.workers << ' ' << sp << ' ' << p.phases.read << ' ' << p.phases.compute << ' ' << p.phases.wait << ' '
          << p.phases.combine << ' ' << p.phases.other << ' ' << p.mean << " \"" << p.workers << "\\nrank "
          << p.slowest_rank << ", " << gnuplot_text(p.slowest_host) << "\\n"
          << static_cast<int>(p.imbalance * 100 + 0.5) / 100.0 << "\" " << lo << ' ' << hi << "\n";
    }
    s << "EOD\n";
    const bench::prediction_report& q = r.prediction;
    double max_n = r.points.empty() ? 1.0 : static_cast<double>(r.points.back().workers);
    if (q.fitted) {
        max_n = std::max(max_n, std::isnan(q.recommended) ? q.range_high : q.recommended);
        max_n = std::max(max_n, std::min(q.knee, 4 * max_n));
    }
    const double n0 = r.baseline_workers > 0 ? static_cast<double>(r.baseline_workers) : 1.0;
    const std::string baseline = r.baseline_workers == 1 ? std::string("baseline: 1 worker, measured")
                                                         : "baseline: " + std::to_string(r.baseline_workers) +
                                                               " workers (no run at 1 worker: speedups relative to it)";
    std::size_t hosts = 1;
    for (const bench::scaling_point& p : r.points) hosts = std::max(hosts, p.hosts);
    // Up to the highest speedup measured or predicted within the plot (not the ideal's, which
    // would squeeze a flat curve against the axis).
    double y_top = 2;
    for (const bench::scaling_point& p : r.points) {
        if (!std::isnan(p.speedup)) y_top = std::max(y_top, p.speedup);
        if (!std::isnan(p.interval_low) && p.interval_low > 0) y_top = std::max(y_top, base / p.interval_low);
    }
    for (const auto& p : q.points) {
        if (p.workers <= max_n * 1.05) y_top = std::max(y_top, p.speedup);
    }
    const double y_max = std::min(max_n / n0, y_top) * 1.25;
    const std::string where = hosts > 1 ? std::to_string(hosts) + " hosts" : "1 host, " + r.machine.host;
    s << "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) { set terminal pngcairo size 900,600 font ',11' } "
         "else { set terminal png size 900,600 }\n"
      << "set output '" << gnuplot_text((dir / "speedup.png").string()) << "'\n"
      << "set title \"" << gnuplot_dq(r.workload) << "\\nstrong scaling (" << r.mode << ", " << gnuplot_dq(where)
      << "); " << gnuplot_dq(baseline) << "\" noenhanced font ',10'\n"
      << "set xlabel 'workers'\nset ylabel '"
      << (r.baseline_workers == 1 ? "speedup" : "speedup relative to the baseline")
      << "'\nset key bottom right box opaque\nset grid\n"
      << "set xrange [0:" << max_n * 1.05 << "]\nset yrange [0:" << y_max << "]\n"
      << "set xtics 0, " << std::max(1.0, std::ceil(max_n / 10)) << "\n"  // whole workers only
      << "set samples 400\n";
    if (q.fitted) {
        s << "set arrow 1 from " << q.knee << ", graph 0 to " << q.knee
          << ", graph 1 nohead dashtype 3 linecolor rgb '#666666'\n"
          << "set label 1 'knee " << q.knee << "' at " << q.knee << ", graph 0.96 right offset -0.5,0 font ',9'\n";
        if (!std::isnan(q.recommended)) {
            s << "set arrow 2 from " << q.recommended << ", graph 0 to " << q.recommended
              << ", graph 1 nohead linewidth 2 linecolor rgb '#e7298a'\n"
              << "set label 2 'ask for " << q.recommended << "' at " << q.recommended
              << ", graph 0.90 left offset 0.5,0 font ',9' textcolor rgb '#e7298a'\n";
        } else {
            s << "set object 3 rect from " << q.range_low << ", graph 0 to " << q.range_high
              << ", graph 1 fillcolor rgb '#e7298a' fillstyle transparent solid 0.12 noborder behind\n"
              << "set label 2 'not confident: " << q.range_low << " to " << q.range_high << " workers' at "
              << q.range_low << ", graph 0.90 left offset 0.5,0 font ',9' textcolor rgb '#e7298a'\n";
        }
    }
    s << "plot x / " << n0 << " title 'ideal' with lines dashtype 2 linecolor rgb '#888888'";
    const std::string fit = chosen_fit_expression(r);
    if (!fit.empty()) {
        char held[32] = "-";
        if (!std::isnan(q.held_out_error)) std::snprintf(held, sizeof held, "%.1f%%", 100 * q.held_out_error);
        s << ", (x < 1 ? 1/0 : " << fit << ") title 'chosen fit: " << q.chosen << " (held-out error " << held
          << ")' with lines linewidth 2 linecolor rgb '#7570b3'";
    }
    s << ", $points using 1:2:10:11 title 'measured (95% interval)' with yerrorlines pointtype 7 pointsize 1.2 "
         "linecolor rgb '#1b9e77'\n";
    s << "unset arrow\nunset label\nunset object\n";
    s << "set output '" << gnuplot_text((dir / "phases.png").string()) << "'\n"
      << "set title \"" << gnuplot_dq(r.workload)
      << "\\nthe critical path (the slowest rank) in phases, and the wall time\" noenhanced font ',10'\n"
      << "set xlabel 'workers / the slowest rank and its host / imbalance' noenhanced offset 0,-1.5\n"
      << "set ylabel 'seconds'\nset key outside right top vertical\nset autoscale\nset yrange [0:*]\nset bmargin 6\n"
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
