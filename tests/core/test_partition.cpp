// partition(): balanced, never empty, larger first, covering, aligned.
#include "catch.hpp"

#include <chunkwise/partition.hpp>

#include <cstddef>
#include <limits>
#include <stdexcept>
#include <vector>

using chunkwise::align;
using chunkwise::block;
using chunkwise::block_size;
using chunkwise::partition;
using chunkwise::parts;

namespace {

// Blocks cover [0, n) in order, are numbered 0.., and none is empty.
void check_cover(const std::vector<block>& blocks, std::size_t n) {
    std::size_t pos = 0;
    for (std::size_t i = 0; i < blocks.size(); ++i) {
        INFO("n=" << n << " block " << i);
        REQUIRE(blocks[i].index == i);
        REQUIRE(blocks[i].begin == pos);
        REQUIRE(blocks[i].end > blocks[i].begin);
        REQUIRE(blocks[i].size() == blocks[i].end - blocks[i].begin);
        pos = blocks[i].end;
    }
    REQUIRE(pos == n);
}

// Sizes (in units) differ by at most one and never grow along the partition.
void check_balanced(const std::vector<std::size_t>& sizes) {
    for (std::size_t i = 1; i < sizes.size(); ++i) {
        REQUIRE(sizes[i] <= sizes[i - 1]);
        REQUIRE(sizes[0] - sizes[i] <= 1);
    }
}

}  // namespace

TEST_CASE("parts: balanced, larger blocks first, never empty", "[partition]") {
    for (std::size_t n = 0; n <= 70; ++n) {
        for (std::size_t p = 1; p <= 80; ++p) {
            const auto blocks = partition(n, parts{p});
            INFO("n=" << n << " p=" << p);
            REQUIRE(blocks.size() == (n < p ? n : p));
            check_cover(blocks, n);
            std::vector<std::size_t> sizes;
            for (const block& b : blocks) sizes.push_back(b.size());
            check_balanced(sizes);
        }
    }
}

TEST_CASE("parts: the MDAnalysis example, 90100 frames on 112 cores", "[partition]") {
    const auto blocks = partition(90100, parts{112});
    REQUIRE(blocks.size() == 112);
    // 90100 = 112 * 804 + 52: the first 52 blocks get 805 frames, the rest 804.
    REQUIRE(blocks[0] == block{0, 0, 805});
    REQUIRE(blocks[51].size() == 805);
    REQUIRE(blocks[52].size() == 804);
    REQUIRE(blocks.back().end == 90100);
}

TEST_CASE("parts: exact small cases", "[partition]") {
    REQUIRE(partition(10, parts{3}) == std::vector<block>{{0, 0, 4}, {1, 4, 7}, {2, 7, 10}});
    REQUIRE(partition(2, parts{5}) == std::vector<block>{{0, 0, 1}, {1, 1, 2}});
    REQUIRE(partition(0, parts{5}).empty());
    REQUIRE(partition(1, parts{1}) == std::vector<block>{{0, 0, 1}});
}

TEST_CASE("parts{0}, block_size{0} and align{0} are errors", "[partition]") {
    REQUIRE_THROWS_AS(partition(10, parts{0}), std::invalid_argument);
    REQUIRE_THROWS_AS(partition(0, parts{0}), std::invalid_argument);
    REQUIRE_THROWS_WITH(partition(10, parts{0}), Catch::Matchers::Contains("parts{0}"));
    REQUIRE_THROWS_AS(partition(10, block_size{0}), std::invalid_argument);
    REQUIRE_THROWS_AS(partition(10, parts{2}, align{0}), std::invalid_argument);
    REQUIRE_THROWS_AS(partition(10, parts{0}, align{3}), std::invalid_argument);
}

TEST_CASE("block_size: at most s items, as few blocks as that allows, balanced", "[partition]") {
    for (std::size_t n = 0; n <= 100; ++n) {
        for (std::size_t s = 1; s <= 25; ++s) {
            const auto blocks = partition(n, block_size{s});
            INFO("n=" << n << " s=" << s);
            REQUIRE(blocks.size() == (n + s - 1) / s);
            check_cover(blocks, n);
            std::vector<std::size_t> sizes;
            for (const block& b : blocks) {
                REQUIRE(b.size() <= s);
                sizes.push_back(b.size());
            }
            check_balanced(sizes);
        }
    }
    REQUIRE(partition(10, block_size{4}) == std::vector<block>{{0, 0, 4}, {1, 4, 7}, {2, 7, 10}});
}

TEST_CASE("parts + align: boundaries on multiples, balanced in whole chunks", "[partition]") {
    for (std::size_t n = 0; n <= 60; ++n) {
        for (std::size_t p = 1; p <= 12; ++p) {
            for (std::size_t c = 1; c <= 13; ++c) {
                const auto blocks = partition(n, parts{p}, align{c});
                INFO("n=" << n << " p=" << p << " c=" << c);
                const std::size_t units = (n + c - 1) / c;
                REQUIRE(blocks.size() == (units < p ? units : p));
                check_cover(blocks, n);
                std::vector<std::size_t> chunks;
                for (std::size_t i = 0; i < blocks.size(); ++i) {
                    if (i + 1 < blocks.size()) REQUIRE(blocks[i].end % c == 0);
                    REQUIRE(blocks[i].begin % c == 0);
                    chunks.push_back((blocks[i].size() + c - 1) / c);
                }
                check_balanced(chunks);
            }
        }
    }
    // 10 rows in chunks of 3 (units 3,3,3,1) over 2 blocks: 2 chunks + 2 chunks.
    REQUIRE(partition(10, parts{2}, align{3}) == std::vector<block>{{0, 0, 6}, {1, 6, 10}});
}

TEST_CASE("align near the top of size_t does not overflow", "[partition]") {
    const std::size_t big = std::numeric_limits<std::size_t>::max();
    const auto blocks = partition(big - 1, parts{4}, align{big / 2});
    check_cover(blocks, big - 1);
    REQUIRE(blocks.size() == 2);  // (2^64 - 2) rows are exactly two units of 2^63 - 1
    REQUIRE(blocks[0].end == big / 2);
}

TEST_CASE("items(begin, end) and designated initializers name a block without the field-order trap", "[partition]") {
    STATIC_REQUIRE(chunkwise::items(2, 5) == block{0, 2, 5});
    STATIC_REQUIRE(chunkwise::items(2, 5).size() == 3);
    STATIC_REQUIRE(chunkwise::items(4, 4).size() == 0);
    constexpr block named{.index = 1, .begin = 2, .end = 4};
    STATIC_REQUIRE(named.index == 1 && named.begin == 2 && named.end == 4);
    REQUIRE_THROWS_WITH(chunkwise::items(5, 2), Catch::Matchers::Contains("items(5, 2): begin is after end"));
}
