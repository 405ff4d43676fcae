#pragma once
/// \file
/// Where a measurement was taken: host, CPU model and last-level cache, hardware threads
/// (standard library only; read from /proc and /sys on Linux).

#include <cstddef>
#include <fstream>
#include <string>
#include <thread>

namespace chunkwise::bench {

/// Where a report was measured.
struct machine_info {
    std::string host;       ///< host name
    std::string cpu;        ///< CPU model
    std::size_t cores = 0;  ///< hardware threads of this machine
    std::string l3;         ///< the last-level cache of CPU 0, as Linux states it ("32768K"); "" where unknown

    /// This machine (Linux: /proc and /sys; elsewhere "unknown").
    [[nodiscard]] static machine_info here() {
        machine_info m;
        m.cores = std::thread::hardware_concurrency();
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

}  // namespace chunkwise::bench
