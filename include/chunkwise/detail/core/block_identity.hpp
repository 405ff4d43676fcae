#pragma once
// Internal: how chunkwise names a block, the one definition every part uses (error messages,
// logs, checkpoints, failure reports, select_failed):
//
// | element of the range            | index                | description          | checkpoint key        |
// | ------------------------------- | -------------------- | -------------------- | --------------------- |
// | has `index`, `begin`, `end`     | its index member     | "items [b, e)"       | the index             |
// | converts to std::string_view    | position in range    | the string           | hash of the string    |
// | has `.string()` (a path)        | position in range    | the string           | hash of the string    |
// | arithmetic (std::views::iota)   | position in range    | "item V", V exact    | hash of its exact value |
// | anything else                   | position in range    | ""                   | none: not checkpointed |
//
// A failure recorded in one run names the same element in a later run over another selection of
// the same elements: by index where there is one, else by description, else by position. A
// checkpoint key must name the element itself, never its position: a list reordered or extended
// between runs would otherwise load one element's result into another. Elements without an index
// or a name are therefore refused by checkpoints (`nameable`), and an element whose name is empty
// at run time is run without its checkpoint. Numbers are written exactly (the shortest text that
// reads back as the same value: 1e-07 and 2e-07, 0.25 and 0.2500001 are different elements).
#include <chunkwise/failure.hpp>

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <charconv>
#include <set>
#include <string>
#include <string_view>
#include <type_traits>

namespace chunkwise::detail {

inline std::uint64_t fnv1a(std::string_view a, std::uint64_t h = 14695981039346656037ull) {
    for (char c : a) {
        h ^= static_cast<unsigned char>(c);
        h *= 1099511628211ull;
    }
    return h;
}

/// An element numbered by an integer `index` member (a number of another kind is not an index).
template <class Block>
concept indexed_block = requires(const Block& b) {
    requires std::integral<std::remove_cvref_t<decltype(b.index)>>;
};

/// A number as the shortest text that reads back as the same value ("1e-07", "0.2500001", "42");
/// for keys (`exact`), a floating-point value as its exact binary value (hex), so that 1e-7f and
/// 1e-7, which print alike, are different elements, and 0.5f and 0.5 the same.
template <class V>
std::string exact_text(const V& v, bool exact = false) {
    if constexpr (std::is_same_v<V, bool>) {
        return v ? "true" : "false";
    } else if constexpr (std::is_floating_point_v<V>) {
        char buf[128];
        const auto r = exact ? std::to_chars(buf, buf + sizeof buf, static_cast<long double>(v), std::chars_format::hex)
                             : std::to_chars(buf, buf + sizeof buf, v);
        return std::string(buf, r.ptr);
    } else if constexpr (std::is_arithmetic_v<V>) {
        char buf[64];
        const auto r = std::to_chars(buf, buf + sizeof buf, v);
        return std::string(buf, r.ptr);
    } else {  // a type that converts to a count
        return std::to_string(static_cast<std::size_t>(v));
    }
}

template <class Block>
struct block_identity {
    /// The block's number in logs, checkpoints and failure reports: its `index` member where it
    /// has one (so a re-run of some blocks keeps their numbers), else its position in the range.
    static std::size_t index(const Block& b, std::size_t position) {
        if constexpr (indexed_block<Block>) {
            (void)position;
            return static_cast<std::size_t>(b.index);
        } else {
            (void)b;
            return position;
        }
    }

    /// What the block covers, for people: "items [10, 20)", a file name, "item 7"; "" when
    /// nothing can be said. `exact`: numbers as their exact binary values (for keys).
    static std::string description(const Block& b, bool exact = false) {
        if constexpr (requires {
                          { b.read_begin } -> std::convertible_to<std::size_t>;
                          { b.read_end } -> std::convertible_to<std::size_t>;
                      }) {
            // A block with a halo: its result depends on what it reads too (a checkpoint of another
            // halo is another block).
            return "items [" + exact_text(b.begin, exact) + ", " + exact_text(b.end, exact) + ") reading [" +
                   exact_text(b.read_begin, exact) + ", " + exact_text(b.read_end, exact) + ")";
        } else if constexpr (requires {
                                 { b.begin } -> std::convertible_to<std::size_t>;
                                 { b.end } -> std::convertible_to<std::size_t>;
                             }) {
            return "items [" + exact_text(b.begin, exact) + ", " + exact_text(b.end, exact) + ")";
        } else if constexpr (std::is_convertible_v<const Block&, std::string_view>) {
            return std::string(std::string_view(b));
        } else if constexpr (requires {
                                 { b.string() } -> std::convertible_to<std::string>;
                             }) {
            return b.string();
        } else if constexpr (std::is_arithmetic_v<Block>) {
            return "item " + exact_text(b, exact);
        } else {
            (void)b;
            (void)exact;
            return {};
        }
    }

    /// True when elements of this type can be named from run to run (an index, a range, a name or
    /// a number): only then can a checkpoint key them.
    static constexpr bool nameable = indexed_block<Block> || requires(const Block& b) {
        { b.begin } -> std::convertible_to<std::size_t>;
        { b.end } -> std::convertible_to<std::size_t>;
    }
    || std::is_convertible_v<const Block&, std::string_view> || requires(const Block& b) {
        { b.string() } -> std::convertible_to<std::string>;
    }
    || std::is_arithmetic_v<Block>;

    /// A name for the block's checkpoint record, stable from run to run and naming the element
    /// itself (its index, or a hash of its description); "" where the element has no name (an
    /// empty string or path): such a block is not checkpointed.
    static std::string key(const Block& b, std::size_t position, const std::string& description) {
        if constexpr (indexed_block<Block>) {
            (void)description;
            return std::to_string(index(b, position));
        } else {
            if (description.empty()) return {};
            char hex[17];
            std::snprintf(hex, sizeof hex, "%016llx",
                          static_cast<unsigned long long>(fnv1a(block_identity::description(b, true))));
            return std::string("item-") + hex;
        }
    }

    /// True when one of the failures an earlier run reported names this block: `indices` and
    /// `names` hold their `index` and `block` fields.
    static bool failed(const Block& b, std::size_t position, const std::set<std::size_t>& indices,
                       const std::set<std::string>& names) {
        if constexpr (indexed_block<Block>) {
            (void)position;
            (void)names;
            return indices.count(static_cast<std::size_t>(b.index)) != 0;
        } else {
            const std::string d = description(b);
            return d.empty() ? indices.count(position) != 0 : names.count(d) != 0;
        }
    }
};

}  // namespace chunkwise::detail
