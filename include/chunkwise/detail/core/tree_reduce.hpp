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

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <functional>
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

template <class R, class Op>
class tree_accumulator {
public:
    tree_accumulator(std::size_t n, Op& op) : n_(n), op_(op) {}

    /// Adds a node; nodes must come in ascending start order and must not overlap.
    void push(unsigned level, std::size_t k, std::optional<R>&& value) {
        tree_node<R>& node = stack_.emplace_back();
        node.level = level;
        node.k = k;
        if (value) node.value.emplace(std::move(*value));
        settle();
    }

    void push_leaf(std::size_t index, R&& value) {
        tree_node<R>& node = stack_.emplace_back();
        node.k = index;
        node.value.emplace(std::move(value));
        settle();
    }

    /// A leaf whose block has no result (it failed): it takes no part in any op.
    void push_empty_leaf(std::size_t index) {
        stack_.emplace_back().k = index;
        settle();
    }

    /// The nodes that could not be combined further with what was pushed, in start order.
    [[nodiscard]] std::vector<tree_node<R>>& nodes() noexcept { return stack_; }

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
            tree_node<R>& top = stack_.back();
            if ((top.k & 1) != 0) {
                if (stack_.size() < 2) return;
                tree_node<R>& below = stack_[stack_.size() - 2];
                if (below.level != top.level || below.k + 1 != top.k) return;
                if (below.value && top.value) {
                    below.value.emplace(std::invoke(op_, std::move(*below.value), std::move(*top.value)));
                } else if (top.value) {
                    below.value = std::move(top.value);
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
    std::vector<tree_node<R>> stack_;
};

/// The reduction tree over the results held here plus `empty_leaves` (ascending indices of blocks
/// without a result: failed ones), leaves in block order. Empty leaves change no other node's
/// operands, so the tree keeps its shape whichever blocks failed.
template <class R, class Op>
std::vector<tree_node<R>> local_tree_nodes(partial_results<R>& results, Op& op,
                                           const std::vector<std::size_t>& empty_leaves) {
    tree_accumulator<R, Op> acc(results.total_blocks(), op);
    const std::vector<std::size_t>& idx = results.indices();
    std::vector<R>& vals = results.values();
    std::size_t k = 0, e = 0;
    while (k < idx.size() || e < empty_leaves.size()) {
        if (e == empty_leaves.size() || (k < idx.size() && idx[k] < empty_leaves[e])) {
            acc.push_leaf(idx[k], std::move(vals[k]));
            ++k;
        } else {
            acc.push_empty_leaf(empty_leaves[e++]);
        }
    }
    return std::move(acc.nodes());
}

/// Indices in [0, total) that `results` holds no value for.
template <class R>
std::vector<std::size_t> missing_indices(const partial_results<R>& results) {
    std::vector<std::size_t> out;
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
    tree_accumulator<R, Op> acc(n, op);
    for (tree_node<R>& node : nodes) acc.push(node.level, node.k, std::move(node.value));
    std::vector<tree_node<R>>& rest = acc.nodes();
    // Nodes missing from the cover (failed blocks) leave gaps: combine what is left in order.
    std::optional<R> out;
    for (tree_node<R>& node : rest) {
        if (!node.value) continue;
        if (out) {
            out.emplace(std::invoke(op, std::move(*out), std::move(*node.value)));
        } else {
            out = std::move(node.value);
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
