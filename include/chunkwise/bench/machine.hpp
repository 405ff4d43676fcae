#pragma once
/// \file
/// Where a measurement was taken: host, CPU model and last-level cache, hardware threads, and how
/// busy the machine was: its load average and the CPU time the hypervisor stole (standard library
/// only; read from /proc and /sys on Linux).

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <thread>

namespace chunkwise::bench {

/// Where a report was measured.
struct machine_info {
    std::string host;       ///< host name
    std::string cpu;        ///< CPU model
    std::size_t cores = 0;  ///< hardware threads of this machine
    std::string l3;         ///< the last-level cache of CPU 0, as Linux states it ("32768K"); "" where unknown
    /// The 1-minute load average when this was taken: runnable threads, averaged (NaN where unknown).
    /// Above about cores - workers, a run's workers share cores with other work.
    double load = std::numeric_limits<double>::quiet_NaN();

    /// The 1-minute load average now (Linux: /proc/loadavg; NaN elsewhere).
    [[nodiscard]] static double load_average() {
        std::ifstream f("/proc/loadavg");
        double one = std::numeric_limits<double>::quiet_NaN();
        if (!(f >> one)) return std::numeric_limits<double>::quiet_NaN();
        return one;
    }

    /// The cores other work leaves free now: cores - load average, at least 0 (NaN where unknown).
    [[nodiscard]] double cores_free() const {
        return std::isnan(load) ? load : std::max(0.0, static_cast<double>(cores) - load);
    }

    /// This machine (Linux: /proc and /sys; elsewhere "unknown").
    [[nodiscard]] static machine_info here() {
        machine_info m;
        m.cores = std::thread::hardware_concurrency();
        m.load = load_average();
        std::ifstream host("/proc/sys/kernel/hostname");
        if (!(host && std::getline(host, m.host))) m.host = "unknown";
        std::ifstream cpu("/proc/cpuinfo");
        for (std::string line; std::getline(cpu, line);) {
            if (line.rfind("model name", 0) == 0) {
                const auto colon = line.find(':');
                if (colon != std::string::npos) m.cpu = line.substr(line.find_first_not_of(' ', colon + 1));
                break;
            }
        }
        if (m.cpu.empty()) m.cpu = "unknown";
        for (int index = 3; index >= 2 && m.l3.empty(); --index) {
            std::ifstream level("/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index) + "/level");
            std::ifstream size("/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index) + "/size");
            std::string l, s;
            if (level >> l && size >> s && l == "3") m.l3 = s;
        }
        return m;
    }

    /// "AMD EPYC 7B13, L3 32768K, 2 hardware threads": the CPU named with every figure.
    [[nodiscard]] std::string text() const {
        return cpu + (l3.empty() ? std::string() : ", L3 " + l3) + ", " + std::to_string(cores) + " hardware threads";
    }
};

/// The machine's CPU time so far, all CPUs together (Linux: the "cpu" line of /proc/stat, in
/// clock ticks), to measure the share the hypervisor stole between two samples.
struct cpu_counters {
    double total = 0;  ///< every state's ticks (0: unknown)
    double steal = 0;  ///< ticks stolen by the hypervisor (other guests ran)

    /// Now (zeros where /proc/stat cannot be read).
    [[nodiscard]] static cpu_counters now() {
        cpu_counters c;
        std::ifstream f("/proc/stat");
        std::string line;
        if (!std::getline(f, line) || line.rfind("cpu ", 0) != 0) return c;
        std::istringstream in(line.substr(4));
        double v = 0;
        for (int field = 0; in >> v; ++field) {
            if (field < 8) c.total += v;  // user nice system idle iowait irq softirq steal (guest is in user)
            if (field == 7) c.steal = v;
        }
        return c;
    }
    /// The share of the CPU time since `before` that was stolen (NaN where unknown).
    [[nodiscard]] double steal_share_since(const cpu_counters& before) const {
        const double dt = total - before.total;
        return dt > 0 ? (steal - before.steal) / dt : std::numeric_limits<double>::quiet_NaN();
    }
};

}  // namespace chunkwise::bench
