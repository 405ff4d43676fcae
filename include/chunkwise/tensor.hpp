#pragma once
/// \file
/// The tensors chunkwise's stores read into (xtensor, wherever this xtensor version keeps its
/// headers), and `tensor_view`: the view a read into a `read_buffer` returns, for every store.

#include <chunkwise/detail/tensor/xtensor.hpp>

#include <array>
#include <cstddef>
#include <utility>

namespace chunkwise {

/// The view `read(rows, read_buffer&)` returns in every store: an xtensor expression of rank N over
/// the buffer's memory (shape(), data(), element access, any xtensor function), valid until the
/// next read into that buffer.
template <class T, std::size_t N>
using tensor_view = decltype(xt::adapt(std::declval<T*>(), std::size_t{}, xt::no_ownership(),
                                       std::declval<std::array<std::size_t, N>>()));

/// The view of `count` values at `data` with `shape` (row-major), owning nothing.
template <class T, std::size_t N>
[[nodiscard]] tensor_view<T, N> view_of(T* data, std::size_t count, const std::array<std::size_t, N>& shape) {
    return xt::adapt(static_cast<T*>(data), count, xt::no_ownership(), shape);  // a prvalue: the view holds the pointer
}

}  // namespace chunkwise
