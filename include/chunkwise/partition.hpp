#pragma once
/// \file
/// Splitting a 1-D index space [0, n) into blocks: balanced, never empty, optionally aligned.

#include <cstddef>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

namespace chunkwise {

/// A half-open slice [begin, end) of a 1-D index space, and its position in its partition.
struct block {
    std::size_t index = 0;  ///< position in its partition: 0 .. n_blocks-1
    std::size_t begin = 0;  ///< first item of the slice
    std::size_t end = 0;    ///< one past the last item of the slice

    /// Number of items in the slice (end - begin).
    [[nodiscard]] constexpr std::size_t size() const noexcept { return end - begin; }

    /// Equal when index, begin and end are.
    friend constexpr bool operator==(const block&, const block&) noexcept = default;
};

/// The block of items [begin, end), index 0: for reads and calls outside map_blocks, where the
/// field order {index, begin, end} is a trap — `ds.read<float, 3>(chunkwise::items(0, 1))` reads
/// frame 0, while `block{0, 1, 0}` is index 0, begin 1, end 0 (an error). Or name the fields:
/// `block{.index = 0, .begin = 0, .end = 1}`.
/// \throws std::invalid_argument if begin > end
[[nodiscard]] constexpr block items(std::size_t begin, std::size_t end) {
    if (begin > end) {
        throw std::invalid_argument("[chunkwise.partition] items(" + std::to_string(begin) + ", " +
                                    std::to_string(end) + "): begin is after end");
    }
    return block{0, begin, end};
}

/// Ask `partition` for this many balanced blocks (fewer when there are fewer items).
struct parts {
    std::size_t count;  ///< number of blocks asked for
};

/// Ask `partition` for blocks of at most this many items, balanced.
struct block_size {
    std::size_t count;  ///< most items per block
};

/// Ask `partition` to put every block boundary except the last on a multiple of this.
struct align {
    std::size_t multiple;  ///< the boundaries' multiple (a chunk's length, say)
};

/// Split [0, n) into min(p.count, n) balanced blocks.
///
/// Sizes differ by at most one, larger blocks come first, no block is empty, and the blocks
/// cover [0, n) in order. n = 0 gives no blocks.
/// \throws std::invalid_argument if p.count is 0.
[[nodiscard]] inline std::vector<block> partition(std::size_t n, parts p) {
    if (p.count == 0) {
        throw std::invalid_argument("[chunkwise.partition] parts{0}: the number of blocks must be at least 1");
    }
    std::vector<block> out;
    if (n == 0) return out;
    const std::size_t k = p.count < n ? p.count : n;
    const std::size_t base = n / k;
    const std::size_t extra = n % k;
    out.reserve(k);
    std::size_t begin = 0;
    for (std::size_t i = 0; i < k; ++i) {
        const std::size_t len = base + (i < extra ? 1 : 0);
        out.push_back(block{i, begin, begin + len});
        begin += len;
    }
    return out;
}

/// Split [0, n) into ceil(n / s.count) balanced blocks, each of at most s.count items.
///
/// Sizes differ by at most one and larger blocks come first; n = 0 gives no blocks.
/// \throws std::invalid_argument if s.count is 0.
[[nodiscard]] inline std::vector<block> partition(std::size_t n, block_size s) {
    if (s.count == 0) {
        throw std::invalid_argument("[chunkwise.partition] block_size{0}: a block must hold at least 1 item");
    }
    if (n == 0) return {};
    return partition(n, parts{n / s.count + (n % s.count != 0 ? 1 : 0)});
}

/// Split [0, n) into at most p.count blocks whose boundaries (all but the last end) are
/// multiples of a.multiple, balanced in whole units of a.multiple.
///
/// The number of units is ceil(n / a.multiple); every block holds whole units, unit counts
/// differ by at most one (larger first), and the last unit may be partial. No block is empty.
/// Use it to keep blocks from splitting a storage chunk of a.multiple rows.
/// \throws std::invalid_argument if p.count or a.multiple is 0.
[[nodiscard]] inline std::vector<block> partition(std::size_t n, parts p, align a) {
    if (a.multiple == 0) {
        throw std::invalid_argument("[chunkwise.partition] align{0}: the alignment must be at least 1");
    }
    if (p.count == 0) {
        throw std::invalid_argument("[chunkwise.partition] parts{0}: the number of blocks must be at least 1");
    }
    const std::size_t units = n / a.multiple + (n % a.multiple != 0 ? 1 : 0);
    std::vector<block> out = partition(units, p);
    for (block& b : out) {
        b.begin *= a.multiple;                            // < n: no overflow
        b.end = b.end == units ? n : b.end * a.multiple;  // < n unless last
    }
    return out;
}

/// Ask `partition` for blocks that may read this many items before and after their own range
/// (windowed analyses: a block's last items need the next block's first ones).
struct halo {
    std::size_t items;  ///< items read on each side, beyond the block's own range
};

/// A block with a halo: its own items [begin, end), whose results it returns, and the items
/// [read_begin, read_end) it may read, which contain them (clipped at 0 and n).
struct halo_block : block {
    std::size_t read_begin = 0;  ///< first item the block may read (<= begin)
    std::size_t read_end = 0;    ///< one past the last item it may read (>= end)

    /// The range to read, as a block of the same index: `ds.read<float, 3>(b.read_range())`.
    [[nodiscard]] constexpr block read_range() const noexcept { return block{index, read_begin, read_end}; }
    /// The part of values computed over [read_begin, read_end) (one per item) that belongs to
    /// the block's own range [begin, end): what it returns, so that gathered results hold every
    /// item once. \throws std::invalid_argument if values does not hold one value per item read
    template <class Values>
    [[nodiscard]] Values own(const Values& values) const {
        if (values.size() != read_end - read_begin) {
            throw std::invalid_argument("[chunkwise.partition] halo_block::own: " + std::to_string(values.size()) +
                                        " values for the " + std::to_string(read_end - read_begin) + " items block " +
                                        std::to_string(index) + " reads");
        }
        const auto first = values.begin() + static_cast<std::ptrdiff_t>(begin - read_begin);
        return Values(first, first + static_cast<std::ptrdiff_t>(end - begin));
    }

    /// Equal when index, the own range and the read range are.
    friend constexpr bool operator==(const halo_block&, const halo_block&) noexcept = default;
};

namespace detail {
/// Each of `blocks` (over [0, n)) with `h.items` more items read on each side, inside [0, n).
inline std::vector<halo_block> with_halo(const std::vector<block>& blocks, std::size_t n, halo h) {
    std::vector<halo_block> out;
    out.reserve(blocks.size());
    for (const block& b : blocks) {
        halo_block hb;
        static_cast<block&>(hb) = b;
        hb.read_begin = b.begin > h.items ? b.begin - h.items : 0;
        hb.read_end = n - b.end > h.items ? b.end + h.items : n;
        out.push_back(hb);
    }
    return out;
}
}  // namespace detail

/// Split [0, n) as partition(n, p) does, each block also allowed to read h.items items before and
/// after its own range (clipped at 0 and n). Own ranges cover [0, n) once; read ranges overlap.
/// \throws std::invalid_argument if p.count is 0, or the halo is larger than the data (h > n)
[[nodiscard]] inline std::vector<halo_block> partition(std::size_t n, parts p, halo h) {
    if (h.items > n) {
        throw std::invalid_argument("[chunkwise.partition] halo{" + std::to_string(h.items) +
                                    "}: larger than the data (" + std::to_string(n) + " items)");
    }
    return detail::with_halo(partition(n, p), n, h);
}

}  // namespace chunkwise
