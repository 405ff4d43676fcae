// What a measured speedup means on the machine it was measured on: the examples' summary lines.
#pragma once

#include <sched.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

namespace example {

/// CPU seconds used so far: by this process (`own`), and by every process of the machine (`machine`, from Linux's
/// /proc/stat; negative where it cannot be read).
struct cpu_clock {
    double own = 0;
    double machine = -1;

    /// The clocks now.
    static cpu_clock now() {
        cpu_clock c;
        rusage u{};
        if (getrusage(RUSAGE_SELF, &u) == 0) {
            c.own = static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
                    static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-6;
        }
        std::ifstream stat("/proc/stat");
        std::string cpu;
        unsigned long long user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0;
        const long tick = sysconf(_SC_CLK_TCK);
        if (stat >> cpu >> user >> nice >> system >> idle >> iowait >> irq >> softirq && cpu == "cpu" && tick > 0) {
            c.machine = static_cast<double>(user + nice + system + irq + softirq) / static_cast<double>(tick);
        }
        return c;
    }
};

/// The CPUs this process may run on (its CPU affinity; all the hardware's where that is unknown).
inline std::vector<int> usable_cpus() {
    std::vector<int> ids;
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof(set), &set) == 0) {
        for (int c = 0; c < CPU_SETSIZE; ++c) {
            if (CPU_ISSET(c, &set)) ids.push_back(c);
        }
    }
    if (ids.empty()) {
        for (unsigned c = 0; c < std::max(1u, std::thread::hardware_concurrency()); ++c)
            ids.push_back(static_cast<int>(c));
    }
    return ids;
}

/// How many CPUs this process may run on.
inline std::size_t usable_cores() { return usable_cpus().size(); }

/// One line saying what `speedup` over one worker means here: `workers` ran for `wall` seconds, using `own_cpu`
/// CPU seconds, while the machine used `machine_cpu` (negative: unknown) on `cores` cores. It names what limited the
/// speedup: too few cores, other programs on them, or work that did not run in parallel.
inline std::string read_speedup(double speedup, std::size_t workers, std::size_t cores, double wall, double own_cpu,
                                double machine_cpu) {
    const double possible = static_cast<double>(std::min(workers, cores));
    const double others =
        machine_cpu >= 0 && wall > 0 ? std::clamp((machine_cpu - own_cpu) / wall, 0.0, static_cast<double>(cores)) : 0;
    const double free_cores = static_cast<double>(cores) - others;
    const char* unit = cores == 1 ? "core" : "cores";
    char line[240];
    if (possible <= 1) {
        std::snprintf(line, sizeof line,
                      "reading: %.2fx with %zu %s on %zu %s: nothing runs in parallel, no speedup expected", speedup,
                      workers, workers == 1 ? "worker" : "workers", cores, unit);
    } else if (speedup > 1.1 * possible) {
        std::snprintf(line, sizeof line,
                      "reading: %.2fx, above the %.0fx that %zu workers on %zu %s allow: the one-worker run was slowed "
                      "(by other programs, or by caches that more workers share out)",
                      speedup, possible, workers, cores, unit);
    } else if (speedup >= 0.8 * possible) {
        std::snprintf(line, sizeof line,
                      "reading: %.2fx of a possible %.0fx: the workers ran in parallel; more cores would go further",
                      speedup, possible);
    } else if (others >= 0.25 && free_cores < possible - 0.25) {
        std::snprintf(line, sizeof line,
                      "reading: %.2fx with %zu workers on %zu %s, while other programs kept %.1f of them busy: "
                      "about %.1fx was possible here, no full speedup expected",
                      speedup, workers, cores, unit, others, std::max(1.0, free_cores));
    } else if (workers > cores) {
        std::snprintf(line, sizeof line, "reading: %.2fx with %zu workers on %zu %s: at most %zux is possible here",
                      speedup, workers, cores, unit, cores);
    } else {
        std::snprintf(line, sizeof line,
                      "reading: %.2fx of a possible %.0fx with the cores free: part of the work did not run in "
                      "parallel (see each worker's busy and wait time)",
                      speedup, possible);
    }
    return line;
}

}  // namespace example
