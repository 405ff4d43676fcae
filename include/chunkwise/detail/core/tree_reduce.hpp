#pragma once
// Internal: the fixed pairwise reduction tree over block indices.
//
// Over n leaves, node (level j, k) covers [k*2^j, (k+1)*2^j) ∩ [0, n). A node's value is
// op(left, right) when both children cover something, else its left child's value unchanged.
// Leaves pushed in index order settle like a binary counter; any process holding any subset
// yields the maximal complete nodes of that subset, and pushing everyone's nodes in start order
// yields the root: the same operations on the same operands whoever computes them, so the same
// bits for every policy, thread count and rank count.

#include <cstddef>
#include <functional>
#include <optional>
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

}  // namespace chunkwise::detail
