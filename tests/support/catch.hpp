#pragma once
// Catch2 v2 (Debian 12) or v3 (Ubuntu 24.04), whichever is installed.
#if __has_include(<catch2/catch_all.hpp>)
#include <catch2/catch_all.hpp>
#define CHUNKWISE_CATCH3 1
#include <string>
namespace Catch::Matchers {
// Catch2 v3 names v2's substring matcher ContainsSubstring (its Contains matches range elements):
// Contains of text keeps v2's meaning (these overloads are chosen over v3's template).
inline StringContainsMatcher Contains(const char* s, CaseSensitive cs = CaseSensitive::Yes) {
    return ContainsSubstring(s, cs);
}
inline StringContainsMatcher Contains(const std::string& s, CaseSensitive cs = CaseSensitive::Yes) {
    return ContainsSubstring(s, cs);
}
inline StringContainsMatcher Contains(std::string& s, CaseSensitive cs = CaseSensitive::Yes) {
    return ContainsSubstring(s, cs);
}
inline StringContainsMatcher Contains(std::string&& s, CaseSensitive cs = CaseSensitive::Yes) {
    return ContainsSubstring(s, cs);
}
// A char buffer filled by snprintf: text, not a range of chars.
template <std::size_t N>
StringContainsMatcher Contains(char (&s)[N], CaseSensitive cs = CaseSensitive::Yes) {
    return ContainsSubstring(std::string(s), cs);
}
}  // namespace Catch::Matchers
using Catch::Approx;  // v2 declares it globally
#else
#include <catch2/catch.hpp>
#endif
