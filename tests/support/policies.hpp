#pragma once
// The std-only policies the backend tests run over, each made fresh by make().
#include <chunkwise/serial.hpp>
#include <chunkwise/threads.hpp>

#include <cstddef>
#include <string>

namespace test {

struct serial_case {
    static chunkwise::serial_policy make() { return {}; }
    static std::string name() { return "serial"; }
};

template <std::size_t N>
struct threads_case {
    static chunkwise::thread_policy make() { return chunkwise::thread_policy(N); }
    static std::string name() { return "threads(" + std::to_string(N) + ")"; }
};

}  // namespace test

#define CHUNKWISE_LOCAL_POLICIES \
    test::serial_case, test::threads_case<1>, test::threads_case<2>, test::threads_case<3>, test::threads_case<8>
