// A downstream program: what a user writes after find_package(chunkwise), add_subdirectory,
// FetchContent or copying include/. Prints "consumer ok <sum>" when the results agree.
#include <chunkwise/chunkwise.hpp>

#include <cstdio>
#include <functional>

int main() {
    const auto blocks = chunkwise::partition(1000, chunkwise::parts{7});
    auto square_sum = [](const chunkwise::block& b) {
        double s = 0;
        for (std::size_t i = b.begin; i < b.end; ++i) s += static_cast<double>(i) * static_cast<double>(i);
        return s;
    };
    chunkwise::serial_policy serial;
    chunkwise::thread_policy threads(2);
    const double a = chunkwise::reduce(serial, chunkwise::map_blocks(serial, blocks, square_sum), std::plus<>{});
    const double b = chunkwise::reduce(threads, chunkwise::map_blocks(threads, blocks, square_sum), std::plus<>{});
    if (a != b || a != 332833500.0) {
        std::printf("consumer FAILED %.17g %.17g\n", a, b);
        return 1;
    }
    std::printf("consumer ok %.0f (chunkwise %s)\n", a, chunkwise::version_string);
    return 0;
}
