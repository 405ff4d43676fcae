// hdf5.codec_list: the codec libraries the filter table's codecs need, sorted, to compare
// with CMake's CHUNKWISE_CODECS (cmake/chunkwise-find-hdf5.cmake): one list, checked.
#include <chunkwise/detail/hdf5/filters/table.hpp>

#include <cstdio>
#include <set>
#include <string>

int main() {
    std::set<std::string> needs;  // sorted, as the test sorts CMake's list
    for (const auto* c : chunkwise::h5::detail::all_codecs()) {
        if (c->needs != nullptr) needs.insert(c->needs);
    }
    std::string text;
    for (const auto& n : needs) text += (text.empty() ? "" : " ") + n;
    std::printf("needs: %s\n", text.c_str());
}
