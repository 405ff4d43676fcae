#pragma once
// Internal: moving results between ranks. Arithmetic values, std::vector of arithmetic and
// tensor types (xtensor-like: shape(), data(), size(), R::from_shape) travel as raw element
// buffers through MPI_Gatherv / MPI_Bcast, with a small header of uint64 per value (vector
// length, tensor shape). Transfers above max_message_bytes (MPI counts are int) go as several
// point-to-point messages instead. Every other type is packed with Boost.Serialization (Boost.MPI's
// packed archives) into bytes that travel the same raw way, so serialized transfers are split
// above INT_MAX too.

#include <chunkwise/detail/core/value_kinds.hpp>

#include <boost/mpi/collectives.hpp>
#include <boost/mpi/communicator.hpp>
#include <boost/mpi/datatype.hpp>
#include <boost/mpi/packed_iarchive.hpp>
#include <boost/mpi/packed_oarchive.hpp>
#include <boost/serialization/string.hpp>  // results of these types travel without extra includes
#include <boost/serialization/utility.hpp>
#include <boost/serialization/vector.hpp>
#include <mpi.h>

#include <algorithm>
#include <climits>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace chunkwise::detail {

/// Largest message (bytes) sent in one MPI call; larger transfers are split. Only tests lower it.
inline std::size_t max_message_bytes = static_cast<std::size_t>(INT_MAX);

template <class T>
concept mpi_arithmetic = plain_arithmetic<T>;
template <class R>
concept raw_vector = arithmetic_vector<R>;
template <class R>
concept raw_tensor = arithmetic_tensor<R>;

/// How a value of R travels as raw elements; `raw` is false where it needs serialization.
template <class R>
struct raw_codec {
    static constexpr bool raw = false;
};

template <mpi_arithmetic R>
struct raw_codec<R> {
    static constexpr bool raw = true;
    using element = R;
    static void header(const R&, std::vector<std::uint64_t>&) {}
    static std::span<const R> elements(const R& r) { return {&r, 1}; }
    static R decode(const std::uint64_t*&, const R*& data) { return *data++; }
};

template <raw_vector R>
struct raw_codec<R> {
    static constexpr bool raw = true;
    using element = typename R::value_type;
    static constexpr std::size_t fixed_header = 1;  // header words per value
    static void header(const R& r, std::vector<std::uint64_t>& h) { h.push_back(r.size()); }
    static std::span<const element> elements(const R& r) { return {r.data(), r.size()}; }
    static R decode(const std::uint64_t*& h, const element*& data) {
        const std::size_t len = static_cast<std::size_t>(*h++);
        R out(data, data + len);
        data += len;
        return out;
    }
    /// A value of the size the header says, to receive elements into.
    static R make(const std::uint64_t*& h) { return R(static_cast<std::size_t>(*h++)); }
    static void skip(const std::uint64_t*& h) { ++h; }
    static element* data(R& r) { return r.data(); }
};

template <raw_tensor R>
struct raw_codec<R> {
    static constexpr bool raw = true;
    using element = typename R::value_type;
    // Header words per value where the rank is part of the type (xtensor<T, N>), else 0.
    static constexpr std::size_t fixed_header = [] {
        if constexpr (requires { std::tuple_size<typename R::shape_type>::value; }) {
            return 1 + std::tuple_size<typename R::shape_type>::value;
        } else {
            return std::size_t{0};
        }
    }();
    static void header(const R& r, std::vector<std::uint64_t>& h) {
        const auto& shape = r.shape();
        h.push_back(static_cast<std::uint64_t>(std::size(shape)));
        for (const auto extent : shape) h.push_back(static_cast<std::uint64_t>(extent));
    }
    static std::span<const element> elements(const R& r) { return {r.data(), static_cast<std::size_t>(r.size())}; }
    static R decode(const std::uint64_t*& h, const element*& data) {
        R out = make(h);
        const std::size_t count = static_cast<std::size_t>(out.size());
        std::copy(data, data + count, out.data());
        data += count;
        return out;
    }
    /// A value of the shape the header says, to receive elements into.
    static R make(const std::uint64_t*& h) {
        const std::size_t dims = static_cast<std::size_t>(*h++);
        typename R::shape_type shape{};
        if constexpr (requires { shape.resize(dims); }) shape.resize(dims);
        if (std::size(shape) != dims) {
            throw std::runtime_error("[chunkwise.mpi] a tensor of rank " + std::to_string(dims) +
                                     " arrived for a result type of rank " + std::to_string(std::size(shape)));
        }
        for (std::size_t d = 0; d < dims; ++d) shape[d] = static_cast<typename R::shape_type::value_type>(h[d]);
        h += dims;
        return R::from_shape(shape);
    }
    static void skip(const std::uint64_t*& h) { h += 1 + *h; }
    static element* data(R& r) { return r.data(); }
};

template <class T>
MPI_Datatype mpi_type() {
    return boost::mpi::get_mpi_datatype<T>(T{});
}

inline void check_mpi(int rc, const char* what) {
    if (rc != MPI_SUCCESS) {
        char text[MPI_MAX_ERROR_STRING];
        int len = 0;
        MPI_Error_string(rc, text, &len);
        throw std::runtime_error(std::string("[chunkwise.mpi] ") + what + " failed: " + std::string(text, static_cast<std::size_t>(len)));
    }
}

/// Concatenation of every rank's `mine` on `root` in rank order (empty elsewhere); `counts`
/// receives each rank's element count on root. Where every rank already knows every rank's count,
/// pass them as `known` (same on all ranks) to save two collectives. Collective.
template <class T>
std::vector<T> gather_raw(const boost::mpi::communicator& comm, std::span<const T> mine, int root,
                          std::vector<std::uint64_t>& counts, const std::vector<std::uint64_t>* known = nullptr) {
    const int size = comm.size();
    const int rank = comm.rank();
    std::uint64_t total = 0;
    if (known != nullptr) {
        counts = rank == root ? *known : std::vector<std::uint64_t>();
        for (std::uint64_t c : *known) total += c;
    } else {
        const std::uint64_t my_count = mine.size();
        counts.assign(rank == root ? static_cast<std::size_t>(size) : 0, 0);
        check_mpi(MPI_Gather(&my_count, 1, mpi_type<std::uint64_t>(), counts.data(), 1, mpi_type<std::uint64_t>(), root,
                             comm),
                  "MPI_Gather of counts");
        // Everyone learns whether the total fits one Gatherv (int counts and displacements).
        for (std::uint64_t c : counts) total += c;
        check_mpi(MPI_Bcast(&total, 1, mpi_type<std::uint64_t>(), root, comm), "MPI_Bcast of the total");
    }
    const std::size_t limit_elems = std::max<std::size_t>(1, max_message_bytes / sizeof(T));

    std::vector<T> out(rank == root ? static_cast<std::size_t>(total) : 0);
    if (total <= limit_elems) {
        std::vector<int> icounts, displs;
        if (rank == root) {
            icounts.resize(static_cast<std::size_t>(size));
            displs.resize(static_cast<std::size_t>(size));
            int pos = 0;
            for (int r = 0; r < size; ++r) {
                icounts[static_cast<std::size_t>(r)] = static_cast<int>(counts[static_cast<std::size_t>(r)]);
                displs[static_cast<std::size_t>(r)] = pos;
                pos += icounts[static_cast<std::size_t>(r)];
            }
        }
        check_mpi(MPI_Gatherv(mine.data(), static_cast<int>(mine.size()), mpi_type<T>(), out.data(), icounts.data(),
                              displs.data(), mpi_type<T>(), root, comm),
                  "MPI_Gatherv");
        return out;
    }
    // Too large for int counts: each rank sends pieces of at most limit_elems to root in turn.
    constexpr int tag = 0x6377;  // "cw"
    if (rank == root) {
        std::size_t pos = 0;
        for (int r = 0; r < size; ++r) {
            const std::size_t n = static_cast<std::size_t>(counts[static_cast<std::size_t>(r)]);
            if (r == root) {
                std::copy(mine.begin(), mine.end(), out.begin() + static_cast<std::ptrdiff_t>(pos));
            } else {
                for (std::size_t off = 0; off < n; off += limit_elems) {
                    const int piece = static_cast<int>(std::min(limit_elems, n - off));
                    check_mpi(MPI_Recv(out.data() + pos + off, piece, mpi_type<T>(), r, tag, comm, MPI_STATUS_IGNORE),
                              "MPI_Recv");
                }
            }
            pos += n;
        }
    } else {
        for (std::size_t off = 0; off < mine.size(); off += limit_elems) {
            const int piece = static_cast<int>(std::min(limit_elems, mine.size() - off));
            check_mpi(MPI_Send(mine.data() + off, piece, mpi_type<T>(), root, tag, comm), "MPI_Send");
        }
    }
    return out;
}

/// Sends root's `buf` (resized elsewhere) to every rank, in pieces when large. Collective.
template <class T>
void broadcast_raw(const boost::mpi::communicator& comm, std::vector<T>& buf, int root) {
    std::uint64_t n = buf.size();
    check_mpi(MPI_Bcast(&n, 1, mpi_type<std::uint64_t>(), root, comm), "MPI_Bcast of a size");
    buf.resize(static_cast<std::size_t>(n));
    const std::size_t limit_elems = std::max<std::size_t>(1, max_message_bytes / sizeof(T));
    for (std::size_t off = 0; off < buf.size(); off += limit_elems) {
        const int piece = static_cast<int>(std::min(limit_elems, buf.size() - off));
        check_mpi(MPI_Bcast(buf.data() + off, piece, mpi_type<T>(), root, comm), "MPI_Bcast");
    }
}

/// `values` serialized (Boost.Serialization through Boost.MPI's packed archive) into bytes.
template <class R>
std::vector<char> pack_values(const boost::mpi::communicator& comm, const std::vector<R>& values) {
    boost::mpi::packed_oarchive out(comm);
    const std::uint64_t n = values.size();
    out << n;
    for (const R& v : values) out << v;
    const char* begin = static_cast<const char*>(out.address());
    return std::vector<char>(begin, begin + out.size());
}

/// The values pack_values made of `size` bytes at `data`.
template <class R>
std::vector<R> unpack_values(const boost::mpi::communicator& comm, const char* data, std::size_t size) {
    boost::mpi::packed_iarchive in(comm);
    in.resize(size);
    if (size > 0) std::memcpy(in.address(), data, size);
    std::uint64_t n = 0;
    in >> n;
    std::vector<R> out;
    out.reserve(static_cast<std::size_t>(std::min<std::uint64_t>(n, size)));
    for (std::uint64_t i = 0; i < n; ++i) {
        R v{};
        in >> v;
        out.push_back(std::move(v));
    }
    return out;
}

/// Every rank's values on root, concatenated in rank order; empty elsewhere. Collective.
/// Raw types are sent without copying where a rank holds one value (or arithmetic values), and
/// arithmetic values arrive without a decoding copy.
template <class R>
std::vector<R> gather_values(const boost::mpi::communicator& comm, std::vector<R>& values, int root,
                             const std::vector<std::uint64_t>* known_counts = nullptr) {
    std::vector<R> out;
    if constexpr (std::is_empty_v<R> && std::is_default_constructible_v<R>) {
        // Values without state (std::monostate of void block functions): only their counts travel.
        std::uint64_t total = 0;
        if (known_counts != nullptr) {
            for (std::uint64_t c : *known_counts) total += c;
        } else {
            const std::uint64_t mine = values.size();
            std::vector<std::uint64_t> counts(comm.rank() == root ? static_cast<std::size_t>(comm.size()) : 0);
            check_mpi(MPI_Gather(&mine, 1, mpi_type<std::uint64_t>(), counts.data(), 1, mpi_type<std::uint64_t>(), root,
                                 comm),
                      "MPI_Gather of counts");
            for (std::uint64_t c : counts) total += c;
        }
        if (comm.rank() == root) out.resize(static_cast<std::size_t>(total));
    } else if constexpr (mpi_arithmetic<R>) {
        std::vector<std::uint64_t> counts;
        out = gather_raw<R>(comm, values, root, counts, known_counts);
    } else if constexpr (raw_codec<R>::raw) {
        // Headers (sizes, shapes) first; root then allocates every value and receives each
        // rank's elements straight into it where that rank holds one value (the common case of
        // one block per rank), else into a buffer it splits. Root's own values are moved.
        using codec = raw_codec<R>;
        using element = typename codec::element;
        const int size = comm.size(), rank = comm.rank();
        std::vector<std::uint64_t> header;
        for (const R& v : values) codec::header(v, header);
        std::vector<std::uint64_t> header_counts, value_counts;
        if (known_counts != nullptr) {
            value_counts = *known_counts;
        } else {
            const std::uint64_t my_values = values.size();
            value_counts.assign(rank == root ? static_cast<std::size_t>(size) : 0, 0);
            check_mpi(MPI_Gather(&my_values, 1, mpi_type<std::uint64_t>(), value_counts.data(), 1,
                                 mpi_type<std::uint64_t>(), root, comm),
                      "MPI_Gather of value counts");
        }
        std::vector<std::uint64_t> known_header_counts;
        if (known_counts != nullptr && codec::fixed_header > 0) {
            for (std::uint64_t c : *known_counts) known_header_counts.push_back(c * codec::fixed_header);
        }
        const auto all_headers = gather_raw<std::uint64_t>(
            comm, header, root, header_counts, known_header_counts.empty() ? nullptr : &known_header_counts);
        const std::size_t limit_elems = std::max<std::size_t>(1, max_message_bytes / sizeof(element));
        constexpr int tag = 0x6378;
        if (rank == root) {
            const std::uint64_t* h = all_headers.data();
            std::vector<MPI_Request> requests;
            std::vector<std::vector<element>> buffers(static_cast<std::size_t>(size));
            std::vector<std::pair<std::size_t, std::size_t>> spans(static_cast<std::size_t>(size));  // values of r
            for (int r = 0; r < size; ++r) {
                const std::size_t count = static_cast<std::size_t>(value_counts[static_cast<std::size_t>(r)]);
                spans[static_cast<std::size_t>(r)] = {out.size(), count};
                if (r == root) {
                    for (std::size_t k = 0; k < count; ++k) {
                        codec::skip(h);
                        out.push_back(std::move(values[k]));
                    }
                    continue;
                }
                std::size_t elements = 0;
                for (std::size_t k = 0; k < count; ++k) {
                    out.push_back(codec::make(h));
                    elements += codec::elements(out.back()).size();
                }
                element* dest = nullptr;
                if (count == 1) {
                    dest = codec::data(out.back());
                } else {
                    buffers[static_cast<std::size_t>(r)].resize(elements);
                    dest = buffers[static_cast<std::size_t>(r)].data();
                }
                for (std::size_t off = 0; off < elements; off += limit_elems) {
                    MPI_Request req;
                    check_mpi(MPI_Irecv(dest + off, static_cast<int>(std::min(limit_elems, elements - off)),
                                        mpi_type<element>(), r, tag, comm, &req),
                              "MPI_Irecv");
                    requests.push_back(req);
                }
            }
            check_mpi(MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE),
                      "MPI_Waitall");
            for (int r = 0; r < size; ++r) {
                const auto& buffer = buffers[static_cast<std::size_t>(r)];
                if (buffer.empty()) continue;
                const element* d = buffer.data();
                const auto [first, count] = spans[static_cast<std::size_t>(r)];
                for (std::size_t k = first; k < first + count; ++k) {
                    const std::size_t len = codec::elements(out[k]).size();
                    std::copy(d, d + len, codec::data(out[k]));
                    d += len;
                }
            }
        } else {
            std::vector<element> flat;
            std::span<const element> send;
            if (values.size() == 1) {
                send = codec::elements(values.front());
            } else {
                for (const R& v : values) {
                    const auto e = codec::elements(v);
                    flat.insert(flat.end(), e.begin(), e.end());
                }
                send = flat;
            }
            for (std::size_t off = 0; off < send.size(); off += limit_elems) {
                check_mpi(MPI_Send(send.data() + off, static_cast<int>(std::min(limit_elems, send.size() - off)),
                                   mpi_type<element>(), root, tag, comm),
                          "MPI_Send");
            }
        }
    } else {
        // Serialized: every rank packs its values into bytes; the bytes travel raw (split above
        // INT_MAX); the root unpacks each rank's part.
        const std::vector<char> bytes = pack_values(comm, values);
        std::vector<std::uint64_t> counts;
        const std::vector<char> all = gather_raw<char>(comm, bytes, root, counts);
        if (comm.rank() == root) {
            std::size_t at = 0;
            for (std::uint64_t count : counts) {
                std::vector<R> part = unpack_values<R>(comm, all.data() + at, static_cast<std::size_t>(count));
                for (auto& v : part) out.push_back(std::move(v));
                at += static_cast<std::size_t>(count);
            }
        }
    }
    return out;
}

/// Every rank's (key, value) pairs on root, concatenated in rank order; empty elsewhere.
/// Collective.
template <class R>
std::vector<std::pair<std::uint64_t, R>> gather_keyed(const boost::mpi::communicator& comm,
                                                      const std::vector<std::uint64_t>& keys, std::vector<R>& values,
                                                      int root) {
    std::vector<std::uint64_t> counts;
    const auto all_keys = gather_raw<std::uint64_t>(comm, keys, root, counts);
    std::vector<R> all_values = gather_values(comm, values, root);
    std::vector<std::pair<std::uint64_t, R>> out;
    if (comm.rank() == root) {
        if (all_keys.size() != all_values.size()) {
            throw std::logic_error("[chunkwise.mpi] gathered " + std::to_string(all_keys.size()) + " keys but " +
                                   std::to_string(all_values.size()) + " values");
        }
        out.reserve(all_keys.size());
        for (std::size_t i = 0; i < all_keys.size(); ++i) out.emplace_back(all_keys[i], std::move(all_values[i]));
    }
    return out;
}

/// Root's values, in order, on every rank. Collective.
template <class R>
void broadcast_values(const boost::mpi::communicator& comm, std::vector<R>& values, int root) {
    if constexpr (std::is_empty_v<R> && std::is_default_constructible_v<R>) {
        std::uint64_t count = values.size();
        check_mpi(MPI_Bcast(&count, 1, mpi_type<std::uint64_t>(), root, comm), "MPI_Bcast of a count");
        values.resize(static_cast<std::size_t>(count));
    } else if constexpr (raw_codec<R>::raw) {
        using codec = raw_codec<R>;
        using element = typename codec::element;
        std::vector<std::uint64_t> header;
        std::vector<element> flat;
        std::uint64_t count = values.size();
        if (comm.rank() == root) {
            for (const R& v : values) {
                codec::header(v, header);
                const auto e = codec::elements(v);
                flat.insert(flat.end(), e.begin(), e.end());
            }
        }
        check_mpi(MPI_Bcast(&count, 1, mpi_type<std::uint64_t>(), root, comm), "MPI_Bcast of a count");
        broadcast_raw(comm, header, root);
        broadcast_raw(comm, flat, root);
        if (comm.rank() != root) {
            values.clear();
            values.reserve(static_cast<std::size_t>(count));
            const std::uint64_t* h = header.data();
            const element* d = flat.data();
            for (std::uint64_t i = 0; i < count; ++i) values.push_back(codec::decode(h, d));
        }
    } else {
        std::vector<char> bytes;
        if (comm.rank() == root) bytes = pack_values(comm, values);
        broadcast_raw(comm, bytes, root);
        if (comm.rank() != root) values = unpack_values<R>(comm, bytes.data(), bytes.size());
    }
}

}  // namespace chunkwise::detail
