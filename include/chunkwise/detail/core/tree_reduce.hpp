#pragma once
// Internal: the fixed pairwise reduction tree over block indices, the one place it lives: the
// accumulator, the nodes a process's results make, and the root's value from every process's
// nodes (gather.hpp's reduce uses it in one process, the MPI backend across ranks).
//
// Over n leaves, node (level j, k) covers [k*2^j, (k+1)*2^j) ∩ [0, n). A node's value is
// op(left, right) when both children cover something, else its left child's value unchanged.
// Leaves pushed in index order settle like a binary counter; any process holding any subset
// yields the maximal complete nodes of that subset, and pushing everyone's nodes in start order
// yields the root: the same operations on the same operands whoever computes them, so the same
// bits for every policy, thread count and rank count.

#include <chunkwise/partial_results.hpp>

#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <type_traits>
#include <utility>
#include <vector>

namespace chunkwise::detail {

template <class R>
struct tree_node {
    unsigned level = 0;
    std::size_t k = 0;
    std::optional<R> value;  // empty: no leaf under this node has a value

    [[nodiscard]] std::size_t start() const noexcept { return k << level; }
};

/// Combines `a` and `b` into `a`: in place where the op can (a.merge(b) for mergeable results),
/// else a = op(a, b).
template <class R, class Op>
void combine_into(Op& op, R& a, R& b) {
    if constexpr (requires { op.merge_into(a, b); }) {
        op.merge_into(a, b);
    } else if constexpr (std::is_move_assignable_v<R>) {
        a = std::invoke(op, std::move(a), std::move(b));
    } else {  // a result type without assignment: replace the object
        R c = std::invoke(op, std::move(a), std::move(b));
        std::destroy_at(&a);
        std::construct_at(&a, std::move(c));
    }
}

/// The binary counter over slots: values stay where they are (a results vector, a node list) and
/// the stack holds only (level, k, slot), so a leaf costs no move of its value.
template <class R, class Op, class Get>
class tree_accumulator {
public:
    static constexpr std::size_t none = static_cast<std::size_t>(-1);

    struct entry {
        unsigned level = 0;
        std::size_t k = 0;
        std::size_t slot = none;  // none: no leaf under this node has a value
    };

    /// `get(slot)` is the value in a slot, as an R&.
    tree_accumulator(std::size_t n, Op& op, Get get) : n_(n), op_(op), get_(std::move(get)) {}

    /// Adds a node; nodes must come in ascending start order and must not overlap.
    void push(unsigned level, std::size_t k, std::size_t slot) {
        stack_.push_back(entry{level, k, slot});
        settle();
    }

    /// The nodes that could not be combined further with what was pushed, in start order.
    [[nodiscard]] const std::vector<entry>& nodes() const noexcept { return stack_; }

private:
    // True when node (level, k) has no right sibling inside [0, n).
    [[nodiscard]] bool lonely(unsigned level, std::size_t k) const noexcept {
        return (k | 1) >= ((n_ - 1) >> level) + 1;
    }
    [[nodiscard]] bool is_root(unsigned level, std::size_t k) const noexcept {
        return k == 0 && ((n_ - 1) >> level) == 0;
    }

    void settle() {
        for (;;) {
            entry& top = stack_.back();
            if ((top.k & 1) != 0) {
                if (stack_.size() < 2) return;
                entry& below = stack_[stack_.size() - 2];
                if (below.level != top.level || below.k + 1 != top.k) return;
                if (below.slot != none && top.slot != none) {
                    combine_into<R>(op_, get_(below.slot), get_(top.slot));
                } else if (top.slot != none) {
                    below.slot = top.slot;
                }
                below.level += 1;
                below.k >>= 1;
                stack_.pop_back();
            } else if (!is_root(top.level, top.k) && lonely(top.level, top.k)) {
                top.level += 1;  // no right sibling: the parent is this node unchanged
                top.k >>= 1;
            } else {
                return;
            }
        }
    }

    std::size_t n_;
    Op& op_;
    Get get_;
    std::vector<entry> stack_;
};

/// The node over v[0, 2^L) when all 2^L leaves hold values, into `out`, for an op that merges
/// in place: the leaves are only read (the values are copied into scratch states that stay in
/// cache), so the tree costs what a loop over the leaves costs, not a write-back of every other
/// leaf. `tmp` holds L - 1 scratch states.
template <unsigned L, class R, class Op>
void merge_full_group(Op& op, R& out, const R* v, R* tmp) {
    if constexpr (L == 0) {
        out = v[0];
    } else if constexpr (L == 1) {
        out = v[0];
        op.merge_into(out, v[1]);
    } else {
        merge_full_group<L - 1>(op, out, v, tmp + 1);
        merge_full_group<L - 1>(op, tmp[0], v + (std::size_t{1} << (L - 1)), tmp + 1);
        op.merge_into(out, tmp[0]);
    }
}

/// As merge_full_group for states that are plain memory: by value, every merge inlined (flatten),
/// so the compiler keeps the states in registers; a call per merge would pass each through memory.
template <unsigned L, class R, class Op>
#if defined(__GNUC__)
[[gnu::flatten]]
#endif
R merged_group_value(Op& op, const R* v) {
    if constexpr (L == 0) {
        return v[0];
    } else {
        R a = merged_group_value<L - 1>(op, v);
        const R b = merged_group_value<L - 1>(op, v + (std::size_t{1} << (L - 1)));
        op.merge_into(a, b);
        return a;
    }
}

template <class R, class Op, class Get>
tree_accumulator<R, Op, Get> make_tree_accumulator(std::size_t n, Op& op, Get get) {
    return tree_accumulator<R, Op, Get>(n, op, std::move(get));
}

/// The reduction tree over the results held here plus `empty_leaves` (ascending indices of blocks
/// without a result: failed ones), leaves in block order. Empty leaves change no other node's
/// operands, so the tree keeps its shape whichever blocks failed. Combines in place in `results`.
template <class R, class Op>
std::vector<tree_node<R>> local_tree_nodes(partial_results<R>& results, Op& op,
                                           const std::vector<std::size_t>& empty_leaves) {
    std::vector<R>& vals = results.values();
    auto acc =
        make_tree_accumulator<R>(results.total_blocks(), op, [&vals](std::size_t slot) -> R& { return vals[slot]; });
    constexpr std::size_t none = decltype(acc)::none;
    // Where the op merges in place and R can be copied, leaves are merged in whole groups: 16 of
    // plain-memory states (in registers), 256 of others (copies into scratch states in cache).
    constexpr bool groups = requires(R & a, const R& b) { op.merge_into(a, b); }
    &&std::copyable<R>&& std::default_initializable<R>;
    constexpr unsigned group_level = !groups ? 0 : std::is_trivially_copyable_v<R> ? 4 : 8;
    const std::vector<std::size_t>& idx = results.indices();
    std::size_t k = 0, e = 0;
    struct no_scratch {};
    [[maybe_unused]] std::conditional_t<groups, std::array<R, group_level + 1>, no_scratch> scratch;
    [[maybe_unused]] const bool dense = idx.size() == results.total_blocks() && empty_leaves.empty();
    while (k < idx.size() || e < empty_leaves.size()) {
        if constexpr (group_level > 0) {
            // A whole aligned group of leaves present: its node in one straight-line pass.
            constexpr std::size_t g = std::size_t{1} << group_level;
            // Every block's value held here: leaf k is block k (no need to read the indices).
            // Else: g leaves in a row, aligned, and no empty leaf before them still to push.
            const bool whole = dense ? k + g <= idx.size()
                                     : k + g <= idx.size() && idx[k] % g == 0 && idx[k + g - 1] == idx[k] + g - 1 &&
                                           (e == empty_leaves.size() || empty_leaves[e] > idx[k]);
            if (whole) {
                if constexpr (std::is_trivially_copyable_v<R>) {
                    vals[k] = merged_group_value<group_level>(op, vals.data() + k);
                } else {
                    merge_full_group<group_level>(op, scratch[0], vals.data() + k, scratch.data() + 1);
                    using std::swap;
                    swap(vals[k], scratch[0]);
                }
                acc.push(group_level, (dense ? k : idx[k]) >> group_level, k);
                k += g;
                continue;
            }
        }
        if (e == empty_leaves.size() || (k < idx.size() && idx[k] < empty_leaves[e])) {
            acc.push(0, idx[k], k);
            ++k;
        } else {
            acc.push(0, empty_leaves[e++], none);
        }
    }
    std::vector<tree_node<R>> out;
    out.reserve(acc.nodes().size());
    for (const auto& node : acc.nodes()) {
        tree_node<R>& o = out.emplace_back();
        o.level = node.level;
        o.k = node.k;
        if (node.slot != none) o.value.emplace(std::move(vals[node.slot]));
    }
    return out;
}

/// Indices in [0, total) that `results` holds no value for.
template <class R>
std::vector<std::size_t> missing_indices(const partial_results<R>& results) {
    std::vector<std::size_t> out;
    if (results.indices().size() == results.total_blocks()) return out;  // every block holds one
    std::size_t k = 0;
    for (std::size_t i = 0; i < results.total_blocks(); ++i) {
        if (k < results.indices().size() && results.indices()[k] == i) {
            ++k;
        } else {
            out.push_back(i);
        }
    }
    return out;
}

/// The root's value given every node of a complete cover of [0, n), in start order.
template <class R, class Op>
std::optional<R> finish_tree(std::size_t n, std::vector<tree_node<R>>& nodes, Op& op) {
    auto acc = make_tree_accumulator<R>(n, op, [&nodes](std::size_t slot) -> R& { return *nodes[slot].value; });
    constexpr std::size_t none = decltype(acc)::none;
    for (std::size_t i = 0; i < nodes.size(); ++i) acc.push(nodes[i].level, nodes[i].k, nodes[i].value ? i : none);
    // Nodes missing from the cover (failed blocks) leave gaps: combine what is left in order.
    std::optional<R> out;
    for (const auto& node : acc.nodes()) {
        if (node.slot == none) continue;
        R& v = *nodes[node.slot].value;
        if (out) {
            combine_into<R>(op, *out, v);
        } else {
            out.emplace(std::move(v));
        }
    }
    return out;
}

/// Op can combine two R into an R.
template <class Op, class R>
concept reduction_op = std::invocable<Op&, R, R> && std::convertible_to<std::invoke_result_t<Op&, R, R>, R>;

template <class R>
R empty_reduction() {
    if constexpr (std::is_default_constructible_v<R>) {
        return R{};
    } else {
        throw std::invalid_argument("[chunkwise.reduce] no results to reduce and the result type has no default value");
    }
}

/// A node as one u64, to travel between ranks: start * 64 + level.
template <class R>
std::uint64_t node_key(const tree_node<R>& node) {
    return static_cast<std::uint64_t>(node.start()) * 64 + node.level;
}
/// The node a key names, holding `value`.
template <class R>
tree_node<R> node_of_key(std::uint64_t key, std::optional<R>&& value) {
    const auto level = static_cast<unsigned>(key % 64);
    return tree_node<R>{level, static_cast<std::size_t>(key / 64) >> level, std::move(value)};
}

}  // namespace chunkwise::detail
